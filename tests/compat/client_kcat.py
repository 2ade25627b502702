#!/usr/bin/python3
"""kcat (librdkafka's command-line client) against a real Strata broker: metadata, produce
in every codec with keys and headers, an unclean restart (SIGKILL) between produce and
consume, exact read-back. Usage: client_kcat.py PATH/TO/strata"""
import subprocess
import sys

from strata_broker import StrataBroker, check

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


def kcat(bootstrap, *args, stdin=None):
    return subprocess.run(["kcat", "-b", bootstrap, *args], input=stdin, capture_output=True,
                          text=True, timeout=60, check=True).stdout


def main():
    with StrataBroker(sys.argv[1]) as broker:
        lines = []
        for codec in CODECS:
            batch = ["%s-k%d\t%s value %d" % (codec, i, codec, i) for i in range(30)]
            kcat(broker.bootstrap, "-P", "-t", "logs", "-z", codec, "-K", "\t",
                 "-H", "codec=" + codec, "-X", "acks=all", stdin="\n".join(batch) + "\n")
            lines += batch
            check(True, "kcat produced 30 records with codec %s" % codec)
        md = kcat(broker.bootstrap, "-L", "-t", "logs")
        check("topic \"logs\" with 1 partitions" in md, "kcat -L shows the auto-created topic")
        broker.restart(kill=True)
        out = kcat(broker.bootstrap, "-C", "-t", "logs", "-o", "beginning", "-e",
                   "-f", "%k\t%s\t%h\n")
        got = [l for l in out.split("\n") if l]
        check([g.rsplit("\t", 1)[0] for g in got] == lines,
              "kcat consumed all %d records in order after SIGKILL" % len(lines))
        check(all(g.endswith("codec=" + g.split("-")[0]) for g in got), "headers survive")
    print("kcat: all checks passed")


if __name__ == "__main__":
    main()
