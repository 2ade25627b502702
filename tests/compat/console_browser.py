#!/usr/bin/python3
"""Issue 18: the web console in Debian's Chromium (headless, driven by playwright-core
from npm: tests/compat/js/console_browser.js), against one broker holding what
console_api.py writes. A screenshot of the last page goes to the build's
tests/console/ directory (on failure too). Usage: console_browser.py PATH/TO/strata"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from console_api import TOPIC, commit_group, write  # noqa: E402
from strata_broker import StrataBroker, check, free_port  # noqa: E402


def main():
    port = free_port()
    shots = os.environ.get("STRATA_CONSOLE_SHOTS") or tempfile.mkdtemp(prefix="strata-console-")
    os.makedirs(shots, exist_ok=True)
    with StrataBroker(sys.argv[1], {"metrics.listener": "http://127.0.0.1:%d" % port}) as broker:
        write(broker.bootstrap)
        commit_group(broker.bootstrap)
        p = subprocess.run(["node", os.path.join(HERE, "js", "console_browser.js"), "http://127.0.0.1:%d" % port,
                            TOPIC, "console-group", shots], capture_output=True, text=True, timeout=120)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr[-4000:])
        check(p.returncode == 0, "the console in Chromium (screenshots in %s)" % shots)


if __name__ == "__main__":
    main()
