"""A TCP proxy between Kafka clients and a broker that loses some Produce responses:
it forwards every request, and for every `drop_every`-th Produce response it closes
the client's connection instead of forwarding the answer. The broker has appended the
batch, the client has no acknowledgement: it reconnects and retries, which is how an
idempotent producer's duplicate detection gets exercised.

The broker must advertise the proxy's address (advertised.listeners) so clients come
back through it after Metadata."""
import socket
import struct
import threading


def read_frame(sock):
    head = b""
    while len(head) < 4:
        chunk = sock.recv(4 - len(head))
        if not chunk:
            return None
        head += chunk
    size = struct.unpack(">i", head)[0]
    body = b""
    while len(body) < size:
        chunk = sock.recv(min(1 << 20, size - len(body)))
        if not chunk:
            return None
        body += chunk
    return head + body


class DropProxy:
    def __init__(self, port, target_port, drop_every):
        self.target_port = target_port
        self.drop_every = drop_every
        self.produce_responses = 0
        self.dropped = 0
        self.lock = threading.Lock()
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", port))
        self.server.listen(64)
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            api_of = {}
            threading.Thread(target=self._requests, args=(client, upstream, api_of), daemon=True).start()
            threading.Thread(target=self._responses, args=(client, upstream, api_of), daemon=True).start()

    def _requests(self, client, upstream, api_of):
        try:
            while True:
                frame = read_frame(client)
                if frame is None:
                    break
                api_key, _, correlation = struct.unpack(">hhi", frame[4:12])
                api_of[correlation] = api_key
                upstream.sendall(frame)
        except OSError:
            pass
        self._close(client, upstream)

    def _responses(self, client, upstream, api_of):
        try:
            while True:
                frame = read_frame(upstream)
                if frame is None:
                    break
                correlation = struct.unpack(">i", frame[4:8])[0]
                if api_of.pop(correlation, None) == 0 and self._drop():
                    break  # the answer is lost with the connection
                client.sendall(frame)
        except OSError:
            pass
        self._close(client, upstream)

    def _drop(self):
        with self.lock:
            self.produce_responses += 1
            if self.produce_responses % self.drop_every == 0:
                self.dropped += 1
                return True
            return False

    @staticmethod
    def _close(*socks):
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def close(self):
        self.server.close()
