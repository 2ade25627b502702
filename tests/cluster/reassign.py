"""Issue 15, reassignment (KIP-455): 4 brokers on 1 etcd, a partition replicated 3 times
(min.insync.replicas 2) written by an idempotent acks=all producer the whole time,
follower.replication.throttled.rate 2 MiB/s on every broker but broker 1.

- `strata reassign-partitions --execute` moves mv-0 from {1,2,3} to {2,3,4}: --list shows
  the full set 2,3,4,1 adding 4 removing 1 while broker 4 catches up under the throttle
  (8 MiB take at least 2.5 s); --verify then says completed, broker 2 leads (1 was
  removed), broker 1's log of mv-0 is gone, and writes go on;
- `--drain-broker 4 --execute --throttle 1048576` moves every replica off broker 4 (onto
  broker 1), broker 2 leading: the tool sets both throttle rates on brokers 1-4 as dynamic
  broker configs (DescribeConfigs: DYNAMIC_BROKER_CONFIG), which hold broker 1's catch-up
  (its static follower rate is unlimited) to at least 4 s; `--verify` then clears them
  ("Clearing broker-level throttles on brokers 1,2,3,4") and the static values are back;
- AlterConfigs of the default entity "" sets a cluster-wide follower rate
  (DYNAMIC_DEFAULT_BROKER_CONFIG on every broker, over a static setting), and an empty
  set removes it; a broker config that is not dynamic is refused (INVALID_REQUEST);
- a move cancelled at once puts the replicas back and removes the half-made copy;
- a target with an unregistered broker: INVALID_REPLICA_ASSIGNMENT; a cancel with
  nothing moving: NO_REASSIGNMENT_IN_PROGRESS;
- a new replica of a partition whose log starts at 1500 (DeleteRecords) starts its log
  there (Kafka's truncateFullyAndStartAt), catches up, leads, and serves exactly the
  records from 1500 on;
- every acknowledged record is read back once, in order, and the final replicas are
  byte-identical.

    reassign.py STRATA_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import Cluster  # noqa: E402
from replicas import Writer, check_identical, check_read_back, partitions, read_all  # noqa: E402
from strata_broker import check, delete_records_v0  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic  # noqa: E402
from kafka.admin import ConfigResource as KpConfigResource, ConfigResourceType, KafkaAdminClient  # noqa: E402

binary = sys.argv[1]
TOPIC = "mv"
RATE = 2 << 20
PRE = 8000  # 1 KiB records: 8 MiB before the move


def tool(bootstrap, *args):
    p = subprocess.run([binary, "reassign-partitions", "--bootstrap-server", bootstrap] + list(args),
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def plan_file(replicas, topic=TOPIC):
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"version": 1, "partitions": [{"topic": topic, "partition": 0, "replicas": replicas}]}, f)
    f.close()
    return f.name


def wait_replicas(admin, want, timeout=60, topic=TOPIC):
    """Waits until partition 0's replicas are `want` (as a set) and all in the ISR."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = partitions(admin, topic).get(0)
        if last and last[0] >= 0 and last[1] == sorted(want) and last[2] == sorted(want):
            return last
        time.sleep(0.1)
    check(False, "%s-0 on %s, all in sync (last: %s)" % (topic, want, last))


def wait_completed(bootstrap, plan, timeout=90):
    """Polls --verify until the move is completed; its last output."""
    deadline = time.time() + timeout
    out = ""
    while time.time() < deadline:
        _, out, _ = tool(bootstrap, "--reassignment-json-file", plan, "--verify")
        if "is completed" in out:
            break
        time.sleep(0.2)
    return out


LEADER, FOLLOWER = "leader.replication.throttled.rate", "follower.replication.throttled.rate"
DYNAMIC_BROKER, DYNAMIC_DEFAULT, STATIC, DEFAULT = 2, 3, 4, 5  # Kafka's ConfigSource ids


def broker_rates(bootstrap, node, entity=None):
    """{rate name: (value, source id)} as `node` describes its BROKER resource."""
    a = AdminClient({"bootstrap.servers": bootstrap})
    res = ConfigResource("BROKER", str(node) if entity is None else entity)
    entries = list(a.describe_configs([res]).values())[0].result(timeout=10)
    return {k: (e.value, int(e.source)) for k, e in entries.items() if k in (LEADER, FOLLOWER)}


def alter_default_entity(c, configs):
    """Legacy AlterConfigs of the default entity "" (kafka-python's: confluent-kafka's
    refuses an empty BROKER name); its error code."""
    a = KafkaAdminClient(bootstrap_servers=c.bootstrap, request_timeout_ms=20000)
    try:
        r = a.alter_configs([KpConfigResource(ConfigResourceType.BROKER, "", configs=configs)])
        return r.resources[0][0]
    finally:
        a.close()


def dynamic_defaults(c):
    """The default entity "" through the legacy AlterConfigs."""
    check(alter_default_entity(c, {FOLLOWER: "3000000"}) == 0, "AlterConfigs of \"\" sets a cluster-wide follower rate")
    deadline = time.time() + 10
    while time.time() < deadline and broker_rates(c.broker(3).bootstrap, 3).get(FOLLOWER) != ("3000000", DYNAMIC_DEFAULT):
        time.sleep(0.1)
    check(broker_rates(c.broker(3).bootstrap, 3).get(FOLLOWER) == ("3000000", DYNAMIC_DEFAULT),
          "broker 3 describes it as DYNAMIC_DEFAULT_BROKER_CONFIG")
    check(broker_rates(c.broker(1).bootstrap, 1).get(FOLLOWER) == ("3000000", DYNAMIC_DEFAULT),
          "and broker 1 too, over its static setting (Kafka's order of sources)")
    bad = ConfigResource("BROKER", "2", set_config={"num.partitions": "4"})
    a2 = AdminClient({"bootstrap.servers": c.broker(2).bootstrap})
    try:
        list(a2.alter_configs([bad]).values())[0].result(timeout=10)
        refused = None
    except KafkaException as e:
        refused = e.args[0]
    check(refused is not None and refused.code() == KafkaError.INVALID_REQUEST
          and "Cannot update these configs dynamically: Set(num.partitions)" in refused.str(),
          "a static broker config is refused: %s" % refused)
    check(alter_default_entity(c, {}) == 0, "an empty AlterConfigs of \"\" removes it")
    deadline = time.time() + 10
    while time.time() < deadline and broker_rates(c.broker(3).bootstrap, 3).get(FOLLOWER, (0, 0))[1] != STATIC:
        time.sleep(0.1)
    check(broker_rates(c.broker(3).bootstrap, 3).get(FOLLOWER) == (str(RATE), STATIC),
          "broker 3's static rate is back")


def start_past_zero(c, admin):
    """A new replica (broker 4) of a partition whose leader's log starts at 1500."""
    admin.create_topics([NewTopic("trim", 1, replica_assignment=[[1, 2, 3]],
                                  config={"min.insync.replicas": "2", "segment.bytes": "65536"})],
                        request_timeout=30)["trim"].result(timeout=40)
    leader, _, _ = wait_replicas(admin, [1, 2, 3], topic="trim")
    p = Producer({"bootstrap.servers": c.bootstrap, "acks": "all", "linger.ms": 5})
    for i in range(2000):
        p.produce("trim", value=b"t%d:" % i + b"y" * 100, partition=0)
    check(p.flush(60) == 0, "2000 records written to trim-0")
    low, error = delete_records_v0(c.broker(leader).port, "trim", 0, 1500)
    check((low, error) == (1500, 0), "DeleteRecords moved trim-0's log start to 1500 (%d, error %d)" % (low, error))
    plan = plan_file([4, 2, 3], topic="trim")
    code, out, err = tool(c.bootstrap, "--reassignment-json-file", plan, "--execute")
    check(code == 0, "--execute trim-0 {1,2,3} -> {4,2,3}: %r %r" % (out, err))
    out = wait_completed(c.bootstrap, plan)
    check("Reassignment of partition trim-0 is completed." in out, "--verify: completed: %r" % out)
    leader, _, _ = wait_replicas(admin, [2, 3, 4], topic="trim")
    check(leader == 4, "broker 4, the first of the new replicas, leads trim-0 (leader %d)" % leader)
    # Its first segment starts at or below 1500: at the base offset of the batch holding 1500.
    logs = sorted(f for f in os.listdir(os.path.join(c.broker(4).data, "trim-0")) if f.endswith(".log"))
    check(logs and int(logs[0][:-4]) <= 1500, "broker 4's log of trim-0 was made from 1500's batch on: %s" % logs)
    cons = Consumer({"bootstrap.servers": c.broker(4).bootstrap, "group.id": "trim-marks"})
    marks = cons.get_watermark_offsets(TopicPartition("trim", 0), timeout=10)
    cons.close()
    check(marks == (1500, 2000), "broker 4 answers trim-0's log start 1500 and end 2000: %s" % (marks,))
    for i in range(2000, 2100):
        p.produce("trim", value=b"t%d:" % i + b"y" * 100, partition=0)
    check(p.flush(60) == 0, "100 more records written through broker 4")
    got = read_all(c.bootstrap, "trim", "read_committed", 600)
    want = ["t%d:" % i + "y" * 100 for i in range(1500, 2100)]
    check(got == want, "a consumer reads exactly records 1500-2099 of trim-0 from broker 4 (%d read)" % len(got))


def has_log(broker):
    return os.path.isdir(os.path.join(broker.data, "%s-0" % TOPIC))


def wait_gone(broker, timeout=15):
    deadline = time.time() + timeout
    while time.time() < deadline and has_log(broker):
        time.sleep(0.1)
    return not has_log(broker)


with Cluster(binary, brokers=4, overrides={"replica.lag.time.max.ms": "3000",
                                           "follower.replication.throttled.rate": str(RATE)},
             per_broker={1: {"follower.replication.throttled.rate": str(1 << 40)}}) as c:
    c.wait_for("4 brokers", lambda br, ctl, cid: len(br) == 4 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic(TOPIC, 1, replica_assignment=[[1, 2, 3]], config={"min.insync.replicas": "2"})],
                        request_timeout=30)[TOPIC].result(timeout=40)
    wait_replicas(admin, [1, 2, 3])
    pre = Producer({"bootstrap.servers": c.bootstrap, "acks": "all", "linger.ms": 5, "enable.idempotence": True})
    for i in range(PRE):
        pre.produce(TOPIC, value=b"0:%d:" % (i - PRE) + b"x" * 1000, partition=0)
        if i % 1000 == 0:
            pre.poll(0)
    check(pre.flush(60) == 0, "%d KiB written to mv-0 before the move" % PRE)
    w = Writer(c.bootstrap, TOPIC, 1)
    w.start()
    time.sleep(0.5)

    started = time.time()
    code, out, err = tool(c.broker(3).bootstrap, "--reassignment-json-file", plan_file([2, 3, 4]), "--execute")
    check(code == 0 and "Successfully started partition reassignments for mv-0" in out
          and '"replicas":[1,2,3]' in out, "--execute {1,2,3} -> {2,3,4}: %r %r" % (out, err))
    # Asked of the broker that wrote the move (answered once its view had it).
    code, out, _ = tool(c.broker(3).bootstrap, "--list")
    check("mv-0: replicas: 2,3,4,1. adding: 4. removing: 1." in out, "--list during the move: %r" % out)
    out = wait_completed(c.bootstrap, plan_file([2, 3, 4]))
    took = time.time() - started
    check("Reassignment of partition mv-0 is completed." in out, "--verify: completed (%.1f s): %r" % (took, out))
    check(took >= 2.5, "the 2 MiB/s throttle held broker 4's catch-up of 8 MiB to %.1f s (at least 2.5 s)" % took)
    leader, replicas, isr = wait_replicas(admin, [2, 3, 4])
    check(leader == 2, "broker 2 leads mv-0 after broker 1's removal (leader %d)" % leader)
    check(wait_gone(c.broker(1)), "broker 1's log of mv-0 is removed")
    before = len(w.acked)
    deadline = time.time() + 20
    while time.time() < deadline and len(w.acked) <= before + 100:
        time.sleep(0.1)
    check(len(w.acked) > before + 100, "writes go on after the move (%d acked)" % len(w.acked))

    started = time.time()
    code, out, err = tool(c.broker(1).bootstrap, "--drain-broker", "4", "--execute", "--throttle", str(RATE // 2))
    check(code == 0 and "Successfully started partition reassignments for mv-0" in out
          and "The inter-broker throttle limit was set to %d B/s" % (RATE // 2) in out,
          "--drain-broker 4 --execute --throttle %d: %r %r" % (RATE // 2, out, err))
    rates = broker_rates(c.broker(2).bootstrap, 2)
    check(rates == {LEADER: (str(RATE // 2), DYNAMIC_BROKER), FOLLOWER: (str(RATE // 2), DYNAMIC_BROKER)},
          "broker 2 describes both rates as dynamic broker configs: %s" % rates)
    wait_replicas(admin, [1, 2, 3], timeout=90)
    took = time.time() - started
    check(took >= 4, "the 1 MiB/s throttle held broker 1's catch-up (8 MiB and more) to %.1f s (at least 4 s)" % took)
    code, out, err = tool(c.bootstrap, "--reassignment-json-file", plan_file([2, 3, 1]), "--verify")
    check(code == 0 and "is completed" in out and "Clearing broker-level throttles on brokers 1,2,3,4" in out,
          "--verify clears the throttles: %r %r" % (out, err))
    rates = broker_rates(c.broker(1).bootstrap, 1)
    check(rates == {LEADER: (str(2**63 - 1), DEFAULT), FOLLOWER: (str(1 << 40), STATIC)},
          "broker 1's rates are its static ones again: %s" % rates)
    dynamic_defaults(c)
    check(wait_gone(c.broker(4)), "broker 4 is drained: its log of mv-0 is removed")
    code, out, err = tool(c.bootstrap, "--drain-broker", "4")
    check(code == 0 and "holds no replicas" in out, "broker 4 holds nothing: %r" % out)

    code, out, err = tool(c.bootstrap, "--reassignment-json-file", plan_file([1, 2, 4]), "--execute")
    check(code == 0, "a move to {1,2,4} started: %r" % err)
    code, out, err = tool(c.bootstrap, "--reassignment-json-file", plan_file([1, 2, 4]), "--cancel")
    check(code == 0 and "Successfully cancelled partition reassignments for: mv-0" in out,
          "--cancel: %r %r" % (out, err))
    code, out, _ = tool(c.bootstrap, "--list")
    check("No partition reassignments found." in out, "nothing moves after the cancel: %r" % out)
    wait_replicas(admin, [1, 2, 3])
    check(wait_gone(c.broker(4)), "the cancelled move's copy on broker 4 is removed")

    code, out, err = tool(c.bootstrap, "--reassignment-json-file", plan_file([1, 9]), "--execute")
    check(code == 1 and "INVALID_REPLICA_ASSIGNMENT" in err and "Broker 9 is not registered" in err,
          "an unregistered broker: %r" % err)
    code, out, err = tool(c.bootstrap, "--reassignment-json-file", plan_file([1, 2, 3]), "--cancel")
    check(code == 1 and "NO_REASSIGNMENT_IN_PROGRESS" in err, "a cancel with nothing moving: %r" % err)

    start_past_zero(c, admin)

    w.finish()
    check_read_back(c.bootstrap, TOPIC, 1, w.acked)
    check_identical([c.broker(n) for n in (1, 2, 3)], TOPIC, 1)
print("OK")
