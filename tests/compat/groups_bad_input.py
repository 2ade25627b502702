#!/usr/bin/python3
"""Bad group requests against a real Strata broker, encoded by kafka-python's protocol
classes (an independent implementation): commits for unknown partitions, stale
generations and unknown members, oversized offset metadata and group metadata, bad
session timeouts, mismatched protocols, coordinator lookups for keys this broker does
not coordinate, deleting a group with members. Each gets Kafka's error code, and the
group's state and committed offsets are intact afterwards.
Usage: groups_bad_input.py PATH/TO/strata"""
import socket
import struct
import sys
import time

from kafka.protocol import admin, commit, group
from kafka.protocol.parser import KafkaProtocol
from confluent_kafka.admin import AdminClient, NewTopic

from strata_broker import StrataBroker, check

NONE, UNKNOWN_SERVER_ERROR, UNKNOWN_TOPIC_OR_PARTITION = 0, -1, 3
OFFSET_METADATA_TOO_LARGE, COORDINATOR_NOT_AVAILABLE = 12, 15
ILLEGAL_GENERATION, INCONSISTENT_GROUP_PROTOCOL, INVALID_GROUP_ID = 22, 23, 24
UNKNOWN_MEMBER_ID, INVALID_SESSION_TIMEOUT, REBALANCE_IN_PROGRESS = 25, 26, 27
NON_EMPTY_GROUP, GROUP_ID_NOT_FOUND = 68, 69


class Conn:
    def __init__(self, bootstrap):
        host, port = bootstrap.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=15)
        self.proto = KafkaProtocol(client_id="groups-bad-input")

    def call(self, request):
        self.proto.send_request(request)
        self.sock.sendall(self.proto.send_bytes())
        while True:
            data = self.sock.recv(1 << 20)
            if not data:
                raise AssertionError("connection closed")
            responses = self.proto.receive_bytes(data)
            if responses:
                return responses[0][1]


def find_coordinator_v1_error(bootstrap, key, key_type):
    host, port = bootstrap.split(":")
    with socket.create_connection((host, int(port)), timeout=15) as sock:
        client = b"x"
        body = (struct.pack(">hhih", 10, 1, 7, len(client)) + client +
                struct.pack(">h", len(key)) + key.encode() + struct.pack(">b", key_type))
        sock.sendall(struct.pack(">i", len(body)) + body)
        data = b""
        while len(data) < 4 + 4 + 4 + 2:
            chunk = sock.recv(4096)
            if not chunk:
                raise AssertionError("connection closed")
            data += chunk
        # size, correlation id, throttle_time_ms, error_code
        return struct.unpack(">h", data[12:14])[0]


def commit_v2(conn, grp, generation, member, topic, partition, offset, metadata=""):
    r = conn.call(commit.OffsetCommitRequest_v2(grp, generation, member, -1,
                                                [(topic, [(partition, offset, metadata)])]))
    return r.topics[0][1][0][1]


def fetch_v2(conn, grp, topic, partition):
    r = conn.call(commit.OffsetFetchRequest_v2(grp, [(topic, [partition])]))
    return r.topics[0][1][0][1]


def join_v2(conn, grp, member="", session=10000, ptype="consumer", metadata=b"m"):
    return conn.call(group.JoinGroupRequest_v2(grp, session, 10000, member, ptype,
                                               [("range", metadata)]))


def main():
    with StrataBroker(sys.argv[1], {"group.initial.rebalance.delay.ms": "0"}) as broker:
        admin_client = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin_client.create_topics([NewTopic("t", 2, 1)])["t"].result(20)
        c = Conn(broker.bootstrap)
        fc = c.call(commit.GroupCoordinatorRequest_v0("g"))
        check(fc.error_code == NONE and fc.coordinator_id == 1, "FindCoordinator(group) is this node")
        # kafka-python's FindCoordinator v1 response lacks Kafka's throttle_time_ms: by hand.
        check(find_coordinator_v1_error(broker.bootstrap, "txn", 1) == NONE,
              "FindCoordinator(transaction) is this node")
        check(find_coordinator_v1_error(broker.bootstrap, "share", 2) == COORDINATOR_NOT_AVAILABLE,
              "FindCoordinator(share group) -> COORDINATOR_NOT_AVAILABLE (no share groups)")

        # A simple consumer's commits (generation -1).
        check(commit_v2(c, "g", -1, "", "t", 0, 5) == NONE, "simple commit -> NONE")
        check(commit_v2(c, "g", -1, "", "nope", 0, 5) == UNKNOWN_TOPIC_OR_PARTITION,
              "commit to an unknown topic -> UNKNOWN_TOPIC_OR_PARTITION")
        check(commit_v2(c, "g", -1, "", "t", 7, 5) == UNKNOWN_TOPIC_OR_PARTITION,
              "commit to an unknown partition -> UNKNOWN_TOPIC_OR_PARTITION")
        check(commit_v2(c, "g", -1, "", "t", 0, 9, "x" * 5000) == OFFSET_METADATA_TOO_LARGE,
              "5000 bytes of offset metadata -> OFFSET_METADATA_TOO_LARGE")
        check(commit_v2(c, "g", 3, "someone", "t", 0, 9) == UNKNOWN_MEMBER_ID,
              "commit with a generation to a group without members -> UNKNOWN_MEMBER_ID")
        check(commit_v2(c, "fresh", 3, "someone", "t", 0, 9) == ILLEGAL_GENERATION,
              "commit with a generation to an unknown group -> ILLEGAL_GENERATION")
        check(fetch_v2(c, "g", "t", 0) == 5, "the group's committed offset is still 5")

        # A managed group: one member, generation 1, Stable.
        j = join_v2(c, "m")
        check(j.error_code == NONE and j.generation_id == 1, "JoinGroup v2 -> generation 1")
        member = j.member_id
        s = c.call(group.SyncGroupRequest_v1("m", 1, member, [(member, b"assignment")]))
        check(s.error_code == NONE and s.member_assignment == b"assignment", "SyncGroup -> assignment")
        check(commit_v2(c, "m", 1, member, "t", 1, 42) == NONE, "member commit -> NONE")
        check(commit_v2(c, "m", 0, member, "t", 1, 43) == ILLEGAL_GENERATION,
              "commit with a stale generation -> ILLEGAL_GENERATION")
        check(commit_v2(c, "m", 1, "ghost", "t", 1, 43) == UNKNOWN_MEMBER_ID,
              "commit from an unknown member -> UNKNOWN_MEMBER_ID")
        check(commit_v2(c, "m", -1, "", "t", 1, 43) == UNKNOWN_MEMBER_ID,
              "a simple commit to a group with members -> UNKNOWN_MEMBER_ID")
        hb = c.call(group.HeartbeatRequest_v1("m", 0, member))
        check(hb.error_code == ILLEGAL_GENERATION, "heartbeat with a stale generation -> ILLEGAL_GENERATION")
        hb = c.call(group.HeartbeatRequest_v1("m", 1, "ghost"))
        check(hb.error_code == UNKNOWN_MEMBER_ID, "heartbeat from an unknown member -> UNKNOWN_MEMBER_ID")
        hb = c.call(group.HeartbeatRequest_v1("", 1, member))
        check(hb.error_code == INVALID_GROUP_ID, "heartbeat with an empty group id -> INVALID_GROUP_ID")
        s = c.call(group.SyncGroupRequest_v1("m", 7, member, []))
        check(s.error_code == ILLEGAL_GENERATION, "SyncGroup with a wrong generation -> ILLEGAL_GENERATION")
        other = join_v2(c, "m", ptype="connect")
        check(other.error_code == INCONSISTENT_GROUP_PROTOCOL,
              "a join with another protocol type -> INCONSISTENT_GROUP_PROTOCOL")
        short = join_v2(c, "m", session=10)
        check(short.error_code == INVALID_SESSION_TIMEOUT,
              "a 10 ms session timeout -> INVALID_SESSION_TIMEOUT")
        d = c.call(admin.DeleteGroupsRequest_v1(["m", "nobody"]))
        codes = dict(d.results)
        check(codes == {"m": NON_EMPTY_GROUP, "nobody": GROUP_ID_NOT_FOUND},
              "DeleteGroups -> NON_EMPTY_GROUP for a group with members, GROUP_ID_NOT_FOUND for none")

        # Group metadata too large for one record (over message.max.bytes): the leader's
        # SyncGroup fails as Kafka's does and nothing partial is stored.
        big = join_v2(c, "big", metadata=b"x" * 1200000)
        check(big.error_code == NONE, "a join with 1.2 MB of metadata is accepted")
        s = c.call(group.SyncGroupRequest_v1("big", big.generation_id, big.member_id,
                                             [(big.member_id, b"a")]))
        check(s.error_code == UNKNOWN_SERVER_ERROR,
              "its group record is too large to store -> SyncGroup UNKNOWN_SERVER_ERROR (%d)" % s.error_code)

        # Everything above left the good state alone.
        hb = c.call(group.HeartbeatRequest_v1("m", 1, member))
        check(hb.error_code == NONE, "the member of group m is still in generation 1")
        dg = c.call(admin.DescribeGroupsRequest_v1(["m"]))
        state = dg.groups[0][2]
        check(state == "Stable", "group m is still Stable (%s)" % state)
        check(fetch_v2(c, "m", "t", 1) == 42, "group m's committed offset is still 42")
        check(fetch_v2(c, "g", "t", 0) == 5, "group g's committed offset is still 5")
        broker.restart()
        c = Conn(broker.bootstrap)
        check(fetch_v2(c, "m", "t", 1) == 42 and fetch_v2(c, "g", "t", 0) == 5,
              "after a restart the committed offsets are the good ones")
    retention(sys.argv[1])


def retention(strata):
    """offsets.retention.minutes: a group without members loses its offsets, and then
    itself, once they are older than the retention (0 minutes here, checked every
    500 ms, so it happens within a second); a group with members keeps its offsets."""
    overrides = {"group.initial.rebalance.delay.ms": "0", "offsets.retention.minutes": "0",
                 "offsets.retention.check.interval.ms": "500"}
    with StrataBroker(strata, overrides) as broker:
        admin_client = AdminClient({"bootstrap.servers": broker.bootstrap})
        admin_client.create_topics([NewTopic("t", 1, 1)])["t"].result(20)
        c = Conn(broker.bootstrap)
        j = join_v2(c, "active")
        c.call(group.SyncGroupRequest_v1("active", 1, j.member_id, [(j.member_id, b"")]))
        check(commit_v2(c, "active", 1, j.member_id, "t", 0, 7) == NONE, "an active member commits")
        check(commit_v2(c, "simple", -1, "", "t", 0, 3) == NONE, "a simple consumer commits")
        time.sleep(2)
        c.call(group.HeartbeatRequest_v1("active", 1, j.member_id))
        check(fetch_v2(c, "simple", "t", 0) == -1, "the simple group's offset expired")
        listed = [g[0] for g in c.call(admin.ListGroupsRequest_v1()).groups]
        check("simple" not in listed and "active" in listed,
              "the expired group is gone, the active one stays: %s" % listed)
        check(fetch_v2(c, "active", "t", 0) == 7, "the active group's offset is kept")
        broker.restart()
        c = Conn(broker.bootstrap)
        check(fetch_v2(c, "simple", "t", 0) == -1, "the expiry is durable (tombstones replayed)")


if __name__ == "__main__":
    main()
