#!/usr/bin/python3
"""Consumer groups with kafkajs (npm) against a real Strata broker: the shared group
scenario (group_scenario.py) with kafkajs members (js/group_worker.js).
Usage: groups_kafkajs.py PATH/TO/strata"""
import os
import sys

import group_scenario
from group_scenario import Worker
from strata_broker import StrataBroker

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with StrataBroker(sys.argv[1]) as broker:
        def spawn(group, topic, events):
            argv = ["node", os.path.join(HERE, "js", "group_worker.js"), broker.bootstrap, group,
                    topic, events]
            return Worker(argv, events, cwd=os.path.join(HERE, "js"))
        group_scenario.run(broker.bootstrap, spawn, "kafkajs")


if __name__ == "__main__":
    main()
