#!/usr/bin/python3
"""check_dump_log.py STRATA SEGMENT: runs `strata dump-log --print-data-log` on a segment
and checks every line against what kafka-python decodes from the same bytes, written in
the line format of Kafka's kafka-dump-log.sh (docs/formats/dump-log-output.md)."""
import os
import struct
import subprocess
import sys

from kafka.record.default_records import DefaultRecordBatch

CODECS = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}


def expected_lines(path):
    data = open(path, "rb").read()
    lines = ["Dumping " + path,
             "Log starting offset: %d" % int(os.path.basename(path).split(".")[0])]
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from(">i", data, pos + 8)
        raw = data[pos:pos + 12 + length]
        b = DefaultRecordBatch(bytearray(raw))
        h = DefaultRecordBatch.HEADER_STRUCT.unpack_from(raw)
        ple, count = h[2], h[12]
        pid, epoch, seq = h[9], h[10], h[11]
        last_seq = -1 if seq == -1 else seq + b.last_offset_delta
        lines.append(
            "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d "
            "producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %s "
            "isControl: %s deleteHorizonMs: OptionalLong.empty position: %d CreateTime: %d "
            "size: %d magic: 2 compresscodec: %s crc: %d isvalid: %s" % (
                b.base_offset, b.base_offset + b.last_offset_delta, count, seq, last_seq, pid,
                epoch, ple, str(b.is_transactional).lower(), str(b.is_control_batch).lower(),
                pos, b.max_timestamp, len(raw), CODECS[b.compression_type], b.crc,
                str(b.validate_crc()).lower()))
        for r in b:
            sequence = -1 if seq == -1 else seq + (r.offset - b.base_offset)
            line = ("| offset: %d CreateTime: %d keySize: %d valueSize: %d sequence: %d "
                    "headerKeys: [%s]" % (
                        r.offset, r.timestamp, -1 if r.key is None else len(r.key),
                        -1 if r.value is None else len(r.value), sequence,
                        ",".join(k for k, _ in r.headers)))
            if r.key is not None:
                line += " key: " + r.key.decode()
            if r.value is not None:
                line += " payload: " + r.value.decode()
            lines.append(line)
        pos += len(raw)
    return lines


def main():
    strata, path = sys.argv[1], sys.argv[2]
    got = subprocess.run([strata, "dump-log", "--print-data-log", "--files", path],
                         check=True, capture_output=True, text=True).stdout.splitlines()
    want = expected_lines(path)
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want)) if g != w]
    for i, g, w in bad[:5]:
        print("line %d differs:\n  strata: %s\n  kafka:  %s" % (i, g, w))
    if len(got) != len(want):
        print("strata printed %d lines, expected %d" % (len(got), len(want)))
    ok = not bad and len(got) == len(want)
    print("dump-log: %d lines checked against kafka-python, %s" % (len(want), "ok" if ok else "MISMATCH"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
