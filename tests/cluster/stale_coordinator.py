"""Issue 16's anomaly of 2026-12-06 (faults.txn seed 1035128076: commit-backwards,
processed-twice): a group coordinator cut from etcd, but not from its clients, kept
answering OffsetFetch from its own state after etcd had expired its session and another
broker had become the coordinator and taken newer commits. The processor, rewinding to
its committed offsets through the old coordinator, got offsets from before them and
processed records twice.

3 brokers on 1 etcd; broker 3 reaches etcd only through a TCP proxy. A group whose
coordinator is broker 3 commits offset 5; the proxy is killed (broker 3 cut from etcd,
still serving clients); once the others' view shows another leader of the group's
__consumer_offsets partition, the group commits 10 there. Broker 3, asked directly
(OffsetFetch v2), must answer NOT_COORDINATOR, never the stale 5: a broker whose etcd
session may have expired does not act as a coordinator. The proxy comes back; broker 3
registers again and answers NOT_COORDINATOR as a follower.

The same cut, for a partition broker 3 led (issue 16's stale_leader_out_of_range, faults.txn
seed 556573946 of 2026-12-07: a verifier's offset reset to 0): "led" on [3, 1] holds 5
records when broker 3 is cut off; broker 1 leads it next and takes 5 more. Broker 3, its
view still naming itself the leader, is asked (Fetch v4) for offset 8, past its own log
end: NOT_LEADER_OR_FOLLOWER, which sends the client to look for the leader, not
OFFSET_OUT_OF_RANGE, which made librdkafka reset its position to the earliest offset.

    stale_coordinator.py STRATA_BINARY
"""
import os
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import Cluster, call, find_coordinator, string  # noqa: E402
from replicas import create_placed, produce_acked as produce  # noqa: E402
from strata_broker import check, free_port  # noqa: E402
from confluent_kafka import Consumer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

PROXY = os.path.join(os.path.dirname(__file__), "..", "faults", "delay_proxy.py")
TOPIC = "fenced"
NOT_COORDINATOR = 16
LED = "led"


def fetch_error(bootstrap, topic, offset):
    """Fetch v4 (read_committed) of `topic`-0 at `offset` asked of one broker: its error."""
    body = struct.pack(">iiiib", -1, 100, 1, 1 << 20, 1) + struct.pack(">i", 1) + string(topic)
    body += struct.pack(">i", 1) + struct.pack(">iqi", 0, offset, 1 << 20)
    r = call(bootstrap, 1, 4, body)
    r.int32()  # throttle
    r.int32()  # topics: one
    r.string()
    r.int32()  # partitions: one
    r.int32()
    return r.take(">h")


def start_proxy(listen_port, etcd):
    host, port = etcd.split(":")
    p = subprocess.Popen([sys.executable, PROXY, "127.0.0.1", str(listen_port), host, port, "0", "0"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    check(p.stdout.readline().strip() == "ready", "the etcd proxy is up")
    return p


def offset_fetch(bootstrap, group):
    """OffsetFetch v2 of TOPIC-0 asked of one broker: (error, offset); the error is the
    response's (NOT_COORDINATOR...) or else the partition's."""
    body = string(group) + struct.pack(">i", 1) + string(TOPIC) + struct.pack(">ii", 1, 0)
    r = call(bootstrap, 9, 2, body)
    error, offset = 0, -1
    for _ in range(r.int32()):  # topics
        r.string()
        for _ in range(r.int32()):  # partitions
            r.int32()
            offset = r.take(">q")
            r.string()  # metadata
            error = r.take(">h")
    top = r.take(">h")
    return (top or error), offset


def commit(bootstrap, group, offset):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition(TOPIC, 0, offset)], asynchronous=False)
    c.close()


def offsets_leader(c, bootstrap, partition):
    states = c.partition_states(bootstrap, "__consumer_offsets") or {}
    return states.get(partition, (-1,))[0]


def main():
    with Cluster(sys.argv[1], brokers=2, etcd_members=1) as c:
        proxy_port = free_port()
        proxy = start_proxy(proxy_port, c.etcd[0].endpoint)
        b3 = c.new_broker(3, etcd_connect="127.0.0.1:%d/strata" % proxy_port)
        c.brokers.append(b3)
        b3.start()
        c.wait_for("three brokers", lambda brokers, *_: len(brokers) == 3)
        others = ",".join(b.bootstrap for b in c.brokers[:2])
        admin = AdminClient({"bootstrap.servers": others})
        for f in admin.create_topics([NewTopic(TOPIC, 1, 1)]).values():
            f.result()
        create_placed(admin, [NewTopic(LED, 1, replica_assignment=[[3, 1]])])
        deadline = time.time() + 30
        while (c.partition_states(c.brokers[0].bootstrap, LED) or {}).get(0, (-1, [], []))[2] != [1, 3]:
            check(time.time() < deadline, "%s-0 led by broker 3 with broker 1 in sync" % LED)
            time.sleep(0.2)
        produce(others, LED, ["a%d" % i for i in range(5)])
        group, deadline = None, time.time() + 30
        while group is None and time.time() < deadline:  # a group broker 3 coordinates
            for i in range(200):
                error, node = find_coordinator(c.brokers[0].bootstrap, "g%d" % i, 0)
                if error == 0 and node == 3:
                    group = "g%d" % i
                    break
            else:
                time.sleep(0.5)
        check(group is not None, "a group coordinated by broker 3")
        commit(others, group, 5)
        check(offset_fetch(b3.bootstrap, group) == (0, 5), "broker 3 has the group's offset 5")
        h = 0
        for ch in group:
            h = (31 * h + ord(ch)) & 0xFFFFFFFF
        partition = abs(h - (1 << 32) if h >= 1 << 31 else h) % 50

        proxy.kill()
        proxy.wait()
        deadline = time.time() + 30
        while offsets_leader(c, c.brokers[0].bootstrap, partition) in (3, -1):
            check(time.time() < deadline, "another broker leads __consumer_offsets-%d" % partition)
            time.sleep(0.2)
        commit(others, group, 10)
        check(10 in [offset_fetch(b.bootstrap, group)[1] for b in c.brokers[:2]], "the new coordinator has offset 10")
        for _ in range(10):  # while broker 3 is cut off, every answer of it refuses
            error, offset = offset_fetch(b3.bootstrap, group)
            check(error == NOT_COORDINATOR, "broker 3, cut from etcd, answers NOT_COORDINATOR (got %d, offset %d)"
                  % (error, offset))
            time.sleep(0.2)
        while (c.partition_states(c.brokers[0].bootstrap, LED) or {}).get(0, (-1,))[0] != 1:
            check(time.time() < deadline + 30, "broker 1 leads %s-0" % LED)
            time.sleep(0.2)
        produce(others, LED, ["b%d" % i for i in range(5)])
        check((c.partition_states(b3.bootstrap, LED) or {}).get(0, (-1,))[0] == 3,
              "broker 3's own view still names itself the leader of %s-0" % LED)
        error = fetch_error(b3.bootstrap, LED, 8)
        check(error == 6, "broker 3, cut off, asked for offset 8 of %s-0 past its log end 5: NOT_LEADER_OR_FOLLOWER "
              "(6), not OFFSET_OUT_OF_RANGE (1): %d" % (LED, error))
        check(fetch_error(c.brokers[0].bootstrap, LED, 8) == 0, "broker 1, the leader, serves offset 8")

        proxy = start_proxy(proxy_port, c.etcd[0].endpoint)
        try:
            deadline = time.time() + 30
            while "registered as broker 3" not in b3.log().split("session expired")[-1]:
                check(time.time() < deadline, "broker 3 registers again")
                time.sleep(0.2)
            time.sleep(1)
            check(offset_fetch(b3.bootstrap, group)[0] == NOT_COORDINATOR,
                  "back in etcd, broker 3 is a follower of the group's partition: NOT_COORDINATOR")
        finally:
            proxy.kill()
            proxy.wait()
    print("stale coordinator: OK")


if __name__ == "__main__":
    main()
