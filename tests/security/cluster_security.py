#!/usr/bin/python3
"""Issue 17 in a cluster: two brokers on one etcd, each with a PLAINTEXT and a
SASL_PLAINTEXT listener, and the authorizer on (the PLAINTEXT listener's anonymous
principal, which the brokers and tools use, is a super user). A SCRAM user made through
broker 1 logs in at broker 2 (the credential lives in etcd, /config/users/<user>); ACLs
made through broker 1 (etcd, /kafka-acl/...) hold at broker 2; a client on the SASL
listener is given both brokers' SASL endpoints in Metadata (the listener it came in on),
produces to a topic led by either broker and reads it back, and is refused another
topic; an ACL removed through broker 2 stops it at broker 1; a credential deleted
through broker 2 no longer logs in at broker 1. Concurrent changes through both brokers
(ACLs of one resource, SCRAM mechanisms of one user) are all kept: etcd compare-and-swap.
Usage: cluster_security.py PATH/TO/strata"""
import os
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from harness import Cluster  # noqa: E402
from strata_broker import check, free_port  # noqa: E402


def sasl_conf(port, password="carol-secret"):
    return {"bootstrap.servers": "127.0.0.1:%d" % port, "security.protocol": "SASL_PLAINTEXT",
            "sasl.mechanisms": "SCRAM-SHA-512", "sasl.username": "carol", "sasl.password": password}


def acl(binary, bootstrap, *args):
    return subprocess.run([binary, "acl", "--bootstrap-server", bootstrap, *args],
                          capture_output=True, text=True, timeout=60)


def user(binary, bootstrap, *args):
    return subprocess.run([binary, "user", "--bootstrap-server", bootstrap, *args],
                          capture_output=True, text=True, timeout=60)


def check_concurrent_changes(binary, cluster):
    """Changes of the same etcd key through two brokers at once: none may be lost."""
    results = []

    def run(fn, *args):
        results.append(fn(binary, *args).returncode)

    threads = []
    for i in range(8):
        for node, who in ((1, "p"), (2, "q")):
            threads.append(threading.Thread(target=run, args=(
                acl, cluster.broker(node).bootstrap, "--add", "--allow-principal", "User:%s%d" % (who, i),
                "--operation", "Read", "--topic", "race")))
            mech = "SCRAM-SHA-256" if node == 1 else "SCRAM-SHA-512"
            threads.append(threading.Thread(target=run, args=(
                user, cluster.broker(node).bootstrap, "--alter", "--add-config", "%s=[password=pw%d]" % (mech, i),
                "--entity-name", "racer%d" % i)))
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    check(results == [0] * len(threads), "32 concurrent changes through both brokers answered ok")
    listed = acl(binary, cluster.broker(1).bootstrap, "--list", "--topic", "race").stdout
    kept = sum("principal=User:%s%d," % (w, i) in listed for w in "pq" for i in range(8))
    check(kept == 16, "all 16 ACLs of topic race made concurrently through both brokers are kept (%d)" % kept)
    desc = user(binary, cluster.broker(2).bootstrap, "--describe").stdout
    both = sum("user-principal 'racer%d' are SCRAM-SHA-256=iterations=4096, SCRAM-SHA-512=iterations=4096" % i in desc
               for i in range(8))
    check(both == 8, "each racer keeps both mechanisms set concurrently through both brokers (%d of 8)" % both)


def main():
    binary = sys.argv[1]
    sasl_ports = {1: free_port(), 2: free_port()}
    cluster = Cluster(binary, brokers=2, overrides={
        "sasl.enabled.mechanisms": "SCRAM-SHA-512", "inter.broker.listener.name": "PLAINTEXT",
        "offsets.topic.replication.factor": "1", "offsets.topic.num.partitions": "1",
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:ANONYMOUS"})
    for node, port in sasl_ports.items():
        b = cluster.broker(node)
        b.overrides["listeners"] = "PLAINTEXT://%s,SASL_PLAINTEXT://127.0.0.1:%d" % (b.bootstrap, port)
    with cluster:
        cluster.wait_for("2 brokers", lambda brokers, controller, cid: len(brokers) == 2)
        add = user(binary, cluster.broker(1).bootstrap, "--alter", "--add-config",
                   "SCRAM-SHA-512=[password=carol-secret]", "--entity-name", "carol")
        check(add.returncode == 0, "carol's credential made through broker 1: %s%s" % (add.stdout, add.stderr))
        desc = user(binary, cluster.broker(2).bootstrap, "--describe")
        check("user-principal 'carol' are SCRAM-SHA-512=iterations=4096" in desc.stdout,
              "broker 2 describes it: %s" % desc.stdout.strip())
        plain_admin = AdminClient({"bootstrap.servers": cluster.broker(1).bootstrap})
        for f in plain_admin.create_topics([NewTopic("secured", 2, 1), NewTopic("other", 1, 1)]).values():
            f.result(30)
        for args in (["--operation", "Write", "--operation", "Read", "--topic", "secured"],
                     ["--operation", "Read", "--group", "g"]):
            a = acl(binary, cluster.broker(1).bootstrap, "--add", "--allow-principal", "User:carol", *args)
            check(a.returncode == 0, "ACL made through broker 1: %s" % " ".join(args))
        admin = AdminClient(sasl_conf(sasl_ports[2]))
        md = admin.list_topics(timeout=10)
        ports = sorted(b.port for b in md.brokers.values())
        check(ports == sorted(sasl_ports.values()),
              "a client logged in at broker 2 sees both brokers' SASL endpoints %s" % ports)
        check(sorted(md.topics) == ["secured"], "broker 2 shows carol only the topic her ACLs allow: %s" % sorted(md.topics))
        errors = []
        p = Producer(dict(sasl_conf(sasl_ports[2]), error_cb=errors.append))
        for i in range(40):
            p.produce("secured", b"v%d" % i, partition=i % 2)
        check(p.flush(30) == 0 and not errors, "40 records produced over SASL to both brokers' partitions %s" % errors[:2])
        c = Consumer(dict(sasl_conf(sasl_ports[1]), **{"group.id": "g", "auto.offset.reset": "earliest"}))
        c.subscribe(["secured"])
        got, deadline = set(), time.time() + 30
        while len(got) < 40 and time.time() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got.add(m.value())
        c.close()
        check(len(got) == 40, "read back through broker 1's SASL listener (%d of 40)" % len(got))
        errors = []
        p = Producer(dict(sasl_conf(sasl_ports[2]), **{"message.timeout.ms": 5000}))
        p.produce("other", b"x", on_delivery=lambda e, m: e and errors.append(e))
        p.flush(10)
        check(any("TOPIC_AUTHORIZATION_FAILED" in str(e) for e in errors), "broker 2 refuses carol topic other")
        rm = acl(binary, cluster.broker(2).bootstrap, "--remove", "--allow-principal", "User:carol",
                 "--operation", "Write", "--topic", "secured")
        check(rm.returncode == 0, "carol's WRITE removed through broker 2")
        deadline, refused = time.time() + 10, False
        while not refused and time.time() < deadline:
            errors = []
            p = Producer(dict(sasl_conf(sasl_ports[1]), **{"message.timeout.ms": 3000}))
            p.produce("secured", b"late", partition=0, on_delivery=lambda e, m: e and errors.append(e))
            p.flush(6)
            refused = any("TOPIC_AUTHORIZATION_FAILED" in str(e) for e in errors)
        check(refused, "broker 1 refuses carol's writes once the ACL is gone")
        rm = user(binary, cluster.broker(2).bootstrap, "--alter", "--delete-config", "SCRAM-SHA-512",
                  "--entity-name", "carol")
        check(rm.returncode == 0, "deleted through broker 2")
        errors = []
        p = Producer(dict(sasl_conf(sasl_ports[1]), error_cb=errors.append, **{"message.timeout.ms": 4000}))
        p.produce("secured", b"late")
        p.flush(8)
        check(any("Authentication failed" in str(e) for e in errors),
              "broker 1 refuses carol at once: %s" % (errors[:1],))
        check_concurrent_changes(binary, cluster)
    print("cluster security: all checks passed")


if __name__ == "__main__":
    main()
