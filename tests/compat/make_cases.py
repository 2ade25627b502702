#!/usr/bin/python3
"""make_cases.py DIR: kafka-python builds every case into DIR/NAME.kp.bin, and
writes DIR/cases.json with the inputs for Strata's side of the cross-check."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    table = cases.all_cases()
    for c in table:
        with open(os.path.join(out, c["name"] + ".kp.bin"), "wb") as f:
            f.write(cases.build_with_kafka_python(c))
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump([cases.to_json(c) for c in table], f)
    print("kafka-python built %d cases" % len(table))


if __name__ == "__main__":
    main()
