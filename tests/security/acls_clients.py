#!/usr/bin/python3
"""Issue 17: ACLs through real clients against a real broker.

One broker with authorizer.class.name=kafka.security.authorizer.AclAuthorizer, a
PLAINTEXT listener whose anonymous principal is a super user (for the tools) and a
SASL_PLAINTEXT listener with PLAIN users. ACLs are made with `strata acl` (as
kafka-acls.sh). Then, through kcat, confluent-kafka, kafka-python and kafkajs:
- alice, allowed to WRITE and READ topic `a` and READ group `g`, produces to `a` and
  consumes it with group `g`; producing to `b` fails with TOPIC_AUTHORIZATION_FAILED,
  consuming `a` with group `h` with GROUP_AUTHORIZATION_FAILED, consuming `b` with
  TOPIC_AUTHORIZATION_FAILED; her Metadata lists `a` only;
- bob has a PREFIXED allow on `logs-` and a DENY on `logs-secret`: he writes `logs-1`,
  not `logs-secret` (deny overrides allow) nor `other`;
- alice's transactional producer (confluent-kafka) is refused without WRITE on its
  transactional id (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then, with it, commits a
  transaction to `a` with its offsets for group `g`; writing `b` in a transaction fails;
- admin (in super.users) writes anywhere;
- after a restart the ACLs still hold (acls.json) and `strata acl --list` shows them;
  `strata acl --remove` takes alice's WRITE away.
Usage: acls_clients.py PATH/TO/strata"""
import json
import logging
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "compat"))

from confluent_kafka import Consumer, KafkaError, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from kafka import KafkaConsumer, KafkaProducer  # noqa: E402
import kafka.errors  # noqa: E402

from acl_broker import acl_broker  # noqa: E402
from strata_broker import check  # noqa: E402

JS = os.path.join(HERE, "..", "compat", "js")


class Env:
    def __init__(self, strata, plaintext, sasl_port):
        self.strata, self.plaintext, self.sasl = strata, plaintext, "127.0.0.1:%d" % sasl_port

    def acl(self, *args):
        p = subprocess.run([self.strata, "acl", "--bootstrap-server", self.plaintext, *args],
                           capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "strata acl %s%s" % (" ".join(args), "" if p.returncode == 0 else ": " + p.stderr))
        return p.stdout


# ---- each client: produce (ok or an error text) and consume (values or an error text) --------

def rd_conf(env, user, kcat=False):
    return {"bootstrap.servers": env.sasl, "security.protocol": "SASL_PLAINTEXT", "sasl.mechanisms": "PLAIN",
            "sasl.username": user, "sasl.password": user + "-secret"}


def kcat_produce(env, user, topic, n):
    args = ["kcat", "-b", env.sasl]
    for k, v in list(rd_conf(env, user).items())[1:]:
        args += ["-X", "%s=%s" % (k, v)]
    p = subprocess.run(args + ["-P", "-t", topic, "-p", "0", "-X", "message.timeout.ms=8000"],
                       input="".join("kcat-%d\n" % i for i in range(n)), capture_output=True, text=True, timeout=60)
    return None if p.returncode == 0 and "rror" not in p.stderr else p.stderr.strip()


def kcat_consume(env, user, topic, group, n):
    args = ["kcat", "-b", env.sasl]
    for k, v in list(rd_conf(env, user).items())[1:]:
        args += ["-X", "%s=%s" % (k, v)]
    p = subprocess.run(args + ["-X", "auto.offset.reset=earliest", "-G", group, topic, "-c", str(n), "-q"],
                       capture_output=True, text=True, timeout=25)
    values = p.stdout.split()
    return values if len(values) == n else "%s %s" % (values, p.stderr.strip())


def confluent_produce(env, user, topic, n):
    errors = []
    p = Producer(dict(rd_conf(env, user), **{"message.timeout.ms": 8000, "error_cb": errors.append}))
    for i in range(n):
        p.produce(topic, b"confluent-%d" % i, partition=0,
                  on_delivery=lambda e, m: e and errors.append(e))
    p.flush(15)
    return "; ".join(str(e) for e in errors) or None


def confluent_consume(env, user, topic, group, n):
    c = Consumer(dict(rd_conf(env, user), **{"group.id": group, "auto.offset.reset": "earliest"}))
    c.subscribe([topic])
    got, errors, deadline = [], [], time.time() + 15
    while len(got) < n and time.time() < deadline and not errors:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            errors.append(str(m.error()))
        else:
            got.append(m.value().decode())
    c.close()
    return got if len(got) == n else "%s %s" % (got, "; ".join(errors))


def kp_conf(env, user):
    return {"bootstrap_servers": env.sasl, "security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": "PLAIN",
            "sasl_plain_username": user, "sasl_plain_password": user + "-secret", "request_timeout_ms": 10000}


class WireErrors(logging.Handler):
    """kafka-python's debug lines of the responses it read: kafka-python 2.0.2 turns a
    Metadata answer whose one topic has an error into a failed refresh and retries until
    its own timeout (KafkaTimeoutError), so the broker's TOPIC_AUTHORIZATION_FAILED shows
    only here ("error_code=29")."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.seen = set()

    def emit(self, record):
        text = record.getMessage()
        for code in (29, 30):
            if "error_code=%d" % code in text:
                self.seen.add("error_code=%d" % code)

    def __enter__(self):
        log = logging.getLogger("kafka.conn")
        log.setLevel(logging.DEBUG)
        log.addHandler(self)
        return self

    def __exit__(self, *exc):
        logging.getLogger("kafka.conn").removeHandler(self)
        return False

    def text(self):
        return " ".join(sorted(self.seen))


def kafka_python_produce(env, user, topic, n):
    with WireErrors() as wire:
        try:
            p = KafkaProducer(max_block_ms=4000, **kp_conf(env, user))
            for i in range(n):
                p.send(topic, b"kafka-python-%d" % i, partition=0).get(timeout=10)
            p.close()
            return None
        except kafka.errors.KafkaError as e:
            return "%s: %s %s" % (type(e).__name__, e, wire.text())


def kafka_python_consume(env, user, topic, group, n):
    with WireErrors() as wire:
        try:
            conf = dict(kp_conf(env, user), request_timeout_ms=15000, session_timeout_ms=6000,
                        heartbeat_interval_ms=2000)
            c = KafkaConsumer(topic, group_id=group, auto_offset_reset="earliest", consumer_timeout_ms=6000, **conf)
            got = []
            for m in c:
                got.append(m.value.decode())
                if len(got) >= n:
                    break
            c.close()
            return got if len(got) == n else "%s %s" % (got, wire.text())
        except kafka.errors.KafkaError as e:
            return "%s: %s %s" % (type(e).__name__, e, wire.text())


def js(env, user, *args):
    conf = {"broker": env.sasl, "ssl": None, "sasl": {"mechanism": "plain", "username": user, "password": user + "-secret"}}
    out = subprocess.run(["node", os.path.join(JS, "secure_client.js"), json.dumps(conf), *args],
                         capture_output=True, text=True, timeout=90, cwd=JS)
    lines = out.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {"ok": False, "error": "none", "type": "", "message": out.stderr[-500:]}


def kafkajs_produce(env, user, topic, n):
    r = js(env, user, "produce", topic, str(n))
    return None if r["ok"] else "%s %s %s" % (r["error"], r.get("type"), r["message"])


def kafkajs_consume(env, user, topic, group, n):
    r = js(env, user, "consume", topic, str(n), group)
    return r["values"] if r["ok"] else "%s %s %s" % (r["error"], r.get("type"), r["message"])


CLIENTS = {
    "kcat": (kcat_produce, kcat_consume, "kcat"),
    "confluent": (confluent_produce, confluent_consume, "confluent"),
    "kafka-python": (kafka_python_produce, kafka_python_consume, "kafka-python"),
    "kafkajs": (kafkajs_produce, kafkajs_consume, "kafkajs"),
}
# How each client names the broker's answers.
TOPIC_DENIED = {"kcat": "Topic authorization failed", "confluent": "TOPIC_AUTHORIZATION_FAILED",
                "kafka-python": "error_code=29", "kafkajs": "Topic authorization failed"}
GROUP_DENIED = {"kcat": "Group authorization failed", "confluent": "GROUP_AUTHORIZATION_FAILED",
                "kafka-python": "GroupAuthorizationFailedError", "kafkajs": "GROUP_AUTHORIZATION_FAILED"}


def check_alice(env):
    for client, (produce, consume, prefix) in CLIENTS.items():
        err = produce(env, "alice", "a", 5)
        check(err is None, "%s: alice produces to a %s" % (client, err or ""))
        got = consume(env, "alice", "a", "g", 5)
        ok = isinstance(got, list) and ["%s-%d" % (prefix, i) for i in range(5)] == [v for v in got if v.startswith(prefix + "-")][:5]
        check(isinstance(got, list), "%s: alice reads a with group g %s" % (client, "" if ok else got))
        err = produce(env, "alice", "b", 1)
        check(err is not None and TOPIC_DENIED[client] in err, "%s: alice producing to b: %s" % (client, (err or "")[:150]))
        got = consume(env, "alice", "a", "h", 1)
        check(not isinstance(got, list) and GROUP_DENIED[client] in got,
              "%s: alice reading a with group h: %s" % (client, str(got)[:150]))
        got = consume(env, "alice", "b", "g", 1)
        check(not isinstance(got, list) and TOPIC_DENIED[client] in got,
              "%s: alice reading b with group g: %s" % (client, str(got)[:150]))


def transactional(env, user, txn_id, topic):
    """init, one record, offsets for group g, commit: None or the first error."""
    p = Producer(dict(rd_conf(env, user), **{"transactional.id": txn_id, "message.timeout.ms": 8000}))
    failed = []
    try:
        p.init_transactions(10)
        p.begin_transaction()
        p.produce(topic, b"in-a-transaction", partition=0, on_delivery=lambda e, m: e and failed.append(str(e)))
        from confluent_kafka import TopicPartition as TP
        c = Consumer(dict(rd_conf(env, user), **{"group.id": "g"}))
        p.send_offsets_to_transaction([TP("a", 0, 1)], c.consumer_group_metadata(), 10)
        c.close()
        p.commit_transaction(10)
        return None
    except Exception as e:  # noqa: BLE001 (confluent's KafkaException carries the error)
        return " ".join([str(e)] + failed)


def check_transactions(env):
    err = transactional(env, "alice", "tx-a", "a")
    check(err is not None and "TRANSACTIONAL_ID_AUTHORIZATION_FAILED" in err,
          "alice's transactional producer without WRITE on tx-a: %s" % (err or "")[:140])
    env.acl("--add", "--allow-principal", "User:alice", "--operation", "Write", "--transactional-id", "tx-a")
    err = transactional(env, "alice", "tx-a", "a")
    check(err is None, "with WRITE on tx-a alice commits a transaction to a with offsets for g %s" % (err or ""))
    err = transactional(env, "alice", "tx-a", "b")
    check(err is not None and "TOPIC_AUTHORIZATION_FAILED" in err,
          "a transaction writing b fails: %s" % (err or "")[-160:])


def check_admin_apis(env):
    """Config and partition administration: alice (READ and WRITE on a) may not describe
    a's configs (DESCRIBE_CONFIGS) nor add partitions (ALTER); admin may."""
    from confluent_kafka.admin import ConfigResource, NewPartitions
    for user, allowed in (("alice", False), ("admin", True)):
        admin = AdminClient(rd_conf(env, user))
        try:
            admin.describe_configs([ConfigResource("topic", "a")])[ConfigResource("topic", "a")].result(10)
            err = None
        except Exception as e:  # noqa: BLE001
            err = str(e)
        check((err is None) if allowed else ("TOPIC_AUTHORIZATION_FAILED" in (err or "")),
              "%s describing a's configs: %s" % (user, err or "allowed"))
        try:
            admin.create_partitions([NewPartitions("logs-1", 2 if allowed else 3)])["logs-1"].result(10)
            err = None
        except Exception as e:  # noqa: BLE001
            err = str(e)
        check((err is None) if allowed else ("TOPIC_AUTHORIZATION_FAILED" in (err or "")),
              "%s adding partitions to logs-1: %s" % (user, err or "allowed"))


def visible_topics(env, user):
    md = AdminClient(rd_conf(env, user)).list_topics(timeout=10)
    return sorted(t for t in md.topics if not t.startswith("__"))


def main():
    broker, sasl_port = acl_broker(sys.argv[1])
    env = Env(sys.argv[1], broker.bootstrap, sasl_port)
    with broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        for f in admin.create_topics([NewTopic(t, 1, 1) for t in ("a", "b", "logs-1", "logs-secret", "other")]).values():
            f.result(30)
        env.acl("--add", "--allow-principal", "User:alice", "--operation", "Write", "--operation", "Read", "--topic", "a")
        out = env.acl("--add", "--allow-principal", "User:alice", "--operation", "Read", "--group", "g")
        check("Current ACLs for resource `ResourcePattern(resourceType=GROUP, name=g, patternType=LITERAL)`" in out,
              "strata acl --add prints the resource's ACLs as kafka-acls.sh")
        env.acl("--add", "--allow-principal", "User:bob", "--operation", "Write", "--operation", "Describe",
                "--topic", "logs-", "--resource-pattern-type", "prefixed")
        env.acl("--add", "--deny-principal", "User:bob", "--operation", "Write", "--topic", "logs-secret")
        check(visible_topics(env, "alice") == ["a"], "alice's Metadata lists only a: %s" % visible_topics(env, "alice"))
        check_alice(env)
        check_transactions(env)
        check(confluent_produce(env, "bob", "logs-1", 1) is None, "bob writes logs-1 (PREFIXED logs-)")
        err = confluent_produce(env, "bob", "logs-secret", 1)
        check(err is not None and "TOPIC_AUTHORIZATION_FAILED" in err, "bob's DENY on logs-secret overrides the prefix: %s" % err)
        err = confluent_produce(env, "bob", "other", 1)
        check(err is not None and "TOPIC_AUTHORIZATION_FAILED" in err, "bob cannot write other")
        check(confluent_produce(env, "admin", "b", 1) is None, "admin (super.users) writes b")
        check_admin_apis(env)
        broker.restart()
        listed = env.acl("--list")
        check("(principal=User:alice, host=*, operation=WRITE, permissionType=ALLOW)" in listed and
              "(principal=User:bob, host=*, operation=WRITE, permissionType=DENY)" in listed,
              "after a restart strata acl --list shows the ACLs")
        check(confluent_produce(env, "alice", "a", 1) is None, "after a restart alice still writes a")
        err = confluent_produce(env, "alice", "b", 1)
        check(err is not None and "TOPIC_AUTHORIZATION_FAILED" in err, "after a restart alice still cannot write b")
        env.acl("--remove", "--allow-principal", "User:alice", "--operation", "Write", "--topic", "a")
        err = confluent_produce(env, "alice", "a", 1)
        check(err is not None and "TOPIC_AUTHORIZATION_FAILED" in err, "strata acl --remove takes alice's WRITE on a away")
        denials = broker.log().count("is Denied operation")
        check(0 < denials < 200, "denials are logged, rate-limited (%d lines)" % denials)
    print("ACLs through clients: all checks passed")


if __name__ == "__main__":
    main()
