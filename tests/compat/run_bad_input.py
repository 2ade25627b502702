#!/usr/bin/python3
"""Runs bad_input.py against a fresh broker with message.max.bytes=100000 and an in-flight
limit of 2 requests per connection.
Usage: run_bad_input.py PATH/TO/strata"""
import os
import subprocess
import sys

from strata_broker import StrataBroker

with StrataBroker(sys.argv[1], {"message.max.bytes": "100000",
                                  "strata.max.inflight.requests.per.connection": "2"}) as broker:
    here = os.path.dirname(os.path.abspath(__file__))
    code = subprocess.call(["/usr/bin/python3", os.path.join(here, "bad_input.py"), broker.bootstrap])
    if code != 0:
        raise SystemExit(code)
