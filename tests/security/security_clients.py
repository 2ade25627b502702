#!/usr/bin/python3
"""Issue 17: TLS and SASL through real clients against a real broker.

One broker with four listeners (PLAINTEXT, SSL with client certificates required,
SASL_PLAINTEXT, SASL_SSL; PLAIN users in the jaas config, SCRAM users made with
`strata user`). Then:
- kcat, confluent-kafka, kafka-python and kafkajs each produce and read back over SSL,
  SASL_PLAINTEXT with PLAIN, SASL_PLAINTEXT with SCRAM-SHA-512 and SASL_SSL (SCRAM-SHA-256);
- a wrong password, an unknown user, an untrusted client certificate and a client
  speaking plaintext to the TLS port each fail with the client's own error, while a
  producer on SASL_SSL keeps being served throughout;
- `strata user --describe` shows the credentials; one deleted no longer logs in;
- the broker's certificate is replaced on disk and new connections get it (reload);
- the broker is restarted and the SCRAM users still log in (credentials are durable).
Usage: security_clients.py PATH/TO/strata"""
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Consumer, KafkaError, Producer  # noqa: E402
from kafka import KafkaConsumer, KafkaProducer, TopicPartition  # noqa: E402
import kafka.errors  # noqa: E402

from certs import Certs  # noqa: E402
from strata_broker import StrataBroker, check, free_port  # noqa: E402

JS = os.path.join(HERE, "..", "compat", "js")
PLAIN_JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required '
              'username="admin" password="admin-secret" user_admin="admin-secret" '
              'user_alice="alice-secret";')


class Setup:
    """Ports, certificates and each mode's client settings."""

    def __init__(self, strata, work):
        self.strata = strata
        self.certs = Certs(os.path.join(work, "certs"))
        self.ports = {name: free_port() for name in ("SSL", "SASL_PLAINTEXT", "SASL_SSL")}

    def overrides(self, plaintext_port):
        c = self.certs
        return {
            "listeners": "PLAINTEXT://127.0.0.1:%d,SSL://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d,"
                         "SASL_SSL://127.0.0.1:%d" % (plaintext_port, self.ports["SSL"],
                                                       self.ports["SASL_PLAINTEXT"], self.ports["SASL_SSL"]),
            "ssl.keystore.type": "PEM",
            "ssl.keystore.location": c.server_pem,
            "ssl.truststore.type": "PEM",
            "ssl.truststore.location": c.ca,
            "listener.name.ssl.ssl.client.auth": "required",
            "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512",
            "listener.name.sasl_plaintext.plain.sasl.jaas.config": PLAIN_JAAS,
            "listener.name.sasl_ssl.plain.sasl.jaas.config": PLAIN_JAAS,
            "offsets.topic.num.partitions": "1",
        }

    # A mode: (listener, mechanism or None, user, password, client cert or None).
    def modes(self):
        return {
            "ssl": ("SSL", None, None, None, (self.certs.client_cert, self.certs.client_key)),
            "plain": ("SASL_PLAINTEXT", "PLAIN", "alice", "alice-secret", None),
            "scram512": ("SASL_PLAINTEXT", "SCRAM-SHA-512", "bob", "bob-secret", None),
            "sasl_ssl": ("SASL_SSL", "SCRAM-SHA-256", "bob", "bob-secret", None),
        }

    def bootstrap(self, listener):
        return "127.0.0.1:%d" % self.ports[listener]


def librdkafka_conf(setup, listener, mech, user, password, cert, kcat=False):
    conf = {"bootstrap.servers": setup.bootstrap(listener), "security.protocol": listener}
    if "SSL" in listener:
        conf["ssl.ca.location"] = setup.certs.ca
        if cert:
            conf["ssl.certificate.location"], conf["ssl.key.location"] = cert
    if mech:
        conf.update({"sasl.mechanisms": mech, "sasl.username": user, "sasl.password": password})
    return conf


# ---- one client's round trip in one mode ------------------------------------------------

def roundtrip_kcat(setup, topic, mode, n=20):
    conf = librdkafka_conf(setup, *mode)
    args = ["kcat", "-b", conf.pop("bootstrap.servers")]
    for k, v in conf.items():
        args += ["-X", "%s=%s" % (k, v)]
    values = ["kcat-%d" % i for i in range(n)]
    p = subprocess.run(args + ["-P", "-t", topic, "-p", "0"], input="\n".join(values) + "\n",
                       capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        return None, p.stderr
    c = subprocess.run(args + ["-C", "-t", topic, "-p", "0", "-o", "beginning", "-e", "-c", str(n)],
                       capture_output=True, text=True, timeout=60)
    if c.returncode != 0:
        return None, c.stderr
    return c.stdout.split(), ""


def roundtrip_confluent(setup, topic, mode, n=20):
    conf = librdkafka_conf(setup, *mode)
    errors = []
    p = Producer(dict(conf, **{"error_cb": errors.append, "message.timeout.ms": 15000 if n > 1 else 5000}))
    values = ["confluent-%d" % i for i in range(n)]
    failed = []
    for v in values:
        p.produce(topic, v.encode(), partition=0, on_delivery=lambda e, m: e and failed.append(e))
    left = p.flush(20)
    if left or failed or any(e.code() == KafkaError._AUTHENTICATION for e in errors):
        return None, "; ".join(str(e) for e in errors + failed) or "undelivered"
    c = Consumer(dict(conf, **{"group.id": "g-" + topic, "auto.offset.reset": "earliest",
                               "error_cb": errors.append}))
    c.subscribe([topic])
    got = []
    deadline = time.time() + 30
    while len(got) < n and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value().decode())
    c.close()
    return got, "; ".join(str(e) for e in errors)


def kafka_python_conf(setup, listener, mech, user, password, cert):
    conf = {"bootstrap_servers": setup.bootstrap(listener), "security_protocol": listener,
            "request_timeout_ms": 15000, "api_version_auto_timeout_ms": 10000}
    if "SSL" in listener:
        conf["ssl_cafile"] = setup.certs.ca
        conf["ssl_check_hostname"] = True
        if cert:
            conf["ssl_certfile"], conf["ssl_keyfile"] = cert
    if mech:
        conf.update({"sasl_mechanism": mech, "sasl_plain_username": user, "sasl_plain_password": password})
    return conf


def roundtrip_kafka_python(setup, topic, mode, n=20):
    conf = kafka_python_conf(setup, *mode)
    try:
        p = KafkaProducer(**conf)
        values = ["kafka-python-%d" % i for i in range(n)]
        for v in values:
            p.send(topic, v.encode(), partition=0).get(timeout=20)
        p.close()
        c = KafkaConsumer(consumer_timeout_ms=8000, **conf)
        c.assign([TopicPartition(topic, 0)])
        c.seek_to_beginning()
        got = [m.value.decode() for m in c]
        c.close()
        return got, ""
    except (kafka.errors.KafkaError, OSError) as e:  # OSError: ssl.SSLError and kin
        return None, "%s: %s" % (type(e).__name__, e)


def kafkajs_conf(setup, listener, mech, user, password, cert):
    conf = {"broker": setup.bootstrap(listener), "ssl": None, "sasl": None}
    if "SSL" in listener:
        conf["ssl"] = {"ca": setup.certs.ca}
        if cert:
            conf["ssl"]["cert"], conf["ssl"]["key"] = cert
    if mech:
        conf["sasl"] = {"mechanism": mech.lower(), "username": user, "password": password}
    return conf


def roundtrip_kafkajs(setup, topic, mode, n=20):
    out = subprocess.run(["node", os.path.join(JS, "secure_client.js"), json.dumps(kafkajs_conf(setup, *mode)),
                          "roundtrip", topic, str(n)], capture_output=True, text=True, timeout=120, cwd=JS)
    lines = out.stdout.strip().splitlines()
    if not lines:
        return None, "kafkajs printed nothing: " + out.stderr[-2000:]
    r = json.loads(lines[-1])
    return (r["values"], "") if r["ok"] else (None, "%s: %s" % (r["error"], r["message"]))


CLIENTS = {"kcat": roundtrip_kcat, "confluent": roundtrip_confluent,
           "kafka-python": roundtrip_kafka_python, "kafkajs": roundtrip_kafkajs}
PREFIX = {"kcat": "kcat", "confluent": "confluent", "kafka-python": "kafka-python", "kafkajs": "kafkajs"}


def strata_user(setup, plaintext, *args):
    return subprocess.run([setup.strata, "user", "--bootstrap-server", plaintext, *args],
                          capture_output=True, text=True, timeout=60)


# ---- the checks ---------------------------------------------------------------------------

def check_roundtrips(setup):
    for mode_name, mode in setup.modes().items():
        for client, fn in CLIENTS.items():
            topic = "t-%s-%s" % (mode_name, client.replace("-", ""))
            got, err = fn(setup, topic, mode)
            expected = ["%s-%d" % (PREFIX[client], i) for i in range(20)]
            check(got == expected, "%s over %s: produced and read back 20 records%s" %
                  (client, mode_name, "" if got == expected else " (got %r, %s)" % (got, err)))


def check_failures(setup):
    """Each bad login fails with the client's own error; returns nothing, checks all."""
    modes = setup.modes()
    wrong = dict(plain=("SASL_PLAINTEXT", "PLAIN", "alice", "nope", None),
                 unknown=("SASL_PLAINTEXT", "SCRAM-SHA-512", "nobody", "x", None),
                 scram_wrong=("SASL_SSL", "SCRAM-SHA-256", "bob", "nope", None),
                 rogue_cert=("SSL", None, None, None, (setup.certs.rogue_cert, setup.certs.rogue_key)))
    expect = {
        # The texts each client shows for the broker's answer (or, for kafka-python,
        # which reads SASL v0 tokens, for the connection the broker closes).
        "kcat": {"plain": "Authentication failed", "unknown": "Authentication failed",
                 "scram_wrong": "Authentication failed", "rogue_cert": "unknown ca"},
        "confluent": {"plain": "Invalid username or password", "unknown": "invalid credentials",
                      "scram_wrong": "invalid credentials", "rogue_cert": "unknown ca"},
        "kafka-python": {"plain": "NoBrokersAvailable", "unknown": "NoBrokersAvailable",
                         "scram_wrong": "NoBrokersAvailable", "rogue_cert": "SSL"},
        "kafkajs": {"plain": "KafkaJSSASLAuthenticationError", "unknown": "KafkaJSSASLAuthenticationError",
                    "scram_wrong": "KafkaJSSASLAuthenticationError", "rogue_cert": "unknown ca"},
    }
    for case, mode in wrong.items():
        for client, fn in CLIENTS.items():
            t0 = time.time()
            got, err = short_failure(fn, setup, "bad-" + case, mode)
            check(got is None and expect[client][case] in err,
                  "%s with %s fails cleanly in %.1f s: %s" % (client, case, time.time() - t0, err[:160]))
    # Plaintext spoken to the TLS ports: the broker ends the connection; the client errs.
    for listener in ("SSL", "SASL_SSL"):
        port = setup.ports[listener]
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(b"\x00\x00\x00\x0b\x00\x12\x00\x00\x00\x00\x00\x01\x00\x01x")  # ApiVersions v0
            s.settimeout(5)
            try:
                data = s.recv(100)
            except ConnectionError:
                data = b""
            check(not data.startswith(b"\x00\x00\x00"),
                  "plaintext ApiVersions to the %s port gets no Kafka answer (closed or a TLS alert)" % listener)
        got, err = roundtrip_confluent_plaintext_to(setup, port)
        check(got is None, "confluent-kafka speaking plaintext to %s fails: %s" % (listener, err[:160]))


def roundtrip_confluent_plaintext_to(setup, port):
    errors, delivered = [], []
    p = Producer({"bootstrap.servers": "127.0.0.1:%d" % port, "error_cb": errors.append,
                  "message.timeout.ms": 3000, "socket.timeout.ms": 3000})
    p.produce("never", b"x", on_delivery=lambda e, m: (errors if e else delivered).append(e or m))
    p.flush(6)
    return (None, "; ".join(str(e) for e in errors) or "undelivered") if not delivered else ([], "")


def short_failure(fn, setup, topic, mode):
    """A failing login must not hang: every client is bounded (kafkajs retries twice)."""
    return fn(setup, topic, mode, n=1)


class Background:
    """A confluent-kafka producer on SASL_SSL sending all along: other clients' failures
    must not disturb it."""

    def __init__(self, setup):
        conf = librdkafka_conf(setup, *setup.modes()["sasl_ssl"])
        self.producer = Producer(dict(conf, **{"linger.ms": 5}))
        self.sent = self.acked = 0
        self.errors = []
        self.stop_flag = False
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop_flag:
            self.producer.produce("background", b"v%d" % self.sent, on_delivery=self.done)
            self.sent += 1
            self.producer.poll(0.01)
        self.producer.flush(20)

    def done(self, err, _msg):
        if err:
            self.errors.append(err)
        else:
            self.acked += 1

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop_flag = True
        self.thread.join(60)
        return False


def check_tls_reload(setup):
    before = peer_serial(setup.ports["SASL_SSL"], setup.certs.ca)
    serial = setup.certs.reissue_server()
    deadline = time.time() + 10
    after = before
    while after == before and time.time() < deadline:
        time.sleep(0.3)
        after = peer_serial(setup.ports["SASL_SSL"], setup.certs.ca)
    check(after == serial and before != serial,
          "the broker serves its new certificate (serial %s -> %s) without a restart" % (before, after))


def peer_serial(port, ca):
    ctx = ssl.create_default_context(cafile=ca)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as s:
            return int(s.getpeercert()["serialNumber"], 16)


def main():
    work = tempfile.mkdtemp(prefix="strata-security-")
    setup = Setup(sys.argv[1], work)
    broker = StrataBroker(setup.strata)
    broker.overrides.update(setup.overrides(broker.port))
    with broker:
        add = strata_user(setup, broker.bootstrap, "--alter", "--add-config",
                          "SCRAM-SHA-256=[iterations=8192,password=bob-secret],SCRAM-SHA-512=[password=bob-secret]",
                          "--entity-type", "users", "--entity-name", "bob")
        check(add.returncode == 0 and "Completed updating config for user bob." in add.stdout,
              "strata user --alter adds bob's SCRAM credentials: %s%s" % (add.stdout.strip(), add.stderr.strip()))
        desc = strata_user(setup, broker.bootstrap, "--describe", "--entity-name", "bob")
        check("SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-256=iterations=8192, "
              "SCRAM-SHA-512=iterations=4096" in desc.stdout, "strata user --describe: %s" % desc.stdout.strip())
        check_roundtrips(setup)
        with Background(setup) as bg:
            check_failures(setup)
            time.sleep(0.5)
        check(bg.acked == bg.sent and not bg.errors and bg.sent > 100,
              "a SASL_SSL producer was served throughout the failures (%d sent, %d acked, errors %s)" %
              (bg.sent, bg.acked, bg.errors[:3]))
        check_tls_reload(setup)
        broker.restart()
        got, err = roundtrip_confluent(setup, "after-restart", setup.modes()["scram512"])
        check(got == ["confluent-%d" % i for i in range(20)], "SCRAM users log in after a restart %s" % err)
        rm = strata_user(setup, broker.bootstrap, "--alter", "--delete-config", "SCRAM-SHA-512", "--entity-name", "bob")
        check(rm.returncode == 0, "strata user --delete-config SCRAM-SHA-512: %s" % rm.stdout.strip())
        got, err = roundtrip_confluent(setup, "after-delete", setup.modes()["scram512"], n=1)
        check(got is None, "bob no longer logs in with SCRAM-SHA-512: %s" % err[:120])
        got, err = roundtrip_confluent(setup, "after-delete-256", setup.modes()["sasl_ssl"], n=1)
        check(got == ["confluent-0"], "bob still logs in with SCRAM-SHA-256 %s" % err)
    print("security clients: all checks passed")


if __name__ == "__main__":
    main()
