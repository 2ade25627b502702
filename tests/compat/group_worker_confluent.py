#!/usr/bin/python3
"""One consumer-group member on confluent-kafka-python (librdkafka), for group tests.
Usage: group_worker_confluent.py BOOTSTRAP GROUP TOPIC EVENTS_FILE [INSTANCE_ID]
The assignor is librdkafka's default (eager) unless STRATA_ASSIGNOR names another, e.g.
cooperative-sticky (incremental rebalancing).
Appends JSON lines to EVENTS_FILE: {"ev": "assign"|"revoke", "parts": [...], "t": ...},
{"ev": "rec", "p": P, "o": O, "v": V} for each record (written, then committed
synchronously: commit after processing; {"ev": "commit_failed", ...} if refused), and {"ev": "closed"} after an orderly close on
SIGTERM (which leaves the group, unless the member is static)."""
import json
import os
import signal
import sys
import time

from confluent_kafka import Consumer, KafkaException

bootstrap, group, topic, events_path = sys.argv[1:5]
instance = sys.argv[5] if len(sys.argv) > 5 else None
events = open(events_path, "a")
stop = False


def emit(**kw):
    kw["t"] = time.time()
    events.write(json.dumps(kw) + "\n")
    events.flush()


def on_term(*_):
    global stop
    stop = True


signal.signal(signal.SIGTERM, on_term)
conf = {"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
        "auto.offset.reset": "earliest", "session.timeout.ms": 6000,
        "heartbeat.interval.ms": 500, "client.id": "worker-" + events_path.rsplit("/", 1)[-1]}
if os.environ.get("STRATA_ASSIGNOR"):
    conf["partition.assignment.strategy"] = os.environ["STRATA_ASSIGNOR"]
if instance:
    conf["group.instance.id"] = instance
c = Consumer(conf)
c.subscribe([topic],
            on_assign=lambda c_, ps: emit(ev="assign", parts=sorted(p.partition for p in ps)),
            on_revoke=lambda c_, ps: emit(ev="revoke", parts=sorted(p.partition for p in ps)))
while not stop:
    m = c.poll(0.2)
    if m is None or m.error():
        continue
    emit(ev="rec", p=m.partition(), o=m.offset(), v=m.value().decode())
    try:
        c.commit(message=m, asynchronous=False)
    except KafkaException as e:
        # A commit racing a rebalance is refused (ILLEGAL_GENERATION, REBALANCE_IN_PROGRESS)
        # as Kafka refuses it; the record stays uncommitted and may be delivered again.
        emit(ev="commit_failed", p=m.partition(), o=m.offset(), error=str(e))
c.close()
emit(ev="closed")
