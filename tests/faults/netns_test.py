"""Hosts in network namespaces (issue 16's cluster under test): etcd in one namespace,
a Strata broker (cluster mode) in another, the test's client in the root namespace on
the bridge.

- the broker registers through etcd across the bridge, and confluent-kafka produces 200
  records (acks=all) and reads them back from the root namespace;
- cut: the broker's host loses its link; a connection to it from the client fails
  (times out) while the broker process runs on;
- heal: the link is back, and the client produces and reads again through it;
- close: nothing of the run is left (namespaces, bridge, veths, processes).

    netns_test.py STRATA_BINARY
"""
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "compat"))
from netns import Net, etcd_args, leftovers, wait_port  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka import Consumer, Producer  # noqa: E402

binary = sys.argv[1]
root = tempfile.mkdtemp(prefix="strata-netns-")


def round_trip(bootstrap, tag, n=200):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "enable.idempotence": True, "linger.ms": 5})
    for i in range(n):
        p.produce("hosts", value=b"%s-%d" % (tag, i))
    left = p.flush(30)
    del p
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "g-%s" % tag.decode(), "auto.offset.reset": "earliest",
                  "enable.auto.commit": False})
    c.subscribe(["hosts"])
    got = set()
    deadline = time.time() + 30
    while time.time() < deadline and len([v for v in got if v.startswith(tag)]) < n:
        m = c.poll(0.2)
        if m is not None and m.error() is None:
            got.add(m.value())
    c.close()
    return left, len([v for v in got if v.startswith(tag)])


net = Net()
tag = net.tag
try:
    with net:
        etcd_ip = net.add("etcd")
        broker_ip = net.add("broker")
        net.spawn("etcd", etcd_args(etcd_ip, os.path.join(root, "etcd")), os.path.join(root, "etcd.log"))
        check(wait_port(etcd_ip, 2379), "etcd serves at %s:2379 in its namespace" % etcd_ip)
        broker = net.spawn("broker", [binary, "broker", "--override", "log.dirs=" + os.path.join(root, "broker"),
                             "--override", "listeners=PLAINTEXT://%s:9092" % broker_ip,
                             "--override", "node.id=1", "--override", "etcd.connect=%s:2379/strata" % etcd_ip,
                             "--override", "strata.shards=1"],
                  os.path.join(root, "broker.log"))
        check(wait_port(broker_ip, 9092), "the broker serves at %s:9092 in its namespace" % broker_ip)
        bootstrap = "%s:9092" % broker_ip
        left, read = round_trip(bootstrap, b"before")
        check(left == 0 and read == 200, "200 records produced and read back across the bridge (%d unsent)" % left)

        net.cut("broker")
        check(wait_port(broker_ip, 9092, want=False, timeout=10),
              "cut: the broker's host is unreachable from the client")
        check(broker.poll() is None, "and the broker process runs on")
        net.heal("broker")
        check(wait_port(broker_ip, 9092, timeout=30), "heal: the broker is reachable again")
        left, read = round_trip(bootstrap, b"after")
        check(left == 0 and read == 200, "200 more produced and read back after the heal (%d unsent)" % left)
except Exception:
    for name in ("etcd.log", "broker.log"):
        path = os.path.join(root, name)
        if os.path.exists(path):
            sys.stderr.write("---- %s ----\n%s\n" % (name, open(path, errors="replace").read()[-4000:]))
    raise
finally:
    shutil.rmtree(root, ignore_errors=True)
left = leftovers(tag, net.subnet)
check(not left, "nothing of the run is left: %s" % left)
print("OK")
