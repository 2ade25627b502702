#!/usr/bin/python3
"""Topic churn against a real broker: clients produce (plain, idempotent,
transactional) and consume in a group on a set of topics while an admin client deletes,
re-creates, adds partitions to and alters the configs of those same topics in a tight
loop. Afterwards:

- the broker is alive and every producer's queue drained (every request was answered,
  with data or with Kafka's error);
- every topic that exists holds every record acknowledged since its last creation, at
  the offset its acknowledgement named, and nothing acknowledged before its last
  deletion; no record is there twice or was never sent; read_committed never shows a
  record of a transaction that did not commit;
- the same holds, record by record, after a SIGKILL and restart.

Bounded: CHURN_SECONDS of churn (STRATA_CHURN_SECONDS), then at most a minute of checks.
Usage: churn.py PATH/TO/strata"""
import os
import random
import sys
import threading
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions, NewTopic

from strata_broker import StrataBroker, check

TOPICS = ["churn-%d" % i for i in range(4)]
CHURN_SECONDS = float(os.environ.get("STRATA_CHURN_SECONDS", "20"))
MAX_PARTITIONS = 6


class Ledger:
    """What every producer sent and what the broker acknowledged, with times."""

    def __init__(self):
        self.lock = threading.Lock()
        self.sent = {}      # value -> (topic, send time)
        self.acked = {}     # value -> (topic, partition, offset, ack time)
        self.aborted = set()

    def on_send(self, topic, value):
        with self.lock:
            self.sent[value] = (topic, time.time())

    def on_ack(self, topic, partition, offset, value):
        with self.lock:
            self.acked[value] = (topic, partition, offset, time.time())


class Timeline:
    """When the admin loop deleted and (re)created each topic."""

    def __init__(self):
        self.lock = threading.Lock()
        self.delete_issued = {t: 0.0 for t in TOPICS}
        self.create_done = {t: 0.0 for t in TOPICS}
        self.actions = {"delete": 0, "create": 0, "partitions": 0, "config": 0, "errors": 0}


def producer_loop(bootstrap, name, conf, ledger, stop, fatal):
    def make():
        return Producer(dict({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all",
                              "message.timeout.ms": 8000, "topic.metadata.refresh.interval.ms": 1000},
                             **conf))

    p = make()
    n = 0

    def report(err, msg):
        if err is None:
            ledger.on_ack(msg.topic(), msg.partition(), msg.offset(), msg.value())
        elif err.fatal():
            fatal.append(name)

    rng = random.Random(name)
    while not stop.is_set():
        topic = rng.choice(TOPICS)
        value = ("%s|%s|%d|" % (topic, name, n)).encode() + b"v" * rng.randint(1, 300)
        n += 1
        ledger.on_send(topic, value)
        try:
            p.produce(topic, value=value, on_delivery=report)
        except BufferError:
            p.poll(0.1)
        except KafkaException:
            pass
        p.poll(0)
        if fatal and fatal[-1] == name:
            fatal.pop()
            p.flush(10)
            p = make()  # a fatal idempotence error: a new producer, as an application would
        time.sleep(0.001)
    left = p.flush(30)
    return left


def txn_loop(bootstrap, ledger, stop, outcome):
    rng = random.Random("txn")
    n = 0
    generation = 0

    def make():
        p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "churn-txn-%d" % generation,
                      "message.timeout.ms": 8000, "transaction.timeout.ms": 10000,
                      "topic.metadata.refresh.interval.ms": 1000})
        p.init_transactions(15)
        return p

    p = make()
    commits = aborts = 0
    while not stop.is_set():
        pending = {}

        def report(err, msg, pending=pending):
            if err is None:
                pending[msg.value()] = (msg.topic(), msg.partition(), msg.offset())

        try:
            p.begin_transaction()
            values = []
            for _ in range(3):
                topic = rng.choice(TOPICS)
                value = ("%s|txn|%d|" % (topic, n)).encode()
                n += 1
                ledger.on_send(topic, value)
                values.append(value)
                p.produce(topic, value=value, on_delivery=report)
            p.flush(10)
            if rng.random() < 0.3:
                p.abort_transaction(10)
                aborts += 1
                with ledger.lock:
                    ledger.aborted.update(values)
                continue
            p.commit_transaction(10)
            commits += 1
            for value, (topic, partition, offset) in pending.items():
                ledger.on_ack(topic, partition, offset, value)
        except KafkaException as e:
            error = e.args[0]
            # Whether it committed is unknown: its records count as neither.
            try:
                if error.txn_requires_abort():
                    p.abort_transaction(10)
                    aborts += 1
                    continue
            except KafkaException:
                pass
            generation += 1
            try:
                p = make()
            except KafkaException:
                time.sleep(0.2)
    outcome["commits"] = commits
    outcome["aborts"] = aborts


def consumer_loop(bootstrap, stop, outcome):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "churn-group",
                  "auto.offset.reset": "earliest", "topic.metadata.refresh.interval.ms": 1000,
                  "isolation.level": "read_committed"})
    c.subscribe(["^churn-.*"])
    consumed = 0
    while not stop.is_set():
        for m in c.consume(200, timeout=0.2):
            if not m.error():
                consumed += 1
    outcome["consumed"] = consumed
    # librdkafka 2.0's close() can wait long for a group subscribed by pattern to topics
    # that were deleted (client-side; the broker answered every request, which the
    # producers' drained queues check). Bounded here so the test stays bounded.
    closer = threading.Thread(target=c.close, daemon=True)
    closer.start()
    closer.join(20)
    outcome["closed"] = not closer.is_alive()


def admin_loop(bootstrap, timeline, stop):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    rng = random.Random("admin")
    counts = {t: 3 for t in TOPICS}
    while not stop.is_set():
        topic = rng.choice(TOPICS)
        action = rng.choice(["recreate", "recreate", "partitions", "config"])
        try:
            if action == "recreate":
                with timeline.lock:
                    timeline.delete_issued[topic] = time.time()
                admin.delete_topics([topic], operation_timeout=10)[topic].result(15)
                timeline.actions["delete"] += 1
                counts[topic] = rng.randint(1, 4)
                admin.create_topics([NewTopic(topic, counts[topic], 1)])[topic].result(15)
                with timeline.lock:
                    timeline.create_done[topic] = time.time()
                timeline.actions["create"] += 1
            elif action == "partitions" and counts[topic] < MAX_PARTITIONS:
                admin.create_partitions([NewPartitions(topic, counts[topic] + 1)])[topic].result(15)
                counts[topic] += 1
                timeline.actions["partitions"] += 1
            elif action == "config":
                r = ConfigResource("topic", topic,
                                   {"segment.bytes": str(rng.choice([65536, 1 << 20, 1 << 30])),
                                    "retention.ms": str(rng.choice([-1, 3600000]))})
                for f in admin.alter_configs([r]).values():
                    f.result(15)
                timeline.actions["config"] += 1
        except KafkaException:
            timeline.actions["errors"] += 1
            # A topic left deleted by a failed re-creation is created again next time.
            try:
                admin.create_topics([NewTopic(topic, counts[topic], 1)])[topic].result(15)
                with timeline.lock:
                    timeline.create_done[topic] = time.time()
            except KafkaException:
                pass
        time.sleep(0.05)


def read_all(bootstrap, admin):
    """{topic: {partition: [(offset, value)]}} of every churn topic, read_committed."""
    md = admin.list_topics(timeout=10)
    out = {}
    for topic in TOPICS:
        t = md.topics.get(topic)
        if t is None or t.error is not None:
            continue
        out[topic] = {}
        for p in t.partitions:
            c = Consumer({"bootstrap.servers": bootstrap, "group.id": "churn-reader",
                          "enable.auto.commit": False, "isolation.level": "read_committed"})
            low, high = c.get_watermark_offsets(TopicPartition(topic, p), timeout=10)
            c.assign([TopicPartition(topic, p, low)])
            got = []
            deadline = time.time() + 30
            empty = 0
            while time.time() < deadline and empty < 3:
                batch = [m for m in c.consume(1000, timeout=0.5) if not m.error()]
                got += [(m.offset(), m.value()) for m in batch]
                empty = 0 if batch else empty + 1
                if c.position([TopicPartition(topic, p)])[0].offset >= high:
                    break
            c.close()
            out[topic][p] = got
    return out


def verify(contents, ledger, timeline, label):
    problems = []
    seen = set()
    for topic, parts in contents.items():
        created = timeline.create_done[topic]
        deleted = timeline.delete_issued[topic]
        at = {}
        for p, records in parts.items():
            for offset, value in records:
                if value in seen:
                    problems.append("%s-%d@%d: %r is there twice" % (topic, p, offset, value[:30]))
                seen.add(value)
                at[value] = (p, offset)
                sent = ledger.sent.get(value)
                if sent is None or sent[0] != topic:
                    problems.append("%s-%d@%d: %r was never sent to it" % (topic, p, offset, value[:30]))
                if value in ledger.aborted:
                    problems.append("%s-%d@%d: %r of an aborted transaction" % (topic, p, offset, value[:30]))
        for value, (t, p, offset, ack_time) in ledger.acked.items():
            if t != topic:
                continue
            send_time = ledger.sent[value][1]
            if ack_time < deleted:
                if value in at:
                    problems.append("%s: %r acknowledged before the topic's last deletion is back"
                                    % (topic, value[:30]))
            elif send_time > created:
                if at.get(value) != (p, offset):
                    problems.append("%s: %r acknowledged at %d@%d is %s" % (topic, value[:30], p, offset,
                                                                           at.get(value, "missing")))
            elif value in at and at[value] != (p, offset):
                problems.append("%s: %r acknowledged at %d@%d sits at %s" % (topic, value[:30], p, offset,
                                                                          at[value]))
    check(not problems, "%s: every topic holds what was acknowledged since its creation and nothing "
          "else (%d problems: %s)" % (label, len(problems), problems[:4]))


def main():
    strata = sys.argv[1]
    overrides = {"auto.create.topics.enable": "false", "transaction.state.log.num.partitions": "4",
                 "offsets.topic.num.partitions": "4"}
    with StrataBroker(strata, overrides) as b:
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        for topic, f in admin.create_topics([NewTopic(t, 3, 1) for t in TOPICS]).items():
            f.result(20)
        ledger, timeline = Ledger(), Timeline()
        now = time.time()
        for t in TOPICS:
            timeline.create_done[t] = now
        stop = threading.Event()
        fatal = []
        left = {}
        txn_outcome, consumer_outcome = {}, {}

        def run_producer(name, conf):
            left[name] = producer_loop(b.bootstrap, name, conf, ledger, stop, fatal)

        threads = [
            threading.Thread(target=run_producer, args=("plain", {}), name="plain"),
            threading.Thread(target=run_producer, args=("idempotent", {"enable.idempotence": True}),
                             name="idempotent"),
            threading.Thread(target=txn_loop, args=(b.bootstrap, ledger, stop, txn_outcome), name="txn"),
            threading.Thread(target=consumer_loop, args=(b.bootstrap, stop, consumer_outcome),
                             name="consumer"),
            threading.Thread(target=admin_loop, args=(b.bootstrap, timeline, stop), name="admin"),
        ]
        for t in threads:
            t.start()
        time.sleep(CHURN_SECONDS)
        stop.set()
        deadline = time.time() + 90
        for t in threads:
            t.join(max(0.1, deadline - time.time()))
        check(not any(t.is_alive() for t in threads), "every client finished within its bounds (%s)"
              % [t.name for t in threads if t.is_alive()])
        check(b.proc.poll() is None, "the broker survived %.0f s of churn" % CHURN_SECONDS)
        print("churn: admin %s; acknowledged %d of %d sent; transactions %s; consumed %s"
              % (timeline.actions, len(ledger.acked), len(ledger.sent), txn_outcome, consumer_outcome))
        check(all(v == 0 for v in left.values()), "every produce request was answered (queues: %s)" % left)
        check(timeline.actions["delete"] >= 3 and timeline.actions["create"] >= 3,
              "the admin loop deleted and re-created topics (%s)" % timeline.actions)
        # Every topic exists for the checks (a re-creation that failed at the very end).
        md = admin.list_topics(timeout=10)
        for t in TOPICS:
            if t not in md.topics:
                admin.create_topics([NewTopic(t, 1, 1)])[t].result(15)
                timeline.create_done[t] = time.time()
        before = read_all(b.bootstrap, admin)
        check(sum(len(r) for parts in before.values() for r in parts.values()) > 0,
              "the topics hold records after the churn")
        verify(before, ledger, timeline, "after the churn")
        b.restart(kill=True)
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        after = read_all(b.bootstrap, admin)
        # A transaction left open by the churn may end by timeout after the restart, so
        # read_committed may see more afterwards, never less.
        kept = {(t, p, r) for t, parts in after.items() for p, records in parts.items() for r in records}
        lost = [(t, p, r) for t, parts in before.items() for p, records in parts.items()
                for r in records if (t, p, r) not in kept]
        check(not lost, "after SIGKILL and restart every record read before is still there at "
              "its offset (%d missing: %s)" % (len(lost), lost[:3]))
        verify(after, ledger, timeline, "after the restart")
        check(b.proc.poll() is None, "the broker is still running")
    print("churn: ok")


if __name__ == "__main__":
    main()
