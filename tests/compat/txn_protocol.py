#!/usr/bin/python3
"""Runs txn_protocol (tests/compat/txn_protocol.cc: the transaction protocol spoken
directly) against a real Strata broker, then finds and aborts, with `strata txn`, the
hanging transaction it leaves on partition 1: `find-hanging` (by topic, by partition,
by broker) lists it with its producer, start offset and age in minutes, `abort
--start-offset` ends it, and afterwards nothing hangs and the last stable offset is the
high watermark (describe-producers shows no open transaction).
Usage: txn_protocol.py PATH/TO/strata PATH/TO/txn_protocol"""
import subprocess
import sys

from strata_broker import StrataBroker, check

TOPIC = "txn-proto"
MAX_TIMEOUT_MS = 300000   # transaction.max.timeout.ms for this broker
HANGING_MINUTES = 20      # the age txn_protocol gives the hanging batch
HEADER = ["Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch",
          "StartOffset", "LastTimestamp", "Duration(min)"]


def run(*args):
    return subprocess.run(list(args), capture_output=True, text=True, timeout=120)


def rows(p, what):
    check(p.returncode == 0, "%s: exit 0 (%s)" % (what, p.stderr.strip()))
    return [[c.rstrip(" ") for c in l.split("\t")[:-1]] for l in p.stdout.splitlines()]


def check_hanging(strata, bs, partition, offset, pid, epoch):
    def txn(*args):
        return run(strata, "txn", *args, "--bootstrap-server", bs)

    want = [TOPIC, str(partition), pid, epoch, "-1", offset]
    for scope in (["--topic", TOPIC], ["--topic", TOPIC, "--partition", str(partition)],
                  ["--broker-id", "1"]):
        got = rows(txn("find-hanging", *scope), "find-hanging " + " ".join(scope))
        check(len(got) == 2 and got[0] == HEADER and got[1][:6] == want and
              got[1][7] == str(HANGING_MINUTES),
              "find-hanging %s: the hanging transaction, %d minutes old (%s)"
              % (" ".join(scope), HANGING_MINUTES, got[1:]))
    got = rows(txn("find-hanging", "--topic", TOPIC, "--partition", "0"), "find-hanging partition 0")
    check(got == [HEADER], "find-hanging on partition 0: nothing")
    got = rows(txn("find-hanging", "--topic", TOPIC, "--max-transaction-timeout", "30"),
               "find-hanging --max-transaction-timeout 30")
    check(got == [HEADER], "find-hanging with a 30-minute largest timeout: too young to hang")
    p = txn("abort", "--topic", TOPIC, "--partition", str(partition), "--start-offset", offset)
    check(p.returncode == 0 and p.stdout == "" and p.stderr == "",
          "abort --start-offset %s: done (%s)" % (offset, p.stderr.strip()))
    got = rows(txn("find-hanging", "--topic", TOPIC), "find-hanging after the abort")
    check(got == [HEADER], "after the abort nothing hangs")
    got = rows(txn("describe-producers", "--topic", TOPIC, "--partition", str(partition)),
               "describe-producers")
    mine = [r for r in got[1:] if r[0] == pid]
    check(len(mine) == 1 and mine[0][5] == "None" and mine[0][2] == "0",
          "describe-producers: the producer has no open transaction; the marker's coordinator "
          "epoch is 0 (%s)" % mine)


def main():
    strata, program = sys.argv[1], sys.argv[2]
    with StrataBroker(strata, {"transaction.max.timeout.ms": MAX_TIMEOUT_MS}) as broker:
        bs = broker.bootstrap
        p = run(strata, "topic", "--bootstrap-server", bs, "--create", "--topic", TOPIC,
                "--partitions", "2")
        check(p.returncode == 0, "created %s with 2 partitions" % TOPIC)
        p = run(program, bs, TOPIC, str(MAX_TIMEOUT_MS))
        sys.stdout.write(p.stdout)
        sys.stderr.write(p.stderr)
        check(p.returncode == 0, "txn_protocol: every check passed")
        hanging = [l.split() for l in p.stdout.splitlines() if l.startswith("HANGING ")]
        if not hanging:
            print("skip find-hanging/abort: the broker refused the unverified transactional "
                  "batch (partition verification, KIP-890 part 1)")
        else:
            check_hanging(strata, bs, *hanging[0][1:])
    print("txn_protocol.py: all checks passed")


if __name__ == "__main__":
    main()
