#!/usr/bin/python3
"""Runs fetch_sessions (tests/compat/fetch_sessions.cc: incremental fetch sessions,
KIP-227, spoken directly) against a real Strata broker with a 3-slot session cache.
Usage: fetch_sessions.py PATH/TO/strata PATH/TO/fetch_sessions"""
import subprocess
import sys

from strata_broker import StrataBroker, check

SLOTS = 3


def main():
    strata, program = sys.argv[1], sys.argv[2]
    # Also the one test of the pread + write path for fetched records (sendfile is the
    # default): every fetch here returns records through it.
    with StrataBroker(strata, {"max.incremental.fetch.session.cache.slots": str(SLOTS),
                               "strata.fetch.sendfile": "false"}) as b:
        p = subprocess.run([program, b.bootstrap, str(SLOTS)], capture_output=True, text=True,
                           timeout=120)
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr)
        check(p.returncode == 0, "fetch_sessions: every check passed")
        check(b.proc.poll() is None, "the broker is still running")
    print("fetch_sessions: ok")


if __name__ == "__main__":
    main()
