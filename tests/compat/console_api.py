#!/usr/bin/python3
"""Issue 18: the web console's JSON API (docs/formats/console-api.md) on a real broker,
with data written by confluent-kafka (librdkafka).

One broker with metrics.listener. Written: 20 records with keys and headers (lz4), a
binary value, a committed and an aborted transaction; a consumer group commits 15 of
the 20. Checked through /api: the cluster and its broker, the topic list and a topic's
partitions and configs; the batch inspector's list (codecs, producer ids and sequences,
transactional batches, COMMIT and ABORT markers, CRCs valid, no gaps) and one batch
opened (records, headers, the dump-log byte map); the message browser (oldest, newest,
by offset, by timestamp, a filter, binary values, control records left out); the
group's members and lag (10), a consumer-protocol group (KIP-848, joined by hand) with
its epochs and the member's current and target assignment; errors (404 unknown topic, 502 no such partition, 404 no
batch); strata.console.read.only shown and writes refused (403). On a writable console:
a topic created, grown, its config set and removed, a group's offsets reset (earliest,
an offset) and the group deleted, the topic deleted; a write from another origin (403)
or not sent as JSON (415) refused. strata.console.enable=false serves /metrics alone. Usage: console_api.py PATH/TO/strata"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from kip848_wire import heartbeat  # noqa: E402
from strata_broker import StrataBroker, check, free_port  # noqa: E402

TOPIC = "inspected"


def get(port, path, status=200, method="GET", body=None, headers=None):
    data = None
    headers = dict(headers or {})
    if body is not None:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers.setdefault("Content-Type", "application/json")
    request = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=40) as r:
            code, body = r.status, r.read()
    except urllib.error.HTTPError as e:
        code, body = e.code, e.read()
    check(code == status, "%s %s: status %d (want %d): %s" % (method, path, code, status, body[:300]))
    return json.loads(body) if body[:1] in (b"{", b"[") else body


def write(bootstrap):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(TOPIC, 2, 1)]).values():
        f.result()
    p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "compression.type": "lz4",
                  "linger.ms": 50})
    for i in range(20):
        p.produce(TOPIC, key=b"key-%d" % i, value=json.dumps({"n": i}).encode(), partition=0,
                  headers=[("trace", b"t-%d" % i)])
    p.produce(TOPIC, key=b"bin", value=b"\xff\x00\xfe", partition=0)
    check(p.flush(20) == 0, "plain records written")
    t = Producer({"bootstrap.servers": bootstrap, "transactional.id": "console-txn"})
    t.init_transactions(20)
    t.begin_transaction()
    t.produce(TOPIC, key=b"kept", value=b"committed", partition=0)
    t.commit_transaction(20)
    t.begin_transaction()
    t.produce(TOPIC, key=b"gone", value=b"aborted", partition=0)
    check(t.flush(20) == 0, "the aborted record sent")  # else the abort drops it unsent
    t.abort_transaction(20)


def commit_group(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "console-group", "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition(TOPIC, 0, 15)], asynchronous=False)
    c.close()


def check_batches(port):
    b = get(port, "/api/topics/%s/partitions/0/batches" % TOPIC)
    batches = b["batches"]
    check(b["end"] in ("end", "partial"), "the list ends cleanly: %s" % b["end"])
    check(all(x["crc_valid"] for x in batches), "every CRC valid")
    check(all(x["gap"] == 0 for x in batches), "no gaps in an uncompacted log")
    plain = [x for x in batches if not x["transactional"]]
    check(plain and all(x["codec"] == "lz4" and x["producer_id"] >= 0 for x in plain),
          "idempotent lz4 batches: %s" % plain)
    check(sum(x["record_count"] for x in plain) == 21, "21 plain records")
    check(plain[0]["base_sequence"] == 0 and plain[-1]["last_sequence"] == 20, "sequences 0..20")
    markers = [x["marker"]["type"] for x in batches if x["control"]]
    check(markers == ["COMMIT", "ABORT"], "a COMMIT then an ABORT marker: %s" % markers)
    txn = [x for x in batches if x["transactional"] and not x["control"]]
    check(len(txn) == 2, "two transactional data batches")
    check(b["high_watermark"] == batches[-1]["last_offset"] + 1, "the list reaches the high watermark")
    later = get(port, "/api/topics/%s/partitions/0/batches?offset=%d" % (TOPIC, txn[0]["base_offset"]))
    check(later["batches"][0]["base_offset"] == txn[0]["base_offset"], "a list from an offset starts at its batch")

    one = get(port, "/api/topics/%s/partitions/0/batches/3" % TOPIC)
    check(one["header"]["base_offset"] <= 3 <= one["header"]["last_offset"], "the batch holding offset 3")
    rec = next(r for r in one["records"] if r["offset"] == 3)
    check(rec["key"]["text"] == "key-3" and json.loads(rec["value"]["text"]) == {"n": 3}, "record 3: %s" % rec)
    check(rec["headers"] == [{"key": "trace", "value": {"size": 3, "text": "t-3", "base64": "dC0z"}}],
          "record 3's header: %s" % rec["headers"])
    check("baseOffset" in one["explain"] and "crc" in one["explain"], "the byte map: %s" % one["explain"][:200])
    abort = next(x for x in batches if x["control"] and x["marker"]["type"] == "ABORT")
    opened = get(port, "/api/topics/%s/partitions/0/batches/%d" % (TOPIC, abort["base_offset"]))
    check(opened["records"][0]["control"]["type"] == "ABORT", "the marker opened")
    get(port, "/api/topics/%s/partitions/0/batches/999999" % TOPIC, status=404)
    return batches


def check_messages(port, batches):
    base = "/api/topics/%s/partitions/0/messages" % TOPIC
    oldest = get(port, base + "?limit=5")
    check([r["offset"] for r in oldest["records"]] == [0, 1, 2, 3, 4], "oldest five")
    check(oldest["end"] == "limit", "stopped at the limit")
    everything = get(port, base + "?limit=500")
    values = [r["value"]["text"] if r["value"]["text"] is not None else r["value"]["base64"]
              for r in everything["records"]]
    check(len(values) == 23, "21 plain + 2 transactional records, no markers: %d" % len(values))
    check("/wD+" in values, "the binary value as base64 (no text)")
    check(everything["end"] == "high watermark", "read to the high watermark")
    newest = get(port, base + "?from=newest&limit=3")
    check(all(r["offset"] >= everything["high_watermark"] - 3 for r in newest["records"]), "newest three")
    at = get(port, base + "?offset=10&limit=2")
    check([r["offset"] for r in at["records"]] == [10, 11], "from offset 10")
    ts = everything["records"][7]["timestamp"]
    by_time = get(port, base + "?timestamp=%d&limit=1" % ts)
    check(by_time["records"][0]["timestamp"] >= ts and by_time["records"][0]["offset"] <= 7, "by timestamp")
    found = get(port, base + "?filter=t-17&limit=50")
    check([r["offset"] for r in found["records"]] == [17], "the filter on a header: %s" % found["records"])
    found = get(port, base + "?filter=%22n%22%3A%205&limit=50")
    check([r["offset"] for r in found["records"]] == [5], "the filter on a value")


def check_filter_over_many(port, bootstrap):
    """1000 small records in partition 1: a filter finds the one late match (every record
    of every fetch examined) and pages of 50 follow each other without a gap."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 20})
    for i in range(1000):
        p.produce(TOPIC, value=b"needle" if i == 987 else b"hay %d" % i, partition=1)
    check(p.flush(20) == 0, "1000 records in partition 1")
    base = "/api/topics/%s/partitions/1/messages" % TOPIC
    found = get(port, base + "?filter=needle&limit=50")
    check([r["offset"] for r in found["records"]] == [987], "the late match found: %s" % found["records"][:3])
    check(found["next"] == 1000 and found["end"] == "high watermark", "the whole partition examined")
    seen, at = [], 0
    while at < 1000:
        page = get(port, base + "?offset=%d&limit=50" % at)
        seen += [r["offset"] for r in page["records"]]
        check(page["next"] == at + 50, "next is where the page ended: %d" % page["next"])
        at = page["next"]
    check(seen == list(range(1000)), "pages follow each other without a gap")


def check_bad_utf8(port, bootstrap):
    """A header key that is not UTF-8 (kcat writes the bytes as they are) is shown with
    U+FFFD, not a failed answer."""
    p = subprocess.run([b"kcat", b"-P", b"-b", bootstrap.encode(), b"-t", TOPIC.encode() + b"-utf", b"-p", b"0",
                        b"-H", b"\xff\xfe=v"], input=b"value\n", capture_output=True, timeout=30)
    check(p.returncode == 0, "kcat wrote a header key of bytes: %s" % p.stderr)
    r = get(port, "/api/topics/%s-utf/partitions/0/messages" % TOPIC)
    check(r["records"][0]["headers"][0]["key"] == "\ufffd\ufffd", "shown as U+FFFD: %s" % r["records"][0]["headers"])
    get(port, "/api/topics/%s-utf/partitions/0/batches/0" % TOPIC)


def check_writes(port, bootstrap):
    """Topic and group changes through a writable console, and the refusals."""
    get(port, "/api/topics", method="POST", body={"name": "made", "partitions": 3, "replication_factor": 1})
    get(port, "/api/topics", method="POST", body={"name": "made", "partitions": 3}, status=409)  # TOPIC_ALREADY_EXISTS
    get(port, "/api/topics", method="POST", body={"name": "big", "partitions": 2 ** 32 + 1}, status=400)
    get(port, "/api/topics", method="POST", body={"name": "odd", "partitions": 1.5}, status=400)
    get(port, "/api/topics", method="POST", body={"name": "odd", "configs": {"retention.ms": 5}}, status=400)
    get(port, "/api/topics", method="POST", body={"partitions": 3}, status=400)
    get(port, "/api/topics", method="POST", body=b"{not json", status=400)
    get(port, "/api/topics", method="POST", body=b'{"name": "x"}', headers={"Content-Type": "text/plain"}, status=415)
    get(port, "/api/topics", method="POST", body={"name": "evil"}, headers={"Origin": "http://evil.example"}, status=403)
    get(port, "/api/topics/made", method="DELETE", headers={"Origin": "http://evil.example"}, status=403)
    check(len(get(port, "/api/topics/made")["partitions"]) == 3, "created with 3 partitions")
    get(port, "/api/topics/made/partitions", method="POST", body={"count": 4})
    check(len(get(port, "/api/topics/made")["partitions"]) == 4, "grown to 4")
    get(port, "/api/topics/made/configs", method="POST", body={"name": "retention.ms", "value": "3600000"})
    conf = {c["name"]: c for c in get(port, "/api/topics/made")["configs"]}
    check(conf["retention.ms"]["value"] == "3600000" and conf["retention.ms"]["source"] == 1, "the override set")
    get(port, "/api/topics/made/configs", method="POST", body={"name": "retention.ms", "value": None})
    conf = {c["name"]: c for c in get(port, "/api/topics/made")["configs"]}
    check(conf["retention.ms"]["value"] == "604800000" and conf["retention.ms"]["source"] != 1, "the override removed")
    get(port, "/api/topics/made/configs", method="POST", body={"name": "retention.ms", "value": "soon"}, status=400)
    p = Producer({"bootstrap.servers": bootstrap})
    for i in range(8):
        p.produce("made", value=b"%d" % i, partition=1)
    check(p.flush(20) == 0, "records in made-1")
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "resettable", "enable.auto.commit": False})
    c.commit(offsets=[TopicPartition("made", 1, 6)], asynchronous=False)
    c.close()
    r = get(port, "/api/group/offsets?id=resettable", method="POST", body={"topic": "made", "partition": 1, "to": "earliest"})
    check(r["offsets"] == [{"topic": "made", "partition": 1, "offset": 0}], "reset to earliest: %s" % r)
    g = get(port, "/api/group?id=resettable")
    check(g["lag"] == 8, "the lag after the reset: %s" % g)
    get(port, "/api/group/offsets?id=resettable", method="POST", body={"topic": "made", "partition": 1, "to": 5})
    check(get(port, "/api/group?id=resettable")["offsets"][0]["committed"] == 5, "reset to offset 5")
    get(port, "/api/group/offsets?id=resettable", method="POST", body={"topic": "made", "to": "sideways"}, status=400)
    get(port, "/api/group?id=resettable", method="DELETE")
    check(all(x["group"] != "resettable" for x in get(port, "/api/groups")["groups"]), "the group deleted")
    get(port, "/api/topics/made", method="DELETE")
    deadline = time.time() + 10
    while time.time() < deadline and any(t["name"] == "made" for t in get(port, "/api/topics")["topics"]):
        time.sleep(0.2)
    get(port, "/api/topics/made", status=404)


def check_kip848_group(port, bootstrap):
    """A consumer-protocol group: described with ConsumerGroupDescribe, not DescribeGroups
    (which answers Dead for it, as Kafka's)."""
    r = heartbeat(bootstrap, "console-kip848", "member-1", 0, topics=[TOPIC], rebalance_timeout_ms=60000, owned={})
    check(r["error"] == 0 and r["epoch"] == 1, "a consumer-protocol member joined at epoch 1: %s" % r)
    g = get(port, "/api/group?id=console-kip848")
    check(g["type"] == "consumer" and g["state"] == "Stable" and g["group_epoch"] == 1 and
          g["assignment_epoch"] == 1 and g["protocol"] == "uniform", "the group's type, state and epochs: %s" % g)
    both = [{"topic": TOPIC, "partitions": [0, 1]}]
    check([(m["member_id"], m["member_epoch"], m["assignment"], m["target_assignment"]) for m in g["members"]] ==
          [("member-1", 1, both, both)], "the member's epoch and assignments: %s" % g["members"])
    groups = {x["group"]: x for x in get(port, "/api/groups")["groups"]}
    check(groups["console-kip848"]["protocol_type"] == "consumer", "listed: %s" % groups.get("console-kip848"))


def main():
    metrics_port = free_port()
    broker = StrataBroker(sys.argv[1], {"metrics.listener": "http://127.0.0.1:%d" % metrics_port,
                                        "strata.console.read.only": "true"})
    with broker:
        write(broker.bootstrap)
        commit_group(broker.bootstrap)
        page = get(metrics_port, "/")
        check(b"<title>Strata console</title>" in page, "the page at /")
        check(b"function route" in get(metrics_port, "/console.js"), "its script")
        for path, kind in (("/", "text/html"), ("/console.js", "text/javascript"), ("/console.css", "text/css")):
            with urllib.request.urlopen("http://127.0.0.1:%d%s" % (metrics_port, path), timeout=10) as r:
                check(r.headers["Content-Type"] == kind + "; charset=utf-8", "%s served as %s" % (path, kind))
        check(get(metrics_port, "/api/settings") == {"read_only": True, "login": False}, "read-only shown")
        cluster = get(metrics_port, "/api/cluster")
        check(len(cluster["brokers"]) == 1 and cluster["brokers"][0]["port"] == broker.port, "one broker: %s" % cluster)
        check(cluster["cluster_id"] and cluster["controller"] == cluster["brokers"][0]["id"], "cluster id, controller")
        topics = {t["name"]: t for t in get(metrics_port, "/api/topics")["topics"]}
        check(topics[TOPIC]["partitions"] == 2 and topics[TOPIC]["replication_factor"] == 1, "the topic listed")
        check(topics[TOPIC]["bytes"] > 0, "with its size")
        t = get(metrics_port, "/api/topics/" + TOPIC)
        p0 = t["partitions"][0]
        check(p0["log_start_offset"] == 0 and p0["high_watermark"] == 25, "partition 0: 21 + 2 records + 2 markers: %s" % p0)
        check(any(c["name"] == "cleanup.policy" and c["value"] == "delete" for c in t["configs"]), "configs listed")
        get(metrics_port, "/api/topics/nope", status=404)
        get(metrics_port, "/api/topics/%s/partitions/x/batches" % TOPIC, status=404)  # not a route
        get(metrics_port, "/api/topics/%s/partitions/7/batches" % TOPIC, status=404)  # no such partition
        get(metrics_port, "/api/topics/%s/partitions/7/messages" % TOPIC, status=404)
        get(metrics_port, "/api/topics/%s/partitions/0/messages?timestamp=-1" % TOPIC, status=400)
        get(metrics_port, "/api/topics/%s/partitions/0/messages?limit=many" % TOPIC, status=400)
        get(metrics_port, "/api/topics", headers={"Host": "evil.example:%d" % metrics_port}, status=403)  # rebinding
        get(metrics_port, "/", headers={"Host": "evil.example"}, status=403)
        get(metrics_port, "/api/topics", headers={"Host": "localhost:%d" % metrics_port})
        check_filter_over_many(metrics_port, broker.bootstrap)
        check_bad_utf8(metrics_port, broker.bootstrap)
        batches = check_batches(metrics_port)
        check_messages(metrics_port, batches)
        groups = get(metrics_port, "/api/groups")["groups"]
        check(any(g["group"] == "console-group" for g in groups), "the group listed: %s" % groups)
        g = get(metrics_port, "/api/group?id=console-group")
        check(g["state"] == "Empty" and g["members"] == [], "an empty group: %s" % g)
        check(g["offsets"] == [{"topic": TOPIC, "partition": 0, "committed": 15, "high_watermark": 25, "lag": 10}],
              "its offsets and lag: %s" % g["offsets"])
        check(g["lag"] == 10, "total lag")
        check(g["type"] == "classic", "a classic group")
        check_kip848_group(metrics_port, broker.bootstrap)
        get(metrics_port, "/api/topics", method="POST", body={"name": "x"}, status=403)  # read-only
        get(metrics_port, "/api/topics/" + TOPIC, method="DELETE", status=403)
    writable_port = free_port()
    with StrataBroker(sys.argv[1], {"metrics.listener": "http://127.0.0.1:%d" % writable_port,
                                    "strata.console.read.only": "false"}) as writable:
        check(get(writable_port, "/api/settings") == {"read_only": False, "login": False}, "writable")
        check_writes(writable_port, writable.bootstrap)
    off_port = free_port()
    with StrataBroker(sys.argv[1], {"metrics.listener": "http://127.0.0.1:%d" % off_port,
                                    "strata.console.enable": "false"}):
        get(off_port, "/", status=404)
        check(b"kafka_server" in get(off_port, "/metrics"), "/metrics still served")
    print("console API: OK")


if __name__ == "__main__":
    main()
