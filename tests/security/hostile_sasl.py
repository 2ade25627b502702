#!/usr/bin/python3
"""Issue 17: hostile clients against a SASL listener. While a well-behaved PLAIN producer
(confluent-kafka) keeps producing, by hand-made requests:
- garbage and empty SaslAuthenticate tokens for PLAIN and SCRAM-SHA-512, garbage raw
  (v0) tokens, SaslAuthenticate without a handshake, an unknown mechanism, a Produce
  before authenticating: each answered with Kafka's error or closed, never a crash;
- a SASL token over sasl.server.max.receive.size, and a frame size promising 100 MB
  before authentication: the connection closes at once;
- thousands of failed logins from many connections at once: each answered
  SASL_AUTHENTICATION_FAILED after connection.failed.authentication.delay.ms;
- hundreds of clients stalling mid-handshake: closed by connections.max.idle.ms.
Then: the broker still runs, its RSS stayed bounded, the producer's every record was
acknowledged, its worst delay bounded, and the log did not grow per failure (rate limit).
Usage: hostile_sasl.py PATH/TO/strata"""
import os
import random
import socket
import struct
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Producer  # noqa: E402

from strata_broker import StrataBroker, check, free_port, recv_exact  # noqa: E402

PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="admin" password="admin-secret" user_alice="alice-secret";')
SASL_HANDSHAKE, SASL_AUTHENTICATE, PRODUCE = 17, 36, 0
FAILED, UNSUPPORTED_MECHANISM, ILLEGAL_STATE = 58, 33, 34


def string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def request(key, version, body, corr=1):
    frame = struct.pack(">hhi", key, version, corr) + string("hostile") + body
    return struct.pack(">i", len(frame)) + frame


def response(sock):
    size = struct.unpack(">i", recv_exact(sock, 4))[0]
    return recv_exact(sock, size)


def handshake(sock, mechanism, version=1):
    sock.sendall(request(SASL_HANDSHAKE, version, string(mechanism)))
    r = response(sock)
    return struct.unpack_from(">h", r, 4)[0]


def authenticate(sock, token):
    sock.sendall(request(SASL_AUTHENTICATE, 1, struct.pack(">i", len(token)) + token, corr=2))
    r = response(sock)
    error = struct.unpack_from(">h", r, 4)[0]
    return error


def closed(sock, timeout=5):
    """True once the broker has closed the connection (EOF or reset)."""
    sock.settimeout(timeout)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except (ConnectionError, socket.timeout):
        return not isinstance(sys.exc_info()[1], socket.timeout)


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def rss_kb(pid):
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class WellBehaved:
    def __init__(self, port):
        self.producer = Producer({"bootstrap.servers": "127.0.0.1:%d" % port, "security.protocol": "SASL_PLAINTEXT",
                                  "sasl.mechanisms": "PLAIN", "sasl.username": "alice",
                                  "sasl.password": "alice-secret", "linger.ms": 0})
        self.sent = self.acked = 0
        self.worst = 0.0
        self.errors = []
        self.stop = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop:
            t0 = time.time()
            self.producer.produce("steady", b"x" * 100, on_delivery=self.done)
            self.sent += 1
            self.producer.flush(30)
            self.worst = max(self.worst, time.time() - t0)
            time.sleep(0.02)

    def done(self, err, _m):
        if err:
            self.errors.append(err)
        else:
            self.acked += 1


def garbage(port):
    rnd = random.Random(17)
    for i in range(200):
        with connect(port) as s:
            mech = "PLAIN" if i % 2 else "SCRAM-SHA-512"
            check_quiet(handshake(s, mech) == 0, "handshake")
            token = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 2000)))
            check_quiet(authenticate(s, token) == FAILED, "garbage %s token answered SASL_AUTHENTICATION_FAILED" % mech)
            check_quiet(closed(s), "closed after the failure")
    check(True, "200 garbage SaslAuthenticate tokens (PLAIN and SCRAM) answered SASL_AUTHENTICATION_FAILED, then closed")
    for _ in range(50):
        with connect(port) as s:
            check_quiet(handshake(s, "SCRAM-SHA-512", version=0) == 0, "v0 handshake")
            junk = bytes(rnd.randrange(256) for _ in range(rnd.randrange(0, 500)))
            s.sendall(struct.pack(">i", len(junk)) + junk)
            check_quiet(closed(s), "garbage raw token closes the connection")
    check(True, "50 garbage raw (v0) SCRAM tokens: connection closed")
    with connect(port) as s:
        check(authenticate(s, b"\0alice\0alice-secret") == ILLEGAL_STATE and closed(s),
              "SaslAuthenticate without a handshake: ILLEGAL_SASL_STATE, closed")
    with connect(port) as s:
        check(handshake(s, "GSSAPI") == UNSUPPORTED_MECHANISM and closed(s),
              "an unknown mechanism: UNSUPPORTED_SASL_MECHANISM, closed")
    with connect(port) as s:
        s.sendall(request(PRODUCE, 3, b"\xff\xff" + struct.pack(">hii", 1, 1000, 0)))
        check(closed(s), "a Produce before authentication closes the connection")


def check_quiet(cond, what):
    if not cond:
        check(False, what)


def oversized(port):
    with connect(port) as s:
        handshake(s, "PLAIN")
        big = b"\0alice\0" + b"p" * 600000
        frame = struct.pack(">hhi", SASL_AUTHENTICATE, 1, 2) + string("hostile") + struct.pack(">i", len(big)) + big
        try:
            s.sendall(struct.pack(">i", len(frame)) + frame)
        except ConnectionError:
            pass
        check(closed(s), "a 600 KB SASL token (over sasl.server.max.receive.size) closes the connection")
    with connect(port) as s:
        s.sendall(struct.pack(">i", 100 << 20) + b"\x00" * 10)
        check(closed(s), "a 100 MB frame size before authentication closes the connection at once")


def many_failures(port, count=2000, threads=40):
    answered = []
    lock = threading.Lock()

    def worker(n):
        for i in range(n):
            try:
                with connect(port) as s:
                    handshake(s, "PLAIN")
                    e = authenticate(s, b"\0alice\0wrong-%d" % i)
                    with lock:
                        answered.append(e)
            except OSError as e:
                with lock:
                    answered.append(str(e))

    t0 = time.time()
    ts = [threading.Thread(target=worker, args=(count // threads,)) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(300)
    took = time.time() - t0
    ok = sum(1 for a in answered if a == FAILED)
    check(ok == count, "%d failed logins from %d connections at once each answered SASL_AUTHENTICATION_FAILED "
          "(%d of %d) in %.1f s" % (count, threads, ok, len(answered), took))
    per = took / (count / threads)
    check(per >= 0.09, "each failure waited connection.failed.authentication.delay.ms (%.0f ms per login)" % (per * 1000))


def stalls(port, count=300):
    socks = []
    for i in range(count):
        s = connect(port)
        if i % 3 == 0:
            s.sendall(struct.pack(">i", 40) + b"\x00\x11")  # a handshake that never finishes
        elif i % 3 == 1:
            handshake(s, "SCRAM-SHA-512")
            s.sendall(request(SASL_AUTHENTICATE, 1, struct.pack(">i", 30) + b"n,,n=alice,r=abc", corr=2)[:-5])
        socks.append(s)
    check(True, "%d clients stall mid-handshake" % count)
    return socks


def main():
    port = free_port()
    broker = StrataBroker(sys.argv[1])
    broker.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d" % (broker.port, port),
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-512",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
        "connections.max.idle.ms": "4000",
        "connection.failed.authentication.delay.ms": "100",
    })
    with broker:
        pid = broker.proc.pid
        good = WellBehaved(port)
        good.thread.start()
        time.sleep(1)
        rss0 = rss_kb(pid)
        garbage(port)
        oversized(port)
        socks = stalls(port)
        many_failures(port)
        rss_peak = rss_kb(pid)
        deadline = time.time() + 15
        open_left = len(socks)
        while open_left and time.time() < deadline:
            open_left = 0
            for s in socks:
                s.setblocking(False)
                try:
                    if s.recv(1) != b"":
                        open_left += 1
                except BlockingIOError:
                    open_left += 1
                except ConnectionError:
                    pass
            time.sleep(0.5)
        check(open_left == 0, "the stalled clients were closed by connections.max.idle.ms (%d left)" % open_left)
        for s in socks:
            s.close()
        good.stop = True
        good.thread.join(60)
        check(broker.proc.poll() is None, "the broker still runs")
        check(rss_peak - rss0 < 200 * 1024, "RSS grew %d MB during the attacks (bound 200 MB)" % ((rss_peak - rss0) // 1024))
        check(good.acked == good.sent and not good.errors and good.sent > 50,
              "the well-behaved SASL producer: %d sent, %d acknowledged, worst %.0f ms" %
              (good.sent, good.acked, good.worst * 1000))
        check(good.worst < 2.0, "its worst produce took %.0f ms (bound 2000 ms)" % (good.worst * 1000))
        lines = broker.log().count("\n")
        check(lines < 2000, "the broker log stayed small (%d lines after thousands of failures)" % lines)
    print("hostile SASL clients: all checks passed")


if __name__ == "__main__":
    main()
