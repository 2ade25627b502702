"""A TCP proxy that adds a fixed delay each way (the `delay` fault family: these machines'
kernels have no netem). Every chunk read from one side is written to the other DELAY_MS
later, in order; its upstream connections carry socket mark MARK, so that the DNAT rule
sending a broker's traffic here can leave the proxy's own connections alone.

    delay_proxy.py LISTEN_HOST LISTEN_PORT UPSTREAM_HOST UPSTREAM_PORT DELAY_MS MARK

Prints "ready" once listening. Ends on SIGTERM or SIGKILL, closing every connection.
"""
import asyncio
import socket
import sys
import time

SO_MARK = 36


async def pump(reader, writer, delay):
    """Copies reader to writer, each chunk `delay` seconds after it was read."""
    queue = asyncio.Queue()

    async def send():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - time.monotonic()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.ensure_future(send())
    try:
        while True:
            data = await reader.read(1 << 16)
            if not data:
                break
            queue.put_nowait((time.monotonic() + delay, data))
    except ConnectionError:
        pass
    queue.put_nowait((0, None))
    try:
        await sender
    except ConnectionError:
        pass


async def main(listen_host, listen_port, up_host, up_port, delay, mark):
    async def handle(client_reader, client_writer):
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, SO_MARK, mark)
        sock.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(sock, (up_host, up_port))
            up_reader, up_writer = await asyncio.open_connection(sock=sock)
        except OSError:
            sock.close()
            client_writer.close()
            return
        await asyncio.gather(pump(client_reader, up_writer, delay), pump(up_reader, client_writer, delay),
                             return_exceptions=True)

    server = await asyncio.start_server(handle, listen_host, listen_port)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    if len(sys.argv) != 7:
        sys.stderr.write(__doc__)
        sys.exit(2)
    host, port, up_host, up_port, delay_ms, mark = sys.argv[1:]
    asyncio.run(main(host, int(port), up_host, int(up_port), int(delay_ms) / 1000.0, int(mark, 0)))
