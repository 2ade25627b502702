#!/usr/bin/python3
"""Issue 18: the web console in Debian's Chromium (headless, driven by playwright-core
from npm: tests/compat/js/console_browser.js), against one broker holding what
console_api.py writes, with about 200 records a second going into topic `busy` for the
live throughput chart. A screenshot of the last page goes to the build's
tests/console/ directory (on failure too). Usage: console_browser.py PATH/TO/strata"""
import os
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from confluent_kafka import Producer  # noqa: E402

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


def main():
    port = free_port()
    shots = os.environ.get("STRATA_CONSOLE_SHOTS") or tempfile.mkdtemp(prefix="strata-console-")
    os.makedirs(shots, exist_ok=True)
    with StrataBroker(sys.argv[1], {"metrics.listener": "http://127.0.0.1:%d" % port}) as broker:
        write(broker.bootstrap)
        commit_group(broker.bootstrap)
        stop = threading.Event()
        load = threading.Thread(target=busy, args=(broker.bootstrap, stop), daemon=True)
        load.start()  # for the live throughput chart
        p = subprocess.run(["node", os.path.join(HERE, "js", "console_browser.js"), "http://127.0.0.1:%d" % port,
                            TOPIC, "console-group", shots], capture_output=True, text=True, timeout=120)
        stop.set()
        load.join(30)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr[-4000:])
        check(p.returncode == 0, "the console in Chromium (screenshots in %s)" % shots)


if __name__ == "__main__":
    main()
