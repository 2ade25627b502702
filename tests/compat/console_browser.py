#!/usr/bin/python3
"""Issue 18: the web console in Debian's Chromium (headless, driven by playwright-core
from npm: tests/compat/js/console_browser.js), against one broker holding what
console_api.py writes, with about 200 records a second going into topic `busy` for the
live throughput chart; kcat's records with headers in `from-kcat`; a compacted topic whose
cleaner has removed whole batches (a gap for the batch inspector); the lag `strata group
describe` prints, which the page must show. After the page created `from-browser`, kcat
must see it. A screenshot of the last page goes to the build's
tests/console/ directory (on failure too). Usage: console_browser.py PATH/TO/strata"""
import json
import os
import subprocess
import urllib.request
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

from console_api import TOPIC, commit_group, write  # noqa: E402
from strata_broker import StrataBroker, check, free_port  # noqa: E402


def busy(bootstrap, stop):
    """About 200 records a second into topic `busy` until `stop`."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    while not stop.is_set():
        p.produce("busy", b"x")
        p.poll(0)
        time.sleep(0.005)
    p.flush(10)


COMPACTED = {"cleanup.policy": "compact", "segment.bytes": "16384", "min.cleanable.dirty.ratio": "0.01"}


def kcat_records(bootstrap):
    """Three records with headers written by kcat into `from-kcat`-0."""
    lines = "".join("k%d\thello from kcat %d\n" % (i, i) for i in range(3))
    p = subprocess.run(["kcat", "-P", "-b", bootstrap, "-t", "from-kcat", "-p", "0", "-K", "\t",
                        "-H", "source=kcat", "-H", "trace=t%d" % 42], input=lines, capture_output=True, text=True,
                       timeout=30)
    check(p.returncode == 0, "kcat wrote 3 records with headers: %s" % p.stderr)


def compacted_gap(bootstrap, port):
    """`compacted`-0 overwritten and rolled until the cleaner removes whole batches: the
    batch inspector must then show a gap."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic("compacted", 1, 1, config=COMPACTED)]).values():
        f.result()
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "batch.num.messages": 1})
    deadline = time.time() + 60
    while time.time() < deadline:
        for i in range(300):
            p.produce("compacted", key=b"k%d" % (i % 3), value=b"v%06d" % i, partition=0)
        p.flush(20)
        url = "http://127.0.0.1:%d/api/topics/compacted/partitions/0/batches" % port
        batches = json.loads(urllib.request.urlopen(url, timeout=20).read())["batches"]
        gapped = [b for b in batches if b["gap"] > 0]
        if gapped:
            return
        time.sleep(0.5)
    check(False, "the cleaner left a gap in compacted-0")


def strata_lag(strata, bootstrap, group):
    """`strata group describe`'s LAG column, summed."""
    out = subprocess.run([strata, "group", "describe", "--bootstrap-server", bootstrap, group],
                         capture_output=True, text=True, timeout=30).stdout
    lines = out.strip().splitlines()
    at = next(line.split() for line in lines if "LAG" in line).index("LAG")
    return sum(int(line.split()[at]) for line in lines if line.startswith(group + " ") and line.split()[at] != "-")


def main():
    port = free_port()
    shots = os.environ.get("STRATA_CONSOLE_SHOTS") or tempfile.mkdtemp(prefix="strata-console-")
    os.makedirs(shots, exist_ok=True)
    with StrataBroker(sys.argv[1], {"metrics.listener": "http://127.0.0.1:%d" % port,
                                    "strata.console.read.only": "false", "log.cleaner.backoff.ms": "200"}) as broker:
        write(broker.bootstrap)
        commit_group(broker.bootstrap)
        kcat_records(broker.bootstrap)
        compacted_gap(broker.bootstrap, port)
        lag = strata_lag(sys.argv[1], broker.bootstrap, "console-group")
        stop = threading.Event()
        load = threading.Thread(target=busy, args=(broker.bootstrap, stop), daemon=True)
        load.start()  # for the live throughput chart
        p = subprocess.run(["node", os.path.join(HERE, "js", "console_browser.js"), "http://127.0.0.1:%d" % port,
                            TOPIC, "console-group", shots, str(lag)],
                           capture_output=True, text=True, timeout=180)
        stop.set()
        load.join(30)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr[-4000:])
        check(p.returncode == 0, "the console in Chromium (screenshots in %s)" % shots)
        md = subprocess.run(["kcat", "-L", "-J", "-b", broker.bootstrap, "-t", "from-browser"], capture_output=True,
                            text=True, timeout=30)
        topics = {t["topic"]: t for t in json.loads(md.stdout)["topics"]}
        check(len(topics["from-browser"]["partitions"]) == 3, "kcat sees the topic created in the page, 3 partitions")


if __name__ == "__main__":
    main()
