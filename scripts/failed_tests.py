#!/usr/bin/env python3
"""Prints, for each test the last ctest run in BUILD_DIR failed, the last LINES lines of
its output (from Testing/Temporary/LastTest.log).

CI shows the end of a run's output; a failure's own lines scroll far above it in a
parallel run, so the test command repeats them here, last.

    failed_tests.py BUILD_DIR [LINES]
"""
import os
import re
import sys

build = sys.argv[1]
lines = int(sys.argv[2]) if len(sys.argv) > 2 else 60
tmp = os.path.join(build, "Testing", "Temporary")
try:
    with open(os.path.join(tmp, "LastTestsFailed.log")) as f:
        failed = [line.strip().split(":", 1)[1] for line in f if ":" in line]
    with open(os.path.join(tmp, "LastTest.log"), errors="replace") as f:
        log = f.read()
except OSError as e:
    sys.exit("no ctest log in %s: %s" % (build, e))
for name in failed:
    m = re.search(r"\d+/\d+ Test: %s\n.*?\nOutput:\n-+\n(.*?)<end of output>" % re.escape(name), log, re.S)
    out = m.group(1).splitlines() if m else ["(no output found)"]
    print("==== %s: the last %d of %d lines of its output" % (name, min(lines, len(out)), len(out)))
    print("\n".join(out[-lines:]))
