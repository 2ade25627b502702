"""Issue 18 on issue 14: the web console of one broker shows the whole cluster. 3 brokers
on 1 etcd; broker 1 has the admin listener. A 6-partition topic (replication factor 1, so
each partition lives on one broker only) gets 10 records per partition from
confluent-kafka; a group commits 4 per partition through another broker's coordinator
view. Broker 1's console lists the 3 brokers and the controller, every partition with its
own leader (all 3 brokers lead some), and reads each partition's batches and messages
from its leader, wherever it is; the group's lag sums all six; a topic created through
the console is placed over the cluster. Partition sizes come from each replica's broker
(DescribeLogDirs), a live member's assignment from DescribeGroups.

    console.py STRATA_BINARY
"""
import json
import os
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(__file__))
from harness import Cluster  # noqa: E402
from strata_broker import check, free_port  # noqa: E402
from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

TOPIC = "spread"


def get(port, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data,
                                 headers={"Content-Type": "application/json"} if data else {})
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def check_sizes_and_assignments(c, port):
    """Each partition's bytes come from DescribeLogDirs of the broker holding it, and a live
    member's assignment is decoded from DescribeGroups."""
    t = get(port, "/api/topics/" + TOPIC)
    for part in t["partitions"]:
        check(part["bytes"] > 0 and list(part["replica_bytes"]) == [str(part["leader"])],
              "partition %d's size from its one replica's broker: %s" % (part["partition"], part["replica_bytes"]))
    listed = next(x for x in get(port, "/api/topics")["topics"] if x["name"] == TOPIC)
    check(listed["bytes"] == sum(p["bytes"] for p in t["partitions"]), "the topic's size is its partitions'")
    consumer = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "live-group", "session.timeout.ms": 6000})
    consumer.subscribe([TOPIC])
    deadline = time.time() + 30
    while not consumer.assignment() and time.time() < deadline:
        consumer.poll(0.5)
    g = {}
    while time.time() < deadline:
        consumer.poll(0.2)
        g = get(port, "/api/group?id=live-group")
        if g["state"] == "Stable" and g["members"] and g["members"][0]["assignment"]:
            break
    consumer.close()
    check(g["members"][0]["assignment"] == [{"topic": TOPIC, "partitions": [0, 1, 2, 3, 4, 5]}],
          "the live member's assignment: %s" % g.get("members"))


def check_lag_metrics(ports):
    """The group's coordinator exports kafka_exporter's lag for all six partitions, the
    four on other brokers from their leaders' answers (asked at a scrape, so the second
    scrape on has them)."""
    want = ['kafka_consumergroup_lag{consumergroup="spread-group",topic="%s",partition="%d"} 6' % (TOPIC, p)
            for p in range(6)]
    deadline = time.time() + 30
    while True:
        texts = [urllib.request.urlopen("http://127.0.0.1:%d/metrics" % p, timeout=10).read().decode()
                 for p in ports.values()]
        full = [t for t in texts if all(line in t.splitlines() for line in want)]
        if full:
            break
        check(time.time() < deadline, "a broker reports the lag of all six partitions:\n%s"
              % "\n".join(l for t in texts for l in t.splitlines() if "spread-group" in l))
        time.sleep(1)
    check('kafka_consumergroup_lag_sum{consumergroup="spread-group",topic="%s"} 36' % TOPIC in full[0].splitlines(),
          "the coordinator's lag over all six partitions (kafka_consumergroup_lag_sum 36)")

    def gauge(text, name):
        return next(float(l.split()[1]) for l in text.splitlines() if l.startswith(name + " "))
    controllers = [t for t in texts if gauge(t, "kafka_controller_kafkacontroller_activecontrollercount") == 1]
    check(len(controllers) == 1, "one active controller")
    total = gauge(controllers[0], "kafka_controller_kafkacontroller_globalpartitioncount")
    check(total >= 6 and gauge(controllers[0], "kafka_controller_kafkacontroller_offlinepartitionscount") == 0,
          "the controller counts %d partitions, none offline" % total)
    check(sum(gauge(t, "kafka_server_replicamanager_leadercount") for t in texts) == total,
          "the brokers' leader counts add up to the cluster's partitions")


def main():
    ports = {n: free_port() for n in (1, 2, 3)}
    port = ports[1]
    with Cluster(sys.argv[1], brokers=3, etcd_members=1,
                 per_broker={n: {"metrics.listener": "http://127.0.0.1:%d" % p, "strata.console.read.only": "false"}
                             for n, p in ports.items()}) as c:
        c.wait_for("three brokers", lambda brokers, *_: len(brokers) == 3)
        admin = AdminClient({"bootstrap.servers": c.bootstrap})
        for f in admin.create_topics([NewTopic(TOPIC, 6, 1)]).values():
            f.result()
        p = Producer({"bootstrap.servers": c.bootstrap, "enable.idempotence": True})
        for part in range(6):
            for i in range(10):
                p.produce(TOPIC, value=b"%d-%d" % (part, i), partition=part)
        check(p.flush(30) == 0, "60 records written")
        consumer = Consumer({"bootstrap.servers": c.broker(3).bootstrap, "group.id": "spread-group"})
        consumer.commit(offsets=[TopicPartition(TOPIC, part, 4) for part in range(6)], asynchronous=False)
        consumer.close()

        check_sizes_and_assignments(c, port)
        cluster = get(port, "/api/cluster")
        check(sorted(b["id"] for b in cluster["brokers"]) == [1, 2, 3], "the console lists 3 brokers")
        check(cluster["controller"] in (1, 2, 3), "and the controller")
        t = get(port, "/api/topics/" + TOPIC)
        leaders = {x["partition"]: x["leader"] for x in t["partitions"]}
        check(set(leaders.values()) == {1, 2, 3}, "every broker leads some partition: %s" % leaders)
        check(all(x["high_watermark"] == 10 for x in t["partitions"]), "each partition's offsets from its leader")
        for part, leader in sorted(leaders.items()):
            b = get(port, "/api/topics/%s/partitions/%d/batches" % (TOPIC, part))
            check(sum(x["record_count"] for x in b["batches"]) == 10, "partition %d's batches read from broker %d"
                  % (part, leader))
            m = get(port, "/api/topics/%s/partitions/%d/messages?limit=3" % (TOPIC, part))
            check([r["value"]["text"] for r in m["records"]] == ["%d-%d" % (part, i) for i in range(3)],
                  "and its messages")
        g = get(port, "/api/group?id=spread-group")
        check(g["lag"] == 36 and len(g["offsets"]) == 6, "the group's lag over all six partitions: %s" % g)
        check_lag_metrics(ports)
        get(port, "/api/topics", {"name": "made-here", "partitions": 6, "replication_factor": 2})
        made = get(port, "/api/topics/made-here")["partitions"]
        check(len(made) == 6 and {x["leader"] for x in made} == {1, 2, 3} and all(len(x["replicas"]) == 2 for x in made),
              "a topic created through the console is spread over the cluster: %s" % made)
    print("console over the cluster: OK")


if __name__ == "__main__":
    main()
