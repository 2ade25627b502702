"""What the replication tests share: each partition's leader, replicas and ISR as a
client sees them, a replica's segment bytes on disk, an acks=all writer and the checks of
what it wrote."""
import glob
import json
import os
import subprocess
import tempfile
import threading
import time
import uuid

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
from strata_broker import check


def partitions(admin, topic):
    """{partition: (leader, sorted replicas, sorted isr)}, or {} while unknown."""
    try:
        md = admin.list_topics(topic, timeout=5)
    except KafkaException:
        return {}
    t = md.topics.get(topic)
    if t is None or t.error is not None:
        return {}
    return {p.id: (p.leader, sorted(p.replicas), sorted(p.isrs)) for p in t.partitions.values()}


def segment_bytes(broker, topic, p):
    """The bytes of every .log segment of `topic`-`p` on `broker`, in offset order."""
    out = b""
    for path in sorted(glob.glob(os.path.join(broker.data, "%s-%d" % (topic, p), "*.log"))):
        with open(path, "rb") as f:
            out += f.read()
    return out


def create_placed(admin, topics, timeout=20):
    """Creates `topics` (NewTopics with replica assignments), retrying while the broker
    the admin client asks does not list every assigned broker yet (its view lags the
    first broker's by a moment after a start); a topic an earlier attempt made counts."""
    deadline = time.time() + timeout
    for t in topics:
        while True:
            try:
                admin.create_topics([t])[t.topic].result()
                break
            except KafkaException as e:
                if e.args[0].code() == KafkaError.TOPIC_ALREADY_EXISTS:
                    break
                check(time.time() < deadline, "%s created on its replicas: %s" % (t.topic, e))
                time.sleep(0.3)


def produce_acked(bootstrap, topic, values, partition=0):
    """`values` to one partition by an idempotent acks=all producer; checks that every one
    is acknowledged within 30 s."""
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all"})
    for v in values:
        p.produce(topic, value=v.encode(), partition=partition)
    check(p.flush(30) == 0, "%d records to %s-%d acknowledged" % (len(values), topic, partition))


def all_in_sync(admin, topic, parts, timeout=60):
    """Waits until every partition of `topic` has a leader and all 3 replicas in its ISR."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = partitions(admin, topic)
        if len(last) == parts and all(l >= 0 and len(i) == 3 for l, _, i in last.values()):
            return True
        time.sleep(0.2)
    raise AssertionError("not all back in sync: %s" % last)


def preferred_leaders(admin, topic):
    """{partition: its first replica}: the preferred leader, as ElectLeaders elects it."""
    md = admin.list_topics(topic, timeout=5)
    return {p.id: p.replicas[0] for p in md.topics[topic].partitions.values()}


class JsWriter:
    """The kafkajs writer (tests/compat/js/acks_all_writer.js): idempotent, acks=all,
    "p:seq:js" values, until finish()."""

    def __init__(self, bootstrap, topic, parts):
        self.stop_file = tempfile.mktemp(prefix="strata-js-stop-")
        js = os.path.join(os.path.dirname(__file__), "..", "compat", "js")
        self.proc = subprocess.Popen(["node", os.path.join(js, "acks_all_writer.js"), bootstrap, topic, str(parts),
                                      self.stop_file], cwd=js, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True)
        self.acked = []

    def finish(self):
        open(self.stop_file, "w").close()
        out, err = self.proc.communicate(timeout=150)
        os.unlink(self.stop_file)
        check(self.proc.returncode == 0, "the kafkajs writer ended cleanly (%s)" % err[-2000:])
        result = json.loads(out.strip().splitlines()[-1])
        self.acked = [(p, v.encode()) for p, v in result["acked"]]
        check(result["failed"] == 0, "no kafkajs send failed (%d acked; %d failed: %s)"
              % (len(self.acked), result["failed"], result["error"]))


class Writer(threading.Thread):
    """An idempotent acks=all confluent-kafka producer writing "p:seq" to each partition of
    `topic` in turn until stopped; what was acknowledged, as (partition, value)."""

    def __init__(self, bootstrap, topic, parts):
        super().__init__(daemon=True)
        self.topic, self.parts = topic, parts
        self.p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                           "linger.ms": 2, "message.timeout.ms": 120000})
        self.acked, self.failed = [], []
        self.sent = 0
        self.stopping = threading.Event()

    def done(self, err, msg):
        if err is None:
            self.acked.append((msg.partition(), msg.value()))
        else:
            self.failed.append((msg.partition(), msg.value(), err))

    def run(self):
        seq = 0
        while not self.stopping.is_set():
            for part in range(self.parts):
                self.p.produce(self.topic, value=b"%d:%d" % (part, seq), partition=part, callback=self.done)
            seq += 1
            self.sent += self.parts
            self.p.poll(0.002)
        self.p.flush(120)

    def finish(self):
        self.stopping.set()
        self.join(150)
        by_part = {}
        for p, _, _ in self.failed:
            by_part[p] = by_part.get(p, 0) + 1
        check(not self.failed, "no produce failed (%d acked; %d failed, by partition %s; first %s)"
              % (len(self.acked), len(self.failed), by_part, self.failed[:3]))


def check_read_back(bootstrap, topic, parts, acked):
    """Every acknowledged (partition, value) is consumed, none twice, each partition's
    "p:seq[:writer]" values of each writer in the order they were sent."""
    cons = Consumer({"bootstrap.servers": bootstrap, "group.id": "g-" + uuid.uuid4().hex,
                     "auto.offset.reset": "earliest", "enable.auto.commit": False})
    cons.assign([TopicPartition(topic, p, 0) for p in range(parts)])
    got = {p: [] for p in range(parts)}
    deadline = time.time() + 60
    total = 0
    wanted = set(acked)
    while time.time() < deadline and total < len(wanted):
        m = cons.poll(0.3)
        if m is not None and m.error() is None:
            got[m.partition()].append(m.value())
            total += (m.partition(), m.value()) in wanted
    time.sleep(1)
    while True:  # anything beyond: duplicates would show here
        m = cons.poll(1.0)
        if m is None:
            break
        if m.error() is None:
            got[m.partition()].append(m.value())
    cons.close()
    read = [(p, v) for p, vs in got.items() for v in vs]
    missing = set(acked) - set(read)
    check(not missing, "every acknowledged record is read back (%d; missing %d: %s)"
          % (len(acked), len(missing), sorted(missing)[:12]))
    check(len(read) == len(set(read)), "none twice (%d read, %d distinct)" % (len(read), len(set(read))))
    by_writer = {}
    for p, vs in got.items():
        for v in vs:
            fields = v.split(b":")
            by_writer.setdefault((p, fields[2] if len(fields) > 2 else b""), []).append(int(fields[1]))
    ordered = all(seqs == sorted(seqs) for seqs in by_writer.values())
    check(ordered, "each partition's records are in the order they were sent")


def check_identical(brokers, topic, parts, timeout=30):
    """Every replica of every partition has the same segment bytes (waiting for the
    followers' last fetch)."""
    deadline = time.time() + timeout
    same = False
    while time.time() < deadline and not same:
        same = all(len({segment_bytes(b, topic, p) for b in brokers}) == 1 for p in range(parts))
        time.sleep(0.3)
    check(same, "the replicas of every partition are identical")


def read_all(bootstrap, topic, isolation, expect, timeout=30):
    """The values (decoded) a new consumer group reads from `topic` with `isolation`: until
    `expect` and 1.5 s without more, or `timeout`."""
    cons = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader-%s-%f" % (isolation, time.time()),
                     "auto.offset.reset": "earliest", "enable.auto.commit": False,
                     "isolation.level": isolation})
    cons.subscribe([topic])
    got = []
    deadline = time.time() + timeout
    idle_since = None
    while time.time() < deadline:
        m = cons.poll(0.2)
        if m is None:
            if len(got) >= expect:
                idle_since = idle_since or time.time()
                if time.time() - idle_since > 1.5:
                    break
            continue
        idle_since = None
        if m.error():
            continue
        got.append(m.value().decode())
    cons.close()
    return got
