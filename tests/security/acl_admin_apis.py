#!/usr/bin/python3
"""Issue 17: Kafka's ACL checks of the administrative APIs and the authorized-operations
bit fields, against a real broker with the authorizer on.

alice (SASL PLAIN) keeps a transaction open on topic `a` (transactional id `ta`). bob logs
in through the strata tools' --command-config and through raw requests:
- ListTransactions lists only the ids he may DESCRIBE; DescribeTransactions needs DESCRIBE
  on the id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED) and leaves out topics he may not
  DESCRIBE; DescribeProducers needs READ on the topic (TOPIC_AUTHORIZATION_FAILED);
- ListPartitionReassignments (DESCRIBE on the cluster), ElectLeaders and
  AlterPartitionReassignments (ALTER on the cluster): CLUSTER_AUTHORIZATION_FAILED, then
  served once he has them; DescribeLogDirs answers no directories without DESCRIBE on the
  cluster (v1) or CLUSTER_AUTHORIZATION_FAILED (v3), his directory with it;
- Metadata v8 (topic and cluster), DescribeCluster and DescribeGroups v3 report exactly the
  operations his ACLs allow as Kafka's bit fields.
Usage: acl_admin_apis.py PATH/TO/strata"""
import os
import socket
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from acl_broker import acl_broker  # noqa: E402
from strata_broker import check, read_frame  # noqa: E402

READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE = 3, 4, 5, 6, 7, 8
CLUSTER_AUTHORIZATION_FAILED = 31


def bits(*ops):
    return sum(1 << op for op in ops)


# ---- raw requests over an authenticated SASL PLAIN connection ----------------------------

def string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


class Raw:
    def __init__(self, port, user):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.corr = 0
        r = self.call(17, 1, string("PLAIN"))
        check(struct.unpack_from(">h", r)[0] == 0, "raw SaslHandshake as %s" % user)
        token = b"\0" + user.encode() + b"\0" + (user + "-secret").encode()
        r = self.call(36, 0, struct.pack(">i", len(token)) + token)
        check(struct.unpack_from(">h", r)[0] == 0, "raw SaslAuthenticate as %s" % user)

    def call(self, key, version, body, flexible=False):
        """The response body; request header v2 and response header v1 when `flexible`."""
        self.corr += 1
        frame = struct.pack(">hhi", key, version, self.corr) + string("acl-admin") + (b"\0" if flexible else b"") + body
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        r = read_frame(self.sock)
        check(struct.unpack_from(">i", r)[0] == self.corr, "correlation id")
        return r[5:] if flexible else r[4:]

    def metadata_v8(self, topic):
        """(topic error, topic authorized operations, cluster authorized operations)."""
        body = struct.pack(">i", 1) + string(topic) + struct.pack(">???", False, True, True)
        r, at = self.call(3, 8, body), 4  # throttle
        (count,) = struct.unpack_from(">i", r, at)
        at += 4
        for _ in range(count):  # node, host, port, rack
            at += 4
            (n,) = struct.unpack_from(">h", r, at)
            at += 2 + n + 4
            (n,) = struct.unpack_from(">h", r, at)
            at += 2 + max(n, 0)
        (n,) = struct.unpack_from(">h", r, at)
        at += 2 + max(n, 0) + 4  # cluster id, controller
        (count,) = struct.unpack_from(">i", r, at)
        check(count == 1, "one topic in Metadata")
        error, = struct.unpack_from(">h", r, at + 4)
        at += 6
        (n,) = struct.unpack_from(">h", r, at)
        at += 2 + n + 1  # name, is_internal
        (parts,) = struct.unpack_from(">i", r, at)
        at += 4
        for _ in range(parts):
            at += 2 + 4 + 4 + 4
            for _ in range(3):  # replicas, isr, offline
                (n,) = struct.unpack_from(">i", r, at)
                at += 4 + 4 * n
        topic_ops, cluster_ops = struct.unpack_from(">ii", r, at)
        return error, topic_ops, cluster_ops

    def describe_cluster(self):
        r = self.call(60, 0, struct.pack(">?", True) + b"\0", flexible=True)
        # throttle, error, ..., cluster_authorized_operations, tagged fields
        error, = struct.unpack_from(">h", r, 4)
        return error, struct.unpack_from(">i", r, len(r) - 5)[0]

    def describe_group_v3(self, group):
        """(error, authorized operations) of a group without members. (kafka-python 2.0.2's
        DescribeGroups v3 schema lacks the field, so this is asked by hand.)"""
        r = self.call(15, 3, struct.pack(">i", 1) + string(group) + struct.pack(">?", True))
        at = 8  # throttle, group count
        error, = struct.unpack_from(">h", r, at)
        at += 2
        for _ in range(4):  # group id, state, protocol type, protocol
            (n,) = struct.unpack_from(">h", r, at)
            at += 2 + max(n, 0)
        (members,) = struct.unpack_from(">i", r, at)
        check(members == 0, "no members in %s" % group)
        return error, struct.unpack_from(">i", r, at + 4)[0]

    def describe_log_dirs(self, version):
        """(top-level error or None, number of log dirs)."""
        if version >= 2:
            r = self.call(35, version, b"\0" + b"\0", flexible=True)  # null topics (compact), tags
            error = struct.unpack_from(">h", r, 4)[0] if version >= 3 else None
            at = 4 + (2 if version >= 3 else 0)
            count = r[at] - 1
            return error, count
        r = self.call(35, version, struct.pack(">i", -1))
        return None, struct.unpack_from(">i", r, 4)[0]


# ---- the tools as bob ---------------------------------------------------------------------

def tool(strata, config, bootstrap, *args):
    p = subprocess.run([strata, *args, "--bootstrap-server", bootstrap, "--command-config", config],
                       capture_output=True, text=True, timeout=60)
    return p.returncode, p.stdout + p.stderr


def main():
    strata = sys.argv[1]
    broker, sasl_port = acl_broker(strata, **{"transaction.state.log.num.partitions": "1"})
    sasl = "127.0.0.1:%d" % sasl_port
    work = tempfile.mkdtemp(prefix="strata-acl-admin-")
    bob = os.path.join(work, "bob.properties")
    with open(bob, "w") as f:
        f.write("security.protocol=SASL_PLAINTEXT\nsasl.mechanism=PLAIN\n"
                'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required '
                'username="bob" password="bob-secret";\n')

    def acl(*args):
        p = subprocess.run([strata, "acl", "--bootstrap-server", broker.bootstrap, "--add", *args],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "strata acl --add %s" % " ".join(args))

    with broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        for f in admin.create_topics([NewTopic("a", 1, 1)]).values():
            f.result(30)
        acl("--allow-principal", "User:alice", "--operation", "All", "--topic", "a")
        acl("--allow-principal", "User:alice", "--operation", "Write", "--transactional-id", "ta")
        alice = Producer({"bootstrap.servers": sasl, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
                          "sasl.username": "alice", "sasl.password": "alice-secret", "transactional.id": "ta"})
        alice.init_transactions(30)
        alice.begin_transaction()
        alice.produce("a", b"open", partition=0)
        check(alice.flush(30) == 0, "alice's transaction on a is open")

        rc, out = tool(strata, bob, sasl, "txn", "list")
        check(rc == 0 and "ta" not in out.split(), "ListTransactions leaves out ids bob may not DESCRIBE: %s" % out.strip())
        rc, out = tool(strata, bob, sasl, "txn", "describe", "--transactional-id", "ta")
        check(rc != 0 and "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" in out, "DescribeTransactions: %s" % out.strip())
        rc, out = tool(strata, bob, sasl, "txn", "describe-producers", "--topic", "a", "--partition", "0")
        check(rc != 0 and "TOPIC_AUTHORIZATION_FAILED" in out, "DescribeProducers without READ: %s" % out.strip())
        rc, out = tool(strata, bob, sasl, "reassign-partitions", "--list")
        check(rc != 0 and "CLUSTER_AUTHORIZATION_FAILED" in out, "ListPartitionReassignments: %s" % out.strip())
        rc, out = tool(strata, bob, sasl, "leader-election", "--election-type", "PREFERRED", "--all-topic-partitions")
        check(rc != 0 and "CLUSTER_AUTHORIZATION_FAILED" in out, "ElectLeaders: %s" % out.strip())
        raw = Raw(sasl_port, "bob")
        check(raw.describe_log_dirs(1) == (None, 0), "DescribeLogDirs v1 without DESCRIBE on the cluster: no dirs")
        check(raw.describe_log_dirs(3) == (CLUSTER_AUTHORIZATION_FAILED, 0), "DescribeLogDirs v3: the error")
        error, topic_ops, cluster_ops = raw.metadata_v8("a")
        check(error == 29 and cluster_ops == 0, "Metadata v8 without ACLs: TOPIC_AUTHORIZATION_FAILED, no cluster ops")

        acl("--allow-principal", "User:bob", "--operation", "Describe", "--transactional-id", "ta")
        rc, out = tool(strata, bob, sasl, "txn", "list")
        check(rc == 0 and "ta" in out.split(), "ListTransactions lists ta once bob may DESCRIBE it")
        rc, out = tool(strata, bob, sasl, "txn", "describe", "--transactional-id", "ta")
        check(rc == 0 and "Ongoing" in out and "a-0" not in out,
              "DescribeTransactions shows ta but not topic a (no DESCRIBE on it): %s" % out.strip())
        acl("--allow-principal", "User:bob", "--operation", "Describe", "--operation", "DescribeConfigs",
            "--topic", "a")
        rc, out = tool(strata, bob, sasl, "txn", "describe", "--transactional-id", "ta")
        check(rc == 0 and "a-0" in out, "... and topic a once bob may DESCRIBE it: %s" % out.strip())
        rc, out = tool(strata, bob, sasl, "txn", "describe-producers", "--topic", "a", "--partition", "0")
        check(rc != 0 and "TOPIC_AUTHORIZATION_FAILED" in out, "DescribeProducers needs READ, not DESCRIBE")
        error, topic_ops, cluster_ops = raw.metadata_v8("a")
        check(error == 0 and topic_ops == bits(DESCRIBE, 10) and cluster_ops == 0,
              "Metadata v8: bob's topic operations are DESCRIBE and DESCRIBE_CONFIGS (%#x)" % topic_ops)
        acl("--allow-principal", "User:bob", "--operation", "Read", "--topic", "a")
        rc, out = tool(strata, bob, sasl, "txn", "describe-producers", "--topic", "a", "--partition", "0")
        check(rc == 0 and "ProducerId" in out and len(out.strip().splitlines()) == 2,
              "DescribeProducers with READ shows alice's producer: %s" % out.strip())

        acl("--allow-principal", "User:bob", "--operation", "Describe", "--operation", "Alter", "--cluster")
        rc, out = tool(strata, bob, sasl, "reassign-partitions", "--list")
        check(rc == 0, "ListPartitionReassignments with DESCRIBE on the cluster: %s" % out.strip())
        rc, out = tool(strata, bob, sasl, "leader-election", "--election-type", "PREFERRED", "--all-topic-partitions")
        check("CLUSTER_AUTHORIZATION_FAILED" not in out, "ElectLeaders with ALTER on the cluster: %s" % out.strip())
        check(raw.describe_log_dirs(1)[1] == 1 and raw.describe_log_dirs(3) == (0, 1),
              "DescribeLogDirs with DESCRIBE on the cluster: the broker's one directory")
        error, topic_ops, cluster_ops = raw.metadata_v8("a")
        check(topic_ops == bits(READ, DESCRIBE, 10) and cluster_ops == bits(ALTER, DESCRIBE),
              "Metadata v8: topic %#x, cluster %#x as bob's ACLs allow" % (topic_ops, cluster_ops))
        error, ops = raw.describe_cluster()
        check(error == 0 and ops == bits(ALTER, DESCRIBE), "DescribeCluster: cluster operations %#x" % ops)

        acl("--allow-principal", "User:bob", "--operation", "Read", "--operation", "Describe", "--group", "g")
        error, ops = raw.describe_group_v3("g")
        check(error == 0 and ops == bits(READ, DESCRIBE), "DescribeGroups v3: group operations %#x = READ|DESCRIBE" % ops)
        error, ops = raw.describe_group_v3("h")
        check(error == 30, "DescribeGroups of a group bob may not DESCRIBE: GROUP_AUTHORIZATION_FAILED")
        alice.abort_transaction(30)
    print("ACLs of the admin APIs and authorized operations: all checks passed")


if __name__ == "__main__":
    main()
