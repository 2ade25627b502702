#!/usr/bin/python3
"""Issue 17: a cluster whose own traffic is secured, and the tools' --command-config.

Three brokers on one etcd, each with two listeners and no PLAINTEXT at all:
  INTERNAL  SASL_SSL, PLAIN (and SCRAM-SHA-256): inter.broker.listener.name, the brokers log
            in to each other as User:broker; the admin tools log in as User:admin
  CLIENT    SSL with ssl.client.auth=required: alice's certificate is her principal
The authorizer is on with super.users=User:broker;User:admin, and sessions expire after
connections.max.reauth.ms=4000, so long-lived inter-broker connections must log in again.

Checked: the brokers see each other (replica fetchers and the inter-broker channel over
SASL_SSL); `strata topic/acl/user/group` with --command-config over SASL_SSL (PLAIN, then
SCRAM-SHA-256 for a user they made); a replicated topic with every ISR full; alice (mTLS)
commits a transaction over the three leaders (WriteTxnMarkers sent broker to broker) with
acks=all and reads it back read_committed, also after the sessions expired several times;
wrong passwords and an untrusted broker certificate are refused with clear errors; the
name "localhost" matches the certificate's DNS name. Usage: inter_broker.py PATH/TO/strata"""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "cluster"))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Consumer, Producer  # noqa: E402

from certs import Certs  # noqa: E402
from harness import Cluster  # noqa: E402
from strata_broker import check, free_port  # noqa: E402

JAAS = ('org.apache.kafka.common.security.plain.PlainLoginModule required username="broker" '
        'password="broker-secret" user_broker="broker-secret" user_admin="admin-secret";')
SCRAM_JAAS = ('org.apache.kafka.common.security.scram.ScramLoginModule required username="broker" '
              'password="unused";')
ALICE = "User:CN=alice,OU=Clients,O=Strata"


def write_config(directory, name, lines):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def tool(binary, config, *args, timeout=60):
    p = subprocess.run([binary, *args, "--command-config", config], capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def alice_conf(certs, bootstrap):
    return {"bootstrap.servers": bootstrap, "security.protocol": "SSL", "ssl.ca.location": certs.ca,
            "ssl.certificate.location": certs.client_cert, "ssl.key.location": certs.client_key}


def wait_isr(binary, config, bootstrap, topic, timeout=30):
    deadline, out = time.time() + timeout, ""
    while time.time() < deadline:
        rc, out = tool(binary, config, "topic", "--bootstrap-server", bootstrap, "--describe", "--topic", topic)
        isrs = [line.split("Isr:")[1].split()[0] for line in out.splitlines() if "Isr:" in line]
        if rc == 0 and len(isrs) == 3 and all(sorted(i.split(",")) == ["1", "2", "3"] for i in isrs):
            return out
        time.sleep(0.5)
    check(False, "every ISR of %s is 1,2,3 (last: %s)" % (topic, out))


def transaction(certs, bootstrap, txn_id, values):
    p = Producer(dict(alice_conf(certs, bootstrap), **{"transactional.id": txn_id, "acks": "all"}))
    p.init_transactions(30)
    p.begin_transaction()
    for i, v in enumerate(values):
        p.produce("secured", v, partition=i % 3)
    p.commit_transaction(30)
    p.flush(10)


def read_committed(certs, bootstrap, group, want):
    c = Consumer(dict(alice_conf(certs, bootstrap), **{
        "group.id": group, "auto.offset.reset": "earliest", "isolation.level": "read_committed"}))
    c.subscribe(["secured"])
    got, deadline = set(), time.time() + 40
    while len(got) < want and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.add(m.value())
    c.close()
    return got


def main():
    binary = sys.argv[1]
    work = tempfile.mkdtemp(prefix="strata-interbroker-")
    certs = Certs(os.path.join(work, "certs"))
    client_ports = {n: free_port() for n in (1, 2, 3)}
    cluster = Cluster(binary, brokers=3, overrides={
        "listener.security.protocol.map": "INTERNAL:SASL_SSL,CLIENT:SSL",
        "inter.broker.listener.name": "INTERNAL",
        "sasl.mechanism.inter.broker.protocol": "PLAIN",
        "sasl.enabled.mechanisms": "PLAIN,SCRAM-SHA-256",
        "listener.name.internal.plain.sasl.jaas.config": JAAS,
        "listener.name.internal.scram-sha-256.sasl.jaas.config": SCRAM_JAAS,
        "listener.name.client.ssl.client.auth": "required",
        "ssl.keystore.type": "PEM", "ssl.keystore.location": certs.server_pem,
        "ssl.truststore.type": "PEM", "ssl.truststore.location": certs.ca,
        "connections.max.reauth.ms": "4000",
        "authorizer.class.name": "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
        "super.users": "User:broker;User:admin",
        "offsets.topic.replication.factor": "3", "offsets.topic.num.partitions": "3",
        "transaction.state.log.replication.factor": "3", "transaction.state.log.num.partitions": "3",
        "transaction.state.log.min.isr": "2"})
    for n, port in client_ports.items():
        b = cluster.broker(n)
        b.overrides["listeners"] = "INTERNAL://%s,CLIENT://127.0.0.1:%d" % (b.bootstrap, port)
    admin = write_config(work, "admin.properties", [
        "security.protocol=SASL_SSL", "sasl.mechanism=PLAIN",
        "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\",
        '    username="admin" password="admin-secret";',
        "ssl.truststore.type=PEM", "ssl.truststore.location=" + certs.ca])
    with cluster:
        internal = cluster.bootstrap
        clients = ",".join("127.0.0.1:%d" % p for p in client_ports.values())
        deadline, out = time.time() + 30, ""
        while time.time() < deadline:
            rc, out = tool(binary, admin, "cluster", "--describe", "--bootstrap-server", internal)
            if rc == 0 and "Brokers: 3" in out:
                break
            time.sleep(0.5)
        check(rc == 0 and "Brokers: 3" in out,
              "strata cluster describe over SASL_SSL with --command-config: %s" % out.strip()[:300])

        rc, out = tool(binary, admin, "topic", "--bootstrap-server", internal, "--create", "--topic", "secured",
                       "--partitions", "3", "--replication-factor", "3")
        check(rc == 0, "strata topic --create over SASL_SSL (PLAIN, admin): %s" % out.strip())
        wait_isr(binary, admin, internal, "secured")
        check(True, "followers replicate over the SASL_SSL inter-broker listener: every ISR is 1,2,3")

        for args in (["--operation", "All", "--topic", "secured"], ["--operation", "All", "--group", "g1"],
                     ["--operation", "All", "--group", "g2"], ["--operation", "All", "--transactional-id", "t"]):
            rc, out = tool(binary, admin, "acl", "--bootstrap-server", internal, "--add",
                           "--allow-principal", ALICE, *args)
            check(rc == 0, "strata acl --add %s over SASL_SSL: %s" % (" ".join(args), out.strip()[-200:]))

        values = [b"v%d" % i for i in range(30)]
        transaction(certs, clients, "t", values)
        check(True, "alice (mTLS) committed 30 records over 3 leaders, acks=all, markers sent broker to broker")
        got = read_committed(certs, clients, "g1", len(values))
        check(got == set(values), "read back read_committed over mTLS: %d of %d" % (len(got), len(values)))

        rc, out = tool(binary, admin, "user", "--bootstrap-server", internal, "--alter", "--add-config",
                       "SCRAM-SHA-256=[iterations=4096,password=bob-secret]", "--entity-name", "bob")
        check(rc == 0, "strata user --alter over SASL_SSL: %s" % out.strip())
        rc, out = tool(binary, admin, "acl", "--bootstrap-server", internal, "--add", "--allow-principal",
                       "User:bob", "--operation", "Describe", "--group", "g1")
        check(rc == 0, "bob may describe group g1")
        bob = write_config(work, "bob.properties", [
            "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-256",
            'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
            'username="bob" password="bob-secret";',
            "ssl.truststore.location=" + certs.ca])
        deadline = time.time() + 10
        while time.time() < deadline:
            rc, out = tool(binary, bob, "group", "list", "--bootstrap-server", internal)
            if rc == 0:
                break
            time.sleep(0.5)
        check(rc == 0 and "g1" in out, "bob logs in with SCRAM-SHA-256 through --command-config and sees g1: %s"
              % out.strip())

        wrong = write_config(work, "wrong.properties", [
            "security.protocol=SASL_SSL", "sasl.mechanism=SCRAM-SHA-256",
            'sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required '
            'username="bob" password="nope";', "ssl.truststore.location=" + certs.ca])
        rc, out = tool(binary, wrong, "topic", "--bootstrap-server", internal, "--list")
        check(rc != 0 and "SASL_AUTHENTICATION_FAILED" in out, "a wrong password is refused: %s" % out.strip())
        untrusted = write_config(work, "untrusted.properties", [
            "security.protocol=SASL_SSL", "sasl.mechanism=PLAIN",
            'sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required '
            'username="admin" password="admin-secret";', "ssl.truststore.location=" + certs.rogue_ca])
        rc, out = tool(binary, untrusted, "topic", "--bootstrap-server", internal, "--list")
        check(rc != 0 and "certificate" in out, "a broker certificate the trust store does not sign is refused: %s"
              % out.strip())
        # strata produce / consume (librdkafka underneath) with the same properties files.
        console = [binary, "--bootstrap-server", internal, "--topic", "console-secured"]
        p = subprocess.run([binary, "produce"] + console[1:] + ["--command-config", admin, "--property",
                           "parse.key=true", "--property", "key.separator=:"],
                           input="a:1\nb:2\n", capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "strata produce over SASL_SSL (PLAIN) with --command-config: %s" % p.stderr.strip())
        p = subprocess.run([binary, "consume"] + console[1:] + ["--command-config", admin, "--from-beginning",
                           "--max-messages", "2", "--property", "print.key=true", "--timeout-ms", "30000"],
                           capture_output=True, text=True, timeout=60)
        check(p.stdout == "a\t1\nb\t2\n", "strata consume over SASL_SSL reads them back: %r %r"
              % (p.stdout, p.stderr[-300:]))
        p = subprocess.run([binary, "consume"] + console[1:] + ["--command-config", wrong, "--timeout-ms", "30000"],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and "uthentication" in p.stderr,
              "strata consume with a wrong password stops at once, exit 1: %r" % p.stderr.strip()[-300:])
        p = subprocess.run([binary, "produce"] + console[1:] + ["--command-config", untrusted], input="x\n",
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 1 and "ERROR" in p.stderr,
              "strata produce to an untrusted broker certificate stops, exit 1: %r" % p.stderr.strip()[-300:])
        port = cluster.broker(1).port
        rc, out = tool(binary, admin, "topic", "--bootstrap-server", "localhost:%d" % port, "--list")
        check(rc == 0 and "secured" in out, "localhost matches the certificate's DNS name: %s" % out.strip())

        time.sleep(9)  # two more session lifetimes: every inter-broker connection logs in again or is closed
        more = [b"w%d" % i for i in range(30)]
        transaction(certs, clients, "t", more)
        wait_isr(binary, admin, internal, "secured")
        got = read_committed(certs, clients, "g2", 60)
        check(got == set(values + more), "after the sessions expired: replication and markers still work (%d of 60)"
              % len(got))
        closed = cluster.logs().count("session expired")
        check(closed == 0, "no inter-broker connection was closed for an expired session (%d logged)" % closed)
    print("inter-broker security: all checks passed")


if __name__ == "__main__":
    main()
