#!/usr/bin/python3
"""Issue 18: Kafka's metric names on the admin listener, checked against known workloads
through confluent-kafka, and scraped by a real Prometheus server (Debian's).

One broker with metrics.listener. 500 records produced to `metered` (2 partitions,
acks=all) move kafka_server_brokertopicmetrics_messagesin_total{topic="metered"} by
exactly 500 and bytesin by the bytes the logs grew (kafka_log_log_size), whose end
offsets (kafka_log_log_logendoffset) add up to 500; reading them back moves bytesout by
at least that; a record over a topic's max.message.bytes counts a failed produce of that topic;
request counts and time histograms per API are consistent (+Inf bucket = count); a
request's time runs from its arrival to its answer's last byte (an ApiVersions pipelined
behind a Fetch that waits 800 ms counts over 500 ms, as Kafka's TotalTimeMs); the
process figures are there. Then /usr/bin/prometheus scrapes the endpoint and answers a
PromQL query for the 540 records. Usage: kafka_metrics.py PATH/TO/strata"""
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from confluent_kafka import Consumer, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from strata_broker import StrataBroker, check, free_port, read_frame  # noqa: E402

TOPIC = "metered"
N = 500


def scrape(port):
    text = urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read().decode()
    samples = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, value = line.rsplit(" ", 1)
        samples[name_labels] = float(value)
    return samples


def value(samples, name, **labels):
    key = name + ("{" + ",".join('%s="%s"' % kv for kv in labels.items()) + "}" if labels else "")
    return samples.get(key)


def fetch_then_api_versions(bootstrap, topic):
    """On one connection: a Fetch v4 of `topic`-0 at offset 0 waiting up to 800 ms for a
    byte (the partition is empty), and right behind it an ApiVersions v0, which is answered
    after the Fetch (each connection's answers keep its order)."""
    def frame(api_key, version, correlation, body):
        f = struct.pack(">hhih", api_key, version, correlation, 4) + b"test" + body
        return struct.pack(">i", len(f)) + f
    name = topic.encode()
    fetch = struct.pack(">iiiib", -1, 800, 1, 1 << 20, 0) + struct.pack(">ih", 1, len(name)) + name
    fetch += struct.pack(">iiqi", 1, 0, 0, 1 << 20)
    host, port = bootstrap.split(":")
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(frame(1, 4, 1, fetch) + frame(18, 0, 2, b""))
        read_frame(sock)
        read_frame(sock)


def partition_sum(samples, name):
    return sum(samples.get('%s{topic="%s",partition="%d"}' % (name, TOPIC, p), 0) for p in (0, 1))


def prometheus_scrape(metrics_port):
    """Runs Prometheus against the endpoint; returns (up, the 500) from its query API."""
    work = tempfile.mkdtemp(prefix="strata-prometheus-")
    web = free_port()
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: strata\n"
                "    static_configs:\n      - targets: ['127.0.0.1:%d']\n" % metrics_port)
    proc = subprocess.Popen(["/usr/bin/prometheus", "--config.file=" + os.path.join(work, "prometheus.yml"),
                             "--storage.tsdb.path=" + os.path.join(work, "data"),
                             "--web.listen-address=127.0.0.1:%d" % web],
                            stdout=subprocess.DEVNULL, stderr=open(os.path.join(work, "log"), "w"))
    try:
        def query(q):
            url = "http://127.0.0.1:%d/api/v1/query?query=%s" % (web, urllib.parse.quote(q))
            r = json.loads(urllib.request.urlopen(url, timeout=5).read())
            res = r["data"]["result"]
            return float(res[0]["value"][1]) if res else None
        deadline, up, got = time.time() + 40, None, None
        while time.time() < deadline:
            try:
                up = query('up{job="strata"}')
                got = query('kafka_server_brokertopicmetrics_messagesin_total{topic="%s"}' % TOPIC)
                if up == 1 and got is not None:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        return up, got
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(work, ignore_errors=True)


def group_lag(strata, broker):
    """`strata group describe`'s LAG column, summed over the group's partitions."""
    out = subprocess.run([strata, "group", "describe", "--bootstrap-server", broker.bootstrap, "metrics"],
                         capture_output=True, text=True, timeout=30).stdout
    lines = out.strip().splitlines()
    header = next(line.split() for line in lines if "LAG" in line)
    at = header.index("LAG")
    return sum(int(line.split()[at]) for line in lines if line.startswith("metrics ") and line.split()[at] != "-")


def check_lag(strata, broker, port):
    """The group's committed offsets and lag (kafka_exporter's names), before and after
    40 more records, and equal to what `strata group describe` prints."""
    s = scrape(port)
    check(value(s, "kafka_consumergroup_current_offset_sum", consumergroup="metrics", topic=TOPIC) == N,
          "kafka_consumergroup_current_offset_sum = 500 once the group committed")
    check(value(s, "kafka_consumergroup_lag_sum", consumergroup="metrics", topic=TOPIC) == 0, "lag 0")
    check(value(s, "kafka_consumergroup_members", consumergroup="metrics") == 0, "no members after close")
    p = Producer({"bootstrap.servers": broker.bootstrap})
    for i in range(40):
        p.produce(TOPIC, b"more-%d" % i, partition=i % 2)
    p.flush(10)
    s = scrape(port)
    lag = value(s, "kafka_consumergroup_lag_sum", consumergroup="metrics", topic=TOPIC)
    check(lag == 40 and group_lag(strata, broker) == 40,
          "lag 40 after 40 more records, as strata group describe prints (%s, %s)" % (lag, group_lag(strata, broker)))
    check(partition_sum(s, "kafka_topic_partition_current_offset") == N + 40, "kafka_topic_partition_current_offset")


def main():
    metrics_port = free_port()
    broker = StrataBroker(sys.argv[1], {"metrics.listener": "http://127.0.0.1:%d" % metrics_port})
    with broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        for f in admin.create_topics([NewTopic(TOPIC, 2, 1),
                                      NewTopic("tiny", 1, 1, config={"max.message.bytes": "2000"})]).values():
            f.result(30)
        before = scrape(metrics_port)
        p = Producer({"bootstrap.servers": broker.bootstrap, "acks": "all", "linger.ms": 5})
        errors = []
        for i in range(N):
            p.produce(TOPIC, b"value-%05d" % i, key=b"k%d" % i, partition=i % 2,
                      on_delivery=lambda e, m: e and errors.append(e))
        check(p.flush(30) == 0 and not errors, "500 records produced %s" % errors[:1])
        after = scrape(metrics_port)
        moved = value(after, "kafka_server_brokertopicmetrics_messagesin_total", topic=TOPIC) - \
            value(before, "kafka_server_brokertopicmetrics_messagesin_total", topic=TOPIC)
        check(moved == N, "messagesin{topic=metered} moved by exactly %d (%s)" % (N, moved))
        check(value(after, "kafka_server_brokertopicmetrics_messagesin_total") >= N, "the all-topics messagesin too")
        check(partition_sum(after, "kafka_log_log_logendoffset") == N, "the log end offsets add up to 500")
        size = partition_sum(after, "kafka_log_log_size")
        bytes_in = value(after, "kafka_server_brokertopicmetrics_bytesin_total", topic=TOPIC)
        check(size > N * 11 and bytes_in == size, "bytesin (%s) = the bytes the logs hold (%s)" % (bytes_in, size))
        check(value(after, "kafka_server_brokertopicmetrics_totalproducerequests_total", topic=TOPIC) >= 2,
              "produce requests counted per partition")

        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "metrics", "auto.offset.reset": "earliest"})
        c.subscribe([TOPIC])
        got, deadline = 0, time.time() + 30
        while got < N and time.time() < deadline:
            m = c.poll(0.5)
            if m is not None and not m.error():
                got += 1
        c.close()
        check(got == N, "read back %d records" % got)
        now = scrape(metrics_port)
        out = value(now, "kafka_server_brokertopicmetrics_bytesout_total", topic=TOPIC)
        check(out >= size, "bytesout (%s) at least the log's bytes (%s)" % (out, size))
        check(value(now, "kafka_server_brokertopicmetrics_totalfetchrequests_total", topic=TOPIC) >= 2,
              "consumer fetches counted")
        check_lag(sys.argv[1], broker, metrics_port)

        errors = []
        p2 = Producer({"bootstrap.servers": broker.bootstrap, "message.timeout.ms": 5000})
        p2.produce("tiny", b"x" * 5000, partition=0, on_delivery=lambda e, m: e and errors.append(e))
        p2.flush(10)
        check(any("MSG_SIZE_TOO_LARGE" in str(e) for e in errors), "a record over max.message.bytes is refused")
        failed = scrape(metrics_port)
        check(value(failed, "kafka_server_brokertopicmetrics_failedproducerequests_total", topic="tiny") >= 1 and
              value(failed, "kafka_server_brokertopicmetrics_failedproducerequests_total", topic=TOPIC) == 0,
              "... and counted as a failed produce request of its topic")

        produce_count = value(failed, "kafka_network_requestmetrics_requests_total", request="Produce")
        inf = value(failed, "kafka_network_requestmetrics_totaltimems_bucket", request="Produce", le="+Inf")
        count = value(failed, "kafka_network_requestmetrics_totaltimems_count", request="Produce")
        check(produce_count and produce_count == inf == count, "Produce: requests %s, +Inf bucket %s, count %s"
              % (produce_count, inf, count))
        check(value(failed, "kafka_network_requestmetrics_requests_total", request="Fetch") >= 1, "Fetch requests")
        fetch_then_api_versions(broker.bootstrap, "tiny")
        timed = scrape(metrics_port)
        slow = value(timed, "kafka_network_requestmetrics_totaltimems_count", request="ApiVersions") - \
            value(timed, "kafka_network_requestmetrics_totaltimems_bucket", request="ApiVersions", le="500")
        check(slow >= 1, "an ApiVersions answered behind an 800 ms Fetch counts its wait: %d over 500 ms" % slow)
        check(value(failed, "kafka_controller_kafkacontroller_activecontrollercount") == 1, "the single node controls")
        check(value(failed, "process_resident_memory_bytes") > 1e6 and value(failed, "process_open_fds") > 3,
              "process figures")
        check(value(failed, "strata_event_loop_max_lag_ms", shard="0") is not None and
              value(failed, "strata_event_loop_stalls_total", shard="0") is not None, "event-loop figures per shard")

        up, seen = prometheus_scrape(metrics_port)
        check(up == 1 and seen == N + 40, "Prometheus scraped the endpoint (up=%s) and answers messagesin=%s" % (up, seen))
    print("Kafka metrics: all checks passed")


if __name__ == "__main__":
    main()
