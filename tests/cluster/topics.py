"""Issue 14, topics across brokers: 3 brokers on 1 etcd, as processes.

- topics of 12 partitions created through different brokers (kafka-python's admin,
  confluent-kafka's admin, kcat's auto-create) are spread over the 3 brokers, leaders
  evenly, and every broker's metadata routes them the same way;
- kafkajs creates a 12-partition topic through broker 1, spread over the 3 brokers, and
  creates, produces (plain and gzip, acks=all) and reads offsets through other brokers;
- confluent-kafka produces keyed records with idempotence (each to its partition's
  leader) and a consumer reads them all back, exactly;
- a 3-member consumer group (confluent-kafka) whose coordinator is on another broker
  shares the partitions, reads each record once and commits;
- CreatePartitions through another broker places and leads the new partitions;
- AlterConfigs through one broker is what every broker describes; each broker describes
  its own broker configs and log dirs (DescribeConfigs, DescribeLogDirs), as Kafka;
- a broker that is not the leader answers NOT_LEADER_OR_FOLLOWER (checked on the wire),
  naming the leader and its address where the version carries them (KIP-951);
- kill -9 of a broker: its partitions show no leader (LEADER_NOT_AVAILABLE), the others'
  keep serving; it restarts and every acknowledged record is back;
- a topic deleted through one broker is gone from all, its logs removed;
- an idempotent producer's first two batches, pipelined on one connection to a leader
  whose view does not show the new topic yet (the broker was paused while it was
  created), are both written, in order: the first waits for the view rather than
  failing while the second, served once the view arrives, succeeds (librdkafka would
  then count the first as written: lost).

    topics.py STRATA_BINARY
"""
import os
import socket
import struct
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from harness import SESSION_MS, Cluster, Reader, call, string  # noqa: E402
import flexible  # noqa: E402  (after harness, which puts strata_broker on the path)
from strata_broker import check, read_frame  # noqa: E402
from kafka.record.default_records import DefaultRecordBatchBuilder  # noqa: E402

from confluent_kafka import Consumer, KafkaError, KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
PARTITIONS = 12
RECORDS = 3000


def leaders(md, topic):
    return {p.id: p.leader for p in md.topics[topic].partitions.values()}


def wait_leaders(admin, topic, pred, what, timeout=20):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            md = admin.list_topics(topic, timeout=5)
        except KafkaException as e:  # the broker asked died meanwhile: ask again
            last = e
            continue
        if topic in md.topics and md.topics[topic].error is None or \
                (topic in md.topics and len(md.topics[topic].partitions) == PARTITIONS):
            last = leaders(md, topic)
            if len(last) == PARTITIONS and pred(last):
                check(True, what)
                return last
        time.sleep(0.2)
    check(False, "%s (last: %s)" % (what, last))


def produce(bootstrap, topic, n, tag):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5})
    acked = []

    def done(err, msg):
        if err is None:
            acked.append((msg.key(), msg.value()))

    for i in range(n):
        p.produce(topic, key=b"k%d" % i, value=b"%s-%d" % (tag, i), callback=done)
        if i % 500 == 0:
            p.poll(0)
    p.flush(60)
    return acked


def consume(bootstrap, topic, n, timeout=60):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "g-" + uuid.uuid4().hex,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.assign([__import__("confluent_kafka").TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    got = []
    deadline = time.time() + timeout
    while len(got) < n and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got.append((m.key(), m.value()))
    c.close()
    return got


def idempotent_produce_frame(correlation, topic, pid, seq, value):
    """Produce v7, acks=1, one record of producer `pid` (epoch 0) at sequence `seq`."""
    b = DefaultRecordBatchBuilder(magic=2, compression_type=0, is_transactional=False, producer_id=pid,
                                  producer_epoch=0, base_sequence=seq, batch_size=1 << 20)
    b.append(0, timestamp=int(time.time() * 1000), key=None, value=value, headers=[])
    records = bytes(b.build())
    body = struct.pack(">hhi", -1, 1, 30000) + struct.pack(">i", 1) + string(topic)
    body += struct.pack(">iii", 1, 0, len(records)) + records
    client = b"lag-test"
    frame = struct.pack(">hhih", 0, 7, correlation, len(client)) + client + body
    return struct.pack(">i", len(frame)) + frame


def produce_answer(sock):
    """(correlation id, error code, base offset) of a Produce v7 answer for one partition."""
    r = Reader(read_frame(sock))
    correlation = r.int32()
    r.int32()
    r.string()
    r.int32()
    r.int32()
    return correlation, r.take(">h"), r.take(">q")


def first_batches_behind_a_lagging_view(c):
    body = struct.pack(">hi", -1, 60000)  # InitProducerId v0: no transactional id
    r = call(c.broker(1).bootstrap, 22, 0, body)
    r.int32()
    check(r.take(">h") == 0, "InitProducerId gives an idempotent producer an id")
    pid = r.take(">q")
    lagging = c.broker(3)
    lagging.pause()
    try:
        admin = AdminClient({"bootstrap.servers": c.broker(1).bootstrap})
        admin.create_topics([NewTopic("lag", 1, replica_assignment=[[3]])],
                            request_timeout=15)["lag"].result(timeout=20)
        sock = socket.create_connection(("127.0.0.1", int(lagging.bootstrap.split(":")[1])), timeout=20)
        sock.sendall(idempotent_produce_frame(1, "lag", pid, 0, b"first"))
    finally:
        lagging.resume()
    time.sleep(0.3)  # the view arrives meanwhile
    sock.sendall(idempotent_produce_frame(2, "lag", pid, 1, b"second"))
    first, second = produce_answer(sock), produce_answer(sock)
    sock.close()
    check(first == (1, 0, 0) and second == (2, 0, 1),
          "the first two pipelined batches to a leader that had not seen the topic yet land at 0 and 1 "
          "(answers %s, %s)" % (first, second))


with Cluster(binary, brokers=3) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3)
    admin = AdminClient({"bootstrap.servers": c.broker(2).bootstrap})
    fs = admin.create_topics([NewTopic("spread", PARTITIONS, 1)], request_timeout=15)
    fs["spread"].result(timeout=20)
    check(True, "confluent-kafka created 'spread' through broker 2")
    lead = wait_leaders(admin, "spread", lambda ls: all(v in (1, 2, 3) for v in ls.values()),
                        "every partition of 'spread' has a leader")
    counts = {b: list(lead.values()).count(b) for b in (1, 2, 3)}
    check(counts == {1: 4, 2: 4, 3: 4}, "leaders spread evenly: %s" % counts)
    for b in c.brokers:
        # Each broker's view catches up within moments (metadata propagation; slower under
        # the sanitizers): asked until it agrees, at most 10 s.
        seen = None
        deadline = time.time() + 10
        while time.time() < deadline and seen != lead:
            md = AdminClient({"bootstrap.servers": b.bootstrap}).list_topics("spread", timeout=5)
            seen = leaders(md, "spread") if "spread" in md.topics else None
            if seen != lead:
                time.sleep(0.1)
        check(seen == lead, "broker %d routes 'spread' the same way (%s)" % (b.node_id, seen))
    first_batches_behind_a_lagging_view(c)

    # strata cluster --describe: 3 brokers, the controller, 4 leaders each of 'spread'.
    out = subprocess.run([binary, "cluster", "--describe", "--bootstrap-server", c.broker(1).bootstrap],
                         capture_output=True, text=True, timeout=30).stdout
    print(out, end="")
    lines = [l for l in out.splitlines() if l.startswith("\tBroker: ")]
    check(len(lines) == 3 and "Controller: " in out and "Offline: 0" in out,
          "strata cluster --describe lists 3 brokers, a controller, nothing offline")
    check(all("Leaders: " in l for l in lines), "each broker's leader count is shown")
    # strata topic --describe: each partition's leader and replicas as Metadata has them.
    out = subprocess.run([binary, "topic", "--describe", "--topic", "spread", "--bootstrap-server",
                          c.broker(3).bootstrap], capture_output=True, text=True, timeout=30).stdout
    shown = {int(l.split("Partition: ")[1].split("\t")[0]): int(l.split("Leader: ")[1].split("\t")[0])
             for l in out.splitlines() if "\tPartition: " in l}
    check(shown == lead, "strata topic --describe shows each partition's leader")

    # Only the leader serves a partition: another broker answers NOT_LEADER_OR_FOLLOWER (6).
    p0 = lead[0]
    other = next(b for b in c.brokers if b.node_id != p0)
    check(c.list_offsets_error(c.broker(p0).bootstrap, "spread", 0) == 0, "the leader answers ListOffsets")
    check(c.list_offsets_error(other.bootstrap, "spread", 0) == 6,
          "broker %d (not the leader) answers NOT_LEADER_OR_FOLLOWER" % other.node_id)
    # KIP-951: with the leader's id, epoch and address (Produce v10, Fetch v16).
    leader = c.broker(p0)
    endpoint = [(p0, "127.0.0.1", int(leader.bootstrap.split(":")[1]), None)]
    hint = flexible.produce_hint(other.bootstrap, "spread", 0)
    check(hint[0] == 6 and hint[1] is not None and hint[1][0] == p0 and hint[2] == endpoint,
          "Produce v10 to broker %d names the leader: %s" % (other.node_id, hint))
    tid = flexible.topic_id(other.bootstrap, "spread")
    hint = flexible.fetch_hint(other.bootstrap, tid, 0)
    check(hint[0] == 6 and hint[1] is not None and hint[1][0] == p0 and hint[2] == endpoint,
          "Fetch v16 from broker %d names the leader: %s" % (other.node_id, hint[:3]))
    # fetch_not_leader_records_empty (found by faults.queue): with the error, empty records,
    # not null, as Kafka; librdkafka 2.0 dropped the whole response over a null one.
    check(hint[3] == b"", "the NOT_LEADER_OR_FOLLOWER partition's records are empty, not null: %r" % (hint[3],))
    hint = flexible.fetch_hint(leader.bootstrap, tid, 0)
    check(hint[:3] == (0, None, []), "the leader itself answers Fetch v16 without hints: %s" % (hint[:3],))

    # kafka-python's admin, through broker 3.
    from kafka.admin import KafkaAdminClient, NewTopic as KNewTopic
    kadmin = KafkaAdminClient(bootstrap_servers=c.broker(3).bootstrap)
    kadmin.create_topics([KNewTopic("spread-kp", PARTITIONS, 1)])
    kadmin.close()
    wait_leaders(admin, "spread-kp", lambda ls: set(ls.values()) == {1, 2, 3},
                 "kafka-python created 'spread-kp' through broker 3, spread over 3 brokers")

    # kcat auto-creates through broker 1 (num.partitions is 1: one partition).
    r = subprocess.run(["kcat", "-b", c.broker(1).bootstrap, "-P", "-t", "auto-kcat"], input=b"x\n",
                       capture_output=True, timeout=30)
    check(r.returncode == 0, "kcat produced to an auto-created topic")

    # An idempotent producer writes keyed records to the leaders; all read back.
    acked = produce(c.bootstrap, "spread", RECORDS, b"a")
    check(len(acked) == RECORDS, "confluent-kafka (idempotent) acknowledged %d records" % len(acked))
    got = consume(c.bootstrap, "spread", RECORDS)
    check(sorted(got) == sorted(acked), "a consumer reads exactly the acknowledged records back")

    # kafkajs (its own partitioner and leader routing): creates a 2-partition topic through
    # broker 3, produces plain and gzip batches with acks=all, then reads its offsets back.
    import json
    js = os.path.join(os.path.dirname(__file__), "..", "compat", "js")

    def node(*args):
        out = subprocess.run(["node", os.path.join(js, "client.js"), *args], capture_output=True,
                             text=True, timeout=60, cwd=js)
        if out.returncode != 0:
            raise AssertionError("kafkajs failed: " + out.stderr[-3000:])
        return json.loads(out.stdout.strip().splitlines()[-1])

    made = node(c.broker(1).bootstrap, "create", "spread-js", str(PARTITIONS))["leaders"]
    wait_leaders(admin, "spread-js", lambda ls: set(ls.values()) == {1, 2, 3},
                 "kafkajs created 'spread-js' through broker 1, spread over 3 brokers")
    check(len(made) == PARTITIONS, "kafkajs sees the 12 partitions' leaders: %s" % made)

    sent = node(c.broker(3).bootstrap, "produce")["sent"]
    info = node(c.broker(1).bootstrap, "check", "0")
    highs = {o["partition"]: int(o["high"]) for o in info["offsets"]}
    check(highs == {0: len(sent["0"]), 1: len(sent["1"])},
          "kafkajs produced through the cluster and sees high watermarks %s" % highs)

    # A 3-member consumer group on 'spread-kp': its coordinator is the leader of the
    # group's __consumer_offsets partition (another broker, for most groups); the members
    # share the 12 partitions and read every record once; the offsets they commit are
    # read back by a new member.
    group_records = produce(c.bootstrap, "spread-kp", 1200, b"g")
    members = [Consumer({"bootstrap.servers": c.broker(i % 3 + 1).bootstrap, "group.id": "cluster-group",
                         "auto.offset.reset": "earliest", "session.timeout.ms": 10000,
                         "heartbeat.interval.ms": 500}) for i in range(3)]
    for m in members:
        m.subscribe(["spread-kp"])
    seen = []
    deadline = time.time() + 60
    while time.time() < deadline and (len(seen) < len(group_records) or
                                      sum(len(m.assignment()) for m in members) != PARTITIONS):
        for m in members:
            msg = m.poll(0.1)
            if msg is not None and msg.error() is None:
                seen.append((msg.key(), msg.value()))
    shares = sorted(len(m.assignment()) for m in members)
    check(shares == [4, 4, 4], "the group's 3 members hold 4 partitions each: %s" % shares)
    check(sorted(seen) == sorted(group_records), "the group read every record exactly once (%d)" % len(seen))
    for m in members:
        try:
            m.commit(asynchronous=False)
        except KafkaException as e:  # _NO_OFFSET: auto-commit has committed them all already
            if e.args[0].code() != KafkaError._NO_OFFSET:
                raise
        m.close()
    late = Consumer({"bootstrap.servers": c.broker(2).bootstrap, "group.id": "cluster-group",
                     "auto.offset.reset": "earliest"})
    late.subscribe(["spread-kp"])
    extra = []
    t_end = time.time() + 8
    while time.time() < t_end:
        msg = late.poll(0.2)
        if msg is not None and msg.error() is None:
            extra.append(msg)
    late.close()
    check(not extra, "a new member resumes from the committed offsets (nothing read twice)")

    # CreatePartitions through broker 1: the new partitions are placed and led too.
    from confluent_kafka.admin import NewPartitions
    admin1 = AdminClient({"bootstrap.servers": c.broker(1).bootstrap})
    admin1.create_partitions([NewPartitions("spread-kp", 15)], request_timeout=15)["spread-kp"].result(timeout=20)
    md = admin.list_topics("spread-kp", timeout=5)
    grown = leaders(md, "spread-kp")
    check(len(grown) == 15 and all(v in (1, 2, 3) for v in grown.values()),
          "'spread-kp' grown to 15 partitions, each with a leader: %s" % sorted(grown.values()))

    # AlterConfigs through broker 2: every broker describes the new value.
    from confluent_kafka.admin import ConfigResource
    admin2 = AdminClient({"bootstrap.servers": c.broker(2).bootstrap})
    res = ConfigResource(ConfigResource.Type.TOPIC, "spread-kp", set_config={"retention.ms": "123456789"})
    list(admin2.alter_configs([res], request_timeout=15).values())[0].result(timeout=20)
    for b in c.brokers:
        a = AdminClient({"bootstrap.servers": b.bootstrap})
        got = list(a.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, "spread-kp")],
                                      request_timeout=15).values())[0].result(timeout=20)
        deadline = time.time() + 10
        while got["retention.ms"].value != "123456789" and time.time() < deadline:
            time.sleep(0.2)
            got = list(a.describe_configs([ConfigResource(ConfigResource.Type.TOPIC, "spread-kp")],
                                          request_timeout=15).values())[0].result(timeout=20)
        check(got["retention.ms"].value == "123456789",
              "broker %d describes retention.ms altered through broker 2" % b.node_id)

    # Broker configs and log dirs as Kafka answers them: each broker for itself (the admin
    # client sends a broker's DescribeConfigs to that broker, DescribeLogDirs to each).
    for b in c.brokers:
        got = list(admin.describe_configs([ConfigResource(ConfigResource.Type.BROKER, str(b.node_id))],
                                          request_timeout=15).values())[0].result(timeout=20)
        check(got["node.id"].value == str(b.node_id) and got["listeners"].value == "PLAINTEXT://" + b.bootstrap
              and got["etcd.connect"].value == c.etcd_connect,
              "DescribeConfigs for broker %d is its own: node.id, listeners, etcd.connect" % b.node_id)
    now_lead = leaders(admin.list_topics(timeout=10), "spread")
    for b in c.brokers:
        held = c.log_dir_partitions(b.bootstrap).get("spread", [])
        check(held == sorted(p for p, l in now_lead.items() if l == b.node_id),
              "DescribeLogDirs on broker %d lists the 'spread' partitions it holds: %s" % (b.node_id, held))

    # Kill -9 one broker: its partitions have no leader, the others' keep serving.
    victim = c.broker(3)
    victim.kill()
    wait_leaders(admin, "spread", lambda ls: sorted(ls.values()).count(-1) == 4 and 3 not in ls.values(),
                 "the killed broker's 4 partitions report no leader", timeout=SESSION_MS / 1000 + 15)
    alive = [p for p, l in lead.items() if l != 3]
    pr = Producer({"bootstrap.servers": c.broker(1).bootstrap, "enable.idempotence": True})
    ok = []
    for p in alive:
        pr.produce("spread", value=b"while-down", partition=p,
                   callback=lambda err, msg: ok.append(err is None))
    pr.flush(30)
    check(len(ok) == len(alive) and all(ok), "partitions of live brokers keep taking records")
    victim.start()
    wait_leaders(admin, "spread", lambda ls: ls == lead, "broker 3 returns and leads its partitions again",
                 timeout=SESSION_MS / 1000 + 15)
    got = consume(c.bootstrap, "spread", RECORDS + len(alive))
    check(sorted(g for g in got if g[1] != b"while-down") == sorted(acked),
          "every acknowledged record is back after the restart")

    # Delete through broker 1: gone everywhere, logs removed. (No client may still be
    # producing to it: librdkafka's metadata refresh would auto-create it again, as
    # against Kafka.)
    del pr
    import gc
    gc.collect()
    def topic_id_of(broker, d):
        try:
            with open(os.path.join(broker.data, d, "partition.metadata")) as f:
                return dict(line.split(": ", 1) for line in f.read().splitlines() if ": " in line).get("topic_id")
        except OSError:
            return None
    doomed = {topic_id_of(b, d) for b in c.brokers for d in os.listdir(b.data) if d.rsplit("-", 1)[0] == "spread"}
    check(len(doomed) == 1 and None not in doomed, "the 'spread' logs carry one topic id: %s" % doomed)
    admin1 = AdminClient({"bootstrap.servers": c.broker(1).bootstrap})
    admin1.delete_topics(["spread"], request_timeout=15)["spread"].result(timeout=20)
    deadline = time.time() + 15
    gone = False
    while time.time() < deadline and not gone:
        gone = all("spread" not in AdminClient({"bootstrap.servers": b.bootstrap}).list_topics(timeout=5).topics
                   for b in c.brokers)
        time.sleep(0.2)
    check(gone, "'spread' deleted through broker 1 is gone from every broker")
    time.sleep(1)
    # A client's metadata refresh may auto-create 'spread' again at once (the default
    # auto.create.topics.enable=true, as Kafka's): the deleted incarnation's logs must go.
    left = ["%d:%s" % (b.node_id, d) for b in c.brokers for d in os.listdir(b.data)
            if d.rsplit("-", 1)[0] == "spread" and topic_id_of(b, d) in doomed]
    check(not left, "its partition logs are removed on every broker (%s)" % left)

print("topics: all checks passed")
