"""Issue 15, replication: 3 brokers on 1 etcd, replication factor 3, min.insync.replicas 2.

- a topic of 6 partitions with 3 replicas each; an idempotent confluent-kafka producer
  (acks=all) has every record acknowledged, a consumer reads them all back, exactly;
- the followers' logs are the leader's byte for byte (every replica's segment files);
- kill -9 of a broker that leads partitions: the controller elects new leaders from the
  ISR, the producer keeps writing (2 replicas left, min ISR 2), the partitions it
  followed drop it from their ISR within replica.lag.time.max.ms;
- it restarts, catches up, rejoins every ISR; nothing acknowledged is lost, nothing is
  read twice, and all replicas' logs are identical again;
- with only one replica left, acks=all gets NOT_ENOUGH_REPLICAS and nothing is written;
- divergence: a leader's acks=1 records no follower fetched are truncated when it comes
  back as a follower of the next epoch's leader, and the replicas agree again;
- unclean.leader.election.enable: with every ISR member down and only an out-of-sync
  replica alive, a topic that allows it elects that replica (and loses what only the ISR
  had, as Kafka), a topic that does not (the default) stays leaderless and loses nothing.

    replication.py STRATA_BINARY
"""
import os
import subprocess
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from harness import SESSION_MS, Cluster  # noqa: E402
from replicas import partitions, segment_bytes  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
PARTITIONS = 6
LAG_MS = 3000


def wait_parts(admin, topic, pred, what, timeout=30):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = partitions(admin, topic)
        if len(last) == PARTITIONS and pred(last):
            check(True, what)
            return last
        time.sleep(0.2)
    check(False, "%s (last: %s)" % (what, last))


def produce(bootstrap, topic, n, tag, timeout=90):
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                  "linger.ms": 5, "message.timeout.ms": 60000})
    acked, failed = [], []

    def done(err, msg):
        (acked if err is None else failed).append((msg.key(), msg.value()) if err is None else err)

    for i in range(n):
        p.produce(topic, key=b"%s-%d" % (tag, i), value=b"%s-%d" % (tag, i), callback=done)
        if i % 200 == 0:
            p.poll(0)
    p.flush(timeout)
    return acked, failed


def consume_all(bootstrap, topic, expect, timeout=60):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "g-" + uuid.uuid4().hex,
                  "auto.offset.reset": "earliest", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    got = []
    deadline = time.time() + timeout
    idle_until = None
    while time.time() < deadline:
        m = c.poll(0.3)
        if m is not None and m.error() is None:
            got.append((m.key(), m.value()))
            idle_until = None
        elif len(got) >= expect:
            idle_until = idle_until or time.time() + 2  # a little longer: duplicates would show
            if time.time() > idle_until:
                break
    c.close()
    return got


def under_replicated(c):
    """The 'rep' partitions `strata topic --describe --under-replicated-partitions` lists."""
    alive = next(b for b in c.brokers if b.alive())
    out = subprocess.run([binary, "topic", "--describe", "--under-replicated-partitions", "--topic", "rep",
                          "--bootstrap-server", alive.bootstrap], capture_output=True, text=True, timeout=30)
    return sorted(int(l.split("Partition: ")[1].split("\t")[0]) for l in out.stdout.splitlines() if "Partition: " in l)


def read_partition0(bootstrap, topic, n, timeout=30):
    """Values of `topic`-0 from its start, until `n` are read (or the time is up)."""
    cons = Consumer({"bootstrap.servers": bootstrap, "group.id": "g-" + uuid.uuid4().hex,
                     "auto.offset.reset": "earliest", "enable.auto.commit": False})
    cons.assign([TopicPartition(topic, 0, 0)])
    values = []
    deadline = time.time() + timeout
    while time.time() < deadline and len(values) < n:
        m = cons.poll(0.3)
        if m is not None and m.error() is None:
            values.append(m.value())
    cons.close()
    return values


def wait_partition0(admin, topic, pred, what, timeout=30):
    """Waits until `pred((leader, replicas, isr))` of `topic`-0 holds; returns that state."""
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = partitions(admin, topic).get(0)
        if last is not None and pred(last):
            check(True, what)
            return last
        time.sleep(0.2)
    check(False, "%s (last: %s)" % (what, last))


def same_partition0(c, topic, timeout=30):
    """Waits until every broker's segment bytes of `topic`-0 are the same; whether they are."""
    deadline = time.time() + timeout
    while time.time() < deadline and len({segment_bytes(b, topic, 0) for b in c.brokers}) != 1:
        time.sleep(0.1)
    return len({segment_bytes(b, topic, 0) for b in c.brokers}) == 1


def wait_identical(c, topic, what, timeout=30):
    deadline = time.time() + timeout
    differing = None
    while time.time() < deadline:
        differing = []
        for p in range(PARTITIONS):
            copies = {b.node_id: segment_bytes(b, topic, p) for b in c.brokers}
            if len(set(copies.values())) != 1 or not list(copies.values())[0]:
                differing.append((p, {n: len(v) for n, v in copies.items()}))
        if not differing:
            check(True, what)
            return
        time.sleep(0.3)
    check(False, "%s (differing: %s)" % (what, differing))


with Cluster(binary, brokers=3, overrides={"replica.lag.time.max.ms": str(LAG_MS)}) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic("rep", PARTITIONS, 3, config={"min.insync.replicas": "2"})],
                        request_timeout=30)["rep"].result(timeout=40)
    parts = wait_parts(admin, "rep", lambda ps: all(l >= 0 and len(r) == 3 and len(i) == 3
                                                    for l, r, i in ps.values()),
                       "'rep' has 6 partitions of 3 replicas, all in sync")
    leaders = sorted({l for l, _, _ in parts.values()})
    check(leaders == [1, 2, 3], "leaders spread over the 3 brokers: %s" % leaders)

    acked, failed = produce(c.bootstrap, "rep", 3000, b"a")
    check(len(acked) == 3000 and not failed, "3000 records acknowledged with acks=all (failed: %s)" % failed[:3])
    got = consume_all(c.bootstrap, "rep", len(acked))
    check(sorted(got) == sorted(acked), "a consumer reads exactly the acknowledged records (%d)" % len(got))
    wait_identical(c, "rep", "every follower's segment files are the leader's, byte for byte")

    # Kill -9 a broker leading partitions; the others take over from the ISR.
    victim = c.broker(parts[0][0])
    led = [p for p, (l, _, _) in parts.items() if l == victim.node_id]
    victim.kill()
    wait_parts(admin, "rep", lambda ps: all(l >= 0 and l != victim.node_id for l, _, _ in ps.values()),
               "partitions led by broker %d (%s) have new leaders from the ISR" % (victim.node_id, led),
               timeout=SESSION_MS / 1000 + 20)
    more, failed = produce(c.bootstrap, "rep", 2000, b"b")
    check(len(more) == 2000 and not failed,
          "with broker %d down, 2000 more are acknowledged (failed: %s)" % (victim.node_id, failed[:3]))
    wait_parts(admin, "rep", lambda ps: all(victim.node_id not in i and len(i) == 2 for _, _, i in ps.values()),
               "every ISR drops broker %d" % victim.node_id, timeout=LAG_MS / 1000 + 20)
    under = under_replicated(c)
    check(under == list(range(PARTITIONS)),
          "strata topic --describe --under-replicated-partitions lists all 6: %s" % under)

    # Only one replica left: acks=all refused before anything is written.
    second = next(b for b in c.brokers if b.node_id != victim.node_id)
    second.kill()
    lone = next(b for b in c.brokers if b.node_id not in (victim.node_id, second.node_id))
    # Until the ISR shrinks (replica.lag.time.max.ms) an acks=all produce would wait and
    # time out, as in Kafka; once it has, it is refused before the append.
    wait_parts(admin, "rep", lambda ps: all(l in (lone.node_id, -1) and (l < 0 or i == [lone.node_id])
                                            for l, _, i in ps.values()),
               "with two brokers down, broker %d leads what it can, alone in its ISR" % lone.node_id,
               timeout=SESSION_MS / 1000 + LAG_MS / 1000 + 20)
    solo = Producer({"bootstrap.servers": lone.bootstrap, "acks": "all", "message.timeout.ms": 4000,
                     "retries": 0})
    errors = []
    solo_parts = [p for p, (l, _, _) in partitions(admin, "rep").items() if l == lone.node_id]
    for p in solo_parts:
        solo.produce("rep", value=b"lonely", partition=p, callback=lambda err, msg: errors.append(err))
    solo.flush(15)
    names = sorted({e.name() if e is not None else "OK" for e in errors})
    check(solo_parts and names == ["NOT_ENOUGH_REPLICAS"],
          "acks=all to a partition with 1 of 2 required replicas: %s" % names)
    second.start()
    victim.start()

    wait_parts(admin, "rep", lambda ps: all(l >= 0 and len(i) == 3 for l, _, i in ps.values()),
               "both return, catch up and rejoin every ISR", timeout=60)
    check(under_replicated(c) == [], "and none is under-replicated any more")
    everything = acked + more
    got = consume_all(c.bootstrap, "rep", len(everything))
    missing = set(everything) - set(got)
    check(not missing, "every acknowledged record is there after the failover (%d; missing %d)"
          % (len(everything), len(missing)))
    check(len(got) == len(set(got)), "none is read twice (%d read, %d distinct)" % (len(got), len(set(got))))
    check(b"lonely" not in {v for _, v in got}, "the refused records were not written")
    wait_identical(c, "rep", "all replicas' logs are identical again")

    # Divergence (KIP-101/KIP-279/KIP-320): the leader takes acks=1 records that no
    # follower fetched (both paused), dies, and a follower leads at the next epoch. On
    # its return the old leader truncates exactly those records: its log ends where its
    # epoch ends on the new leader, and the replicas agree byte for byte.
    admin.create_topics([NewTopic("div", 1, 3, config={"min.insync.replicas": "1"})],
                        request_timeout=30)["div"].result(timeout=40)
    deadline = time.time() + 30
    while time.time() < deadline:
        d = partitions(admin, "div")
        if d and d[0][0] >= 0 and len(d[0][2]) == 3:
            break
        time.sleep(0.2)
    old_leader = c.broker(d[0][0])
    followers = [b for b in c.brokers if b is not old_leader]
    base, _ = produce(c.bootstrap, "div", 100, b"base")
    same_partition0(c, "div", timeout=20)
    for f in followers:
        f.pause()
    lost = Producer({"bootstrap.servers": old_leader.bootstrap, "acks": "1", "linger.ms": 0})
    # A follower's fetch parked at the leader before the pause may still carry the first
    # record appended after it (as in Kafka): one "wake" record takes that answer, so the
    # 50 after it reach no follower.
    lost.produce("div", value=b"wake", partition=0)
    lost.flush(5)
    time.sleep(0.5)
    lost_acked = []
    for i in range(50):
        lost.produce("div", value=b"unreplicated-%d" % i, partition=0,
                     callback=lambda err, msg: lost_acked.append(msg.offset()) if err is None else None)
    lost.flush(5)
    old_leader.kill()
    for f in followers:
        f.resume()
    check(len(lost_acked) == 50 and min(lost_acked) == 101,
          "the leader took 50 acks=1 records (offsets %s..%s) its paused followers never fetched"
          % (min(lost_acked or [0]), max(lost_acked or [0])))
    deadline = time.time() + SESSION_MS / 1000 + 20
    while time.time() < deadline:
        d = partitions(admin, "div")
        if d and d[0][0] in [f.node_id for f in followers]:
            break
        time.sleep(0.2)
    check(d[0][0] in [f.node_id for f in followers], "a follower leads 'div' at the next epoch: %s" % (d,))
    after, failed = produce(c.bootstrap, "div", 30, b"after")
    check(len(after) == 30 and not failed, "the new leader takes 30 more (acks=all)")
    old_leader.start()
    deadline = time.time() + 30
    line = []
    while time.time() < deadline and not line:
        line = [l for l in old_leader.log().splitlines() if "div-0: diverged" in l]
        time.sleep(0.2)
    cut = int(line[-1].rsplit(" ", 1)[1]) if line else -1
    check(cut in (100, 101), "the old leader truncated its unreplicated records from offset %d (the new "
          "leader's epoch starts there): %s" % (cut, line[-1:]))
    check(same_partition0(c, "div"), "the three replicas of 'div' are identical")
    values = read_partition0(c.bootstrap, "div", 131)
    kept = [v for _, v in base] + [v for _, v in after] + ([b"wake"] if cut == 101 else [])
    check(sorted(values) == sorted(kept),
          "'div' holds what the ISR has (%d), none of the 50 lost (%d read)" % (len(kept), len(values)))

    # Unclean leader election. Both topics on brokers 1, 2, 3 (1 leads); broker 3 dies and
    # leaves the ISRs; 50 records reach only 1 and 2; 1 and 2 die; 3 returns. 'dirty'
    # (unclean.leader.election.enable=true) elects 3, the only live replica, and loses
    # the 50; 'clean' (the default) stays leaderless until its ISR returns, losing nothing.
    for name, extra in (("dirty", {"unclean.leader.election.enable": "true"}), ("clean", {})):
        admin.create_topics([NewTopic(name, 1, replica_assignment=[[1, 2, 3]],
                                      config=dict({"min.insync.replicas": "1"}, **extra))],
                            request_timeout=30)[name].result(timeout=40)
        wait_partition0(admin, name, lambda s: s[0] == 1 and s[2] == [1, 2, 3], "'%s' led by 1, ISR 1,2,3" % name)
    b1, b2, b3 = c.broker(1), c.broker(2), c.broker(3)
    first = {n: produce(c.bootstrap, n, 100, b"first")[0] for n in ("dirty", "clean")}
    check(all(same_partition0(c, n) for n in ("dirty", "clean")), "100 on each, on all three replicas")
    b3.kill()
    for n in ("dirty", "clean"):
        wait_partition0(admin, n, lambda s: s[2] == [1, 2], "'%s' drops broker 3 from its ISR" % n,
                        timeout=SESSION_MS / 1000 + 20)
    isr_only = {n: produce(c.bootstrap, n, 50, b"isr-only")[0] for n in ("dirty", "clean")}
    check(all(len(v) == 50 for v in isr_only.values()), "50 more acknowledged on each by the ISR {1, 2}")
    b1.kill()
    b2.kill()
    b3.start()
    boot3 = AdminClient({"bootstrap.servers": b3.bootstrap})
    st = wait_partition0(boot3, "dirty", lambda s: s[0] == 3 and s[2] == [3],
                         "'dirty' elects broker 3, outside the ISR, as leader and sole ISR member",
                         timeout=2 * SESSION_MS / 1000 + 20)
    time.sleep(1)
    check(partitions(boot3, "clean").get(0, (None,))[0] == -1,
          "'clean' (unclean election off, Kafka's default) stays leaderless: %s" % (partitions(boot3, "clean"),))
    check("unclean leader election for dirty-0" in b3.log(), "broker 3's controller logs the unclean election")
    later, failed = produce(b3.bootstrap, "dirty", 20, b"later")
    check(len(later) == 20 and not failed, "the unclean leader takes 20 more (acks=all, ISR of 1)")
    b1.start()
    b2.start()
    wait_partition0(admin, "clean", lambda s: s[0] in (1, 2) and s[2] == [1, 2, 3],
                    "'clean' is led from its ISR again and broker 3 catches up into it", timeout=60)
    wait_partition0(admin, "dirty", lambda s: s[0] == 3 and s[2] == [1, 2, 3],
                    "brokers 1 and 2 truncate to the unclean leader's log and rejoin 'dirty''s ISR", timeout=60)
    for n, want in (("dirty", first["dirty"] + later), ("clean", first["clean"] + isr_only["clean"])):
        check(same_partition0(c, n), "the three replicas of '%s' are identical" % n)
        values = read_partition0(c.bootstrap, n, len(want))
        check(sorted(values) == sorted(v for _, v in want),
              "'%s' holds %d records (read %d)%s" % (n, len(want), len(values),
                                                  ": the 50 only the old ISR had are lost, as Kafka"
                                                  if n == "dirty" else ": nothing lost"))
print("OK")
