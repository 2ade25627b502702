#!/usr/bin/python3
"""Idempotent producing with confluent-kafka-python (librdkafka) and kafkajs against a
real Strata broker, through a proxy that loses every 10th Produce response (drop_proxy.py): the
producer retries batches the broker already appended. With enable.idempotence the log
holds every record exactly once, in order; without it (the control run) the same
retries duplicate records, which proves the retries really happened.
Usage: idempotence.py PATH/TO/strata"""
import json
import os
import subprocess
import sys

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from drop_proxy import DropProxy
from strata_broker import StrataBroker, check, free_port

HERE = os.path.dirname(os.path.abspath(__file__))

PARTITIONS = 3
COUNT = 5000


def produce(bootstrap, topic, idempotent):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": idempotent, "acks": "all",
                  "linger.ms": 2, "batch.num.messages": 50, "retry.backoff.ms": 20,
                  "message.send.max.retries": 1000, "reconnect.backoff.ms": 10,
                  "reconnect.backoff.max.ms": 100})
    failed = []
    for i in range(COUNT):
        p.produce(topic, value=b"%d" % i, partition=i % PARTITIONS,
                  on_delivery=lambda err, msg: failed.append(err) if err else None)
        if i % 500 == 0:
            p.poll(0)
    left = p.flush(120)
    return left, failed


def read_back(bootstrap, topic):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "check", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    got = {p: [] for p in range(PARTITIONS)}
    idle = 0
    while idle < 20:
        m = c.poll(0.2)
        if m is None or m.error():
            idle += 1
            continue
        idle = 0
        got[m.partition()].append(int(m.value()))
    c.close()
    return got


def main():
    proxy_port = free_port()
    overrides = {"advertised.listeners": "PLAINTEXT://127.0.0.1:%d" % proxy_port}
    with StrataBroker(sys.argv[1], overrides) as broker:
        proxy = DropProxy(proxy_port, broker.port, drop_every=10)
        via = "127.0.0.1:%d" % proxy_port
        admin = AdminClient({"bootstrap.servers": via})
        for t in ("idem", "plain"):
            admin.create_topics([NewTopic(t, PARTITIONS, 1)])[t].result(20)
        want = {p: [i for i in range(COUNT) if i % PARTITIONS == p] for p in range(PARTITIONS)}

        left, failed = produce(via, "plain", False)
        plain = read_back(via, "plain")
        dups = sum(len(plain[p]) - len(set(plain[p])) for p in plain)
        check(proxy.dropped > 0 and dups > 0,
              "control: without idempotence the %d lost responses duplicated %d records"
              % (proxy.dropped, dups))

        before = proxy.dropped
        left, failed = produce(via, "idem", True)
        check(left == 0 and not failed, "idempotent producer: every record acknowledged (%s)" % failed[:3])
        check(proxy.dropped > before, "%d Produce responses were lost on the way" % (proxy.dropped - before))
        idem = read_back(via, "idem")
        check(idem == want, "idempotent producer: each partition holds every record exactly once, "
                            "in order (%s records)" % [len(idem[p]) for p in idem])

        admin.create_topics([NewTopic("idem-js", PARTITIONS, 1)])["idem-js"].result(20)
        before = proxy.dropped
        out = subprocess.run(["node", os.path.join(HERE, "js", "idempotent_producer.js"), via,
                              "idem-js", str(COUNT), str(PARTITIONS)], capture_output=True,
                             text=True, timeout=300, cwd=os.path.join(HERE, "js"))
        check(out.returncode == 0 and json.loads(out.stdout.strip().splitlines()[-1])["ok"],
              "kafkajs idempotent producer: every send acknowledged %s" % out.stderr[-2000:])
        check(proxy.dropped > before, "%d Produce responses were lost on the way" % (proxy.dropped - before))
        js = read_back(via, "idem-js")
        check(js == want, "kafkajs idempotent producer: every record exactly once, in order (%s)"
              % [len(js[p]) for p in js])
        proxy.close()


if __name__ == "__main__":
    main()
