"""Issue 16, a first fault run: the idempotent queue workload on 3 brokers and 1 etcd, each
in its own network namespace, while the leader of partition 0 is isolated entirely (its
link cut) and then healed; the history goes through the checker.

- topic "queue": 3 partitions, replication factor 3, min.insync.replicas 2;
- a confluent-kafka producer (idempotent, acks=all) sends unique values the whole run; a
  consumer in group "q" polls and commits after each poll (history: docs/formats/history.md);
- the nemesis cuts the leader of queue-0 for 8 s, SEED picking when (printed);
- then a final read of every partition, and checker.check: no anomaly, and writes are
  acknowledged again after the heal.

    queue_isolate.py STRATA_BINARY [SEED]    (history and plot kept in $STRATA_FAULT_OUT if set)
"""
import json
import os
import random
import shutil
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "compat"))
import checker  # noqa: E402
from netns import Net, etcd_args, leftovers, wait_port  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka import OFFSET_BEGINNING, Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else random.randrange(1 << 30)
print("seed %d" % seed)
rng = random.Random(seed)
root = tempfile.mkdtemp(prefix="strata-fault-")
T0 = time.monotonic()
SESSION_MS = 3000


def now():
    return time.monotonic() - T0


class History:
    def __init__(self):
        self.ops = []
        self.lock = threading.Lock()

    def add(self, **op):
        with self.lock:
            op["op"] = len(self.ops)
            self.ops.append(op)


def produce(bootstrap, history, stop):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 2,
                  "request.timeout.ms": 5000, "message.timeout.ms": 30000})
    n = 0
    while not stop.is_set():
        value = "v%d" % n
        start = now()

        def done(err, msg, value=value, start=start):
            if err is None:
                history.add(process="producer", f="send", start=start, end=now(), outcome="ok", value=value,
                            partition=msg.partition(), offset=msg.offset())
            else:  # idempotent: a timed-out record may still have been written
                history.add(process="producer", f="send", start=start, end=now(), outcome="unknown", value=value)
        try:
            p.produce("queue", value=value.encode(), callback=done)
            n += 1
        except BufferError:
            pass
        p.poll(0.005)
    p.flush(40)


def consume(bootstrap, history, stop):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "q", "auto.offset.reset": "earliest",
                  "enable.auto.commit": False, "session.timeout.ms": 6000, "isolation.level": "read_committed"})

    def assigned(consumer, parts):
        history.add(process="consumer", f="assign", start=now(), end=now(), outcome="ok",
                    partitions=[tp.partition for tp in parts])
    c.subscribe(["queue"], on_assign=assigned, on_revoke=assigned)
    while not stop.is_set():
        start = now()
        msgs = [m for m in c.consume(num_messages=200, timeout=0.3) if m.error() is None]
        if not msgs:
            continue
        history.add(process="consumer", f="poll", start=start, end=now(), outcome="ok", isolation="read_committed",
                    records=[[m.partition(), m.offset(), m.value().decode()] for m in msgs])
        offsets = {}
        for m in msgs:
            offsets[m.partition()] = m.offset() + 1
        start = now()
        try:
            c.commit(offsets=[TopicPartition("queue", p, o) for p, o in offsets.items()], asynchronous=False)
            outcome = "ok"
        except Exception:  # noqa: BLE001 (a rebalance or the cut: not known)
            outcome = "unknown"
        history.add(process="consumer", f="commit", start=start, end=now(), outcome=outcome, group="q",
                    offsets={str(p): o for p, o in offsets.items()})
    c.close()


def final_read(bootstrap, history):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "final", "enable.auto.commit": False,
                  "isolation.level": "read_committed"})
    records = []
    for p in range(3):
        low, high = c.get_watermark_offsets(TopicPartition("queue", p), timeout=10)
        c.assign([TopicPartition("queue", p, OFFSET_BEGINNING)])
        pos = low
        deadline = time.time() + 30
        while pos < high and time.time() < deadline:
            m = c.poll(0.5)
            if m is None or m.error() is not None:
                continue
            records.append([m.partition(), m.offset(), m.value().decode()])
            pos = m.offset() + 1
    c.close()
    # One read, read_committed (the consumer's level): with no transactions in this
    # workload it holds every record.
    history.add(process="checker", f="final", start=now(), end=now(), outcome="ok", isolation="read_committed",
                records=records)


def run(net, history):
    """The cluster, the workload and the fault; every client made here is gone when it returns."""
    etcd_ip = net.add("etcd")
    net.spawn("etcd", etcd_args(etcd_ip, os.path.join(root, "etcd")), os.path.join(root, "etcd.log"))
    check(wait_port(etcd_ip, 2379), "etcd up")
    ips = {}
    for node in (1, 2, 3):
        ips[node] = net.add("b%d" % node)
        net.spawn("b%d" % node, [binary, "broker", "--override", "log.dirs=" + os.path.join(root, "b%d" % node),
                                 "--override", "listeners=PLAINTEXT://%s:9092" % ips[node],
                                 "--override", "node.id=%d" % node,
                                 "--override", "etcd.connect=%s:2379/strata" % etcd_ip,
                                 "--override", "etcd.session.timeout.ms=%d" % SESSION_MS,
                                 "--override", "replica.lag.time.max.ms=3000",
                                 "--override", "strata.shards=1"], os.path.join(root, "b%d.log" % node))
    for node in (1, 2, 3):
        check(wait_port(ips[node], 9092), "broker %d up at %s" % (node, ips[node]))
    bootstrap = ",".join("%s:9092" % ip for ip in ips.values())
    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.time() + 30
    while True:
        try:
            admin.create_topics([NewTopic("queue", 3, 3, config={"min.insync.replicas": "2"})],
                                request_timeout=20)["queue"].result(timeout=30)
            break
        except Exception:  # noqa: BLE001 (the brokers still joining)
            if time.time() > deadline:
                raise
            time.sleep(0.5)
    deadline = time.time() + 30
    while time.time() < deadline:
        md = admin.list_topics("queue", timeout=5).topics["queue"].partitions
        if len(md) == 3 and all(p.leader >= 0 and len(p.isrs) == 3 for p in md.values()):
            break
        time.sleep(0.2)
    stop = threading.Event()
    workers = [threading.Thread(target=produce, args=(bootstrap, history, stop)),
               threading.Thread(target=consume, args=(bootstrap, history, stop))]
    for w in workers:
        w.start()
    time.sleep(3 + rng.random() * 3)
    victim = admin.list_topics("queue", timeout=5).topics["queue"].partitions[0].leader
    cut_at = now()
    net.cut("b%d" % victim)
    time.sleep(8)
    net.heal("b%d" % victim)
    history.add(process="nemesis", f="fault", start=cut_at, end=now(), outcome="ok",
                fault="isolate-leader-b%d" % victim)
    time.sleep(8)
    stop.set()
    for w in workers:
        w.join(timeout=60)
    final_read(bootstrap, history)


history = History()
net = Net()
try:
    with net:
        run(net, history)
except Exception:
    for name in sorted(os.listdir(root)):
        if name.endswith(".log"):
            sys.stderr.write("---- %s ----\n%s\n" % (name, open(os.path.join(root, name), errors="replace").read()[-3000:]))
    raise
finally:
    out = os.environ.get("STRATA_FAULT_OUT")
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "queue_isolate.jsonl"), "w") as f:
            f.write("\n".join(json.dumps(op) for op in history.ops) + "\n")
        checker.plot(history.ops, os.path.join(out, "queue_isolate.svg"))
    shutil.rmtree(root, ignore_errors=True)

left = leftovers(net.tag, net.subnet)
check(not left, "nothing of the run is left: %s" % left)
report = checker.check(history.ops)
print(report.table())
acked = sum(1 for op in history.ops if op["f"] == "send" and op["outcome"] == "ok")
after = [op for op in history.ops if op["f"] == "send" and op["outcome"] == "ok"
         and op["end"] > max(o["end"] for o in history.ops if o["f"] == "fault")]
check(acked > 1000 and len(after) > 100, "%d writes acknowledged, %d after the heal" % (acked, len(after)))
check(report.ok(), "the checker finds no anomaly (seed %d)" % seed)
print("OK")
