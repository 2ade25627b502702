#!/usr/bin/python3
"""Issue 17, KIP-368: connections.max.reauth.ms=2000 on a SASL listener. kafkajs, which
re-authenticates before the announced session lifetime, produces for 8 s on one
connection without the broker closing it; librdkafka 2.0.2 (confluent-kafka 1.7), which
does not re-authenticate, has its connection closed once its session has expired,
reconnects, logs in again and still delivers every record.
Usage: reauth.py PATH/TO/strata"""
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Producer  # noqa: E402

from strata_broker import StrataBroker, check, free_port  # noqa: E402

JS = os.path.join(HERE, "..", "compat", "js")
JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" '
        'password="admin-secret" user_alice="alice-secret";')
EXPIRED = "session expired"


def main():
    port = free_port()
    broker = StrataBroker(sys.argv[1])
    broker.overrides.update({
        "listeners": "PLAINTEXT://127.0.0.1:%d,SASL_PLAINTEXT://127.0.0.1:%d" % (broker.port, port),
        "sasl.enabled.mechanisms": "PLAIN",
        "listener.name.sasl_plaintext.plain.sasl.jaas.config": JAAS,
        "connections.max.reauth.ms": "2000",
    })
    with broker:
        out = subprocess.run(["node", os.path.join(JS, "reauth_producer.js"), "127.0.0.1:%d" % port, "8"],
                             capture_output=True, text=True, timeout=60, cwd=JS)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        closed = broker.log().count(EXPIRED)
        check("sent" in r and r["sent"] > 30 and closed == 0,
              "kafkajs re-authenticates: %s records in 8 s, %d connections closed for expiry" % (r, closed))
        errors, acked = [], []
        p = Producer({"bootstrap.servers": "127.0.0.1:%d" % port, "security.protocol": "SASL_PLAINTEXT",
                      "sasl.mechanisms": "PLAIN", "sasl.username": "alice", "sasl.password": "alice-secret",
                      "message.timeout.ms": 20000})
        end, sent = time.time() + 7, 0
        while time.time() < end:
            p.produce("reauth-rd", b"v%d" % sent, on_delivery=lambda e, m: (errors if e else acked).append(e or m))
            sent += 1
            p.poll(0.1)
        p.flush(20)
        closed = broker.log().count(EXPIRED)
        check(closed >= 1 and len(acked) == sent and not errors,
              "librdkafka 2.0.2 (no KIP-368): %d connection(s) closed after the session expired, all %d records "
              "delivered through its reconnects (errors %s)" % (closed, sent, errors[:2]))
    print("re-authentication: all checks passed")


if __name__ == "__main__":
    main()
