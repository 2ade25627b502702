#!/usr/bin/python3
"""make_segment.py FILE: writes a log segment built entirely by kafka-python.

Batches of every codec, with keys, headers, null values, idempotent and transactional
producer fields, laid out as a broker would store them: consecutive base offsets and
a partition leader epoch written into each header (neither is covered by the CRC, so
kafka-python's checksums stay valid). The segment's base offset comes from FILE's name.
"""
import os
import struct
import sys

from kafka.record.default_records import DefaultRecordBatchBuilder

BASE_TS = 1700000000000


def batches():
    # (codec, producer_id, epoch, base_sequence, transactional, records)
    yield 0, -1, -1, -1, False, [(b"k1", b"hello", [("h1", b"x")]), (None, b"world", [])]
    yield 1, -1, -1, -1, False, [(b"gz-%d" % i, b"gzip value %d" % i * 3, []) for i in range(5)]
    yield 2, 1000, 0, 0, False, [(b"sn-%d" % i, b"snappy value %d" % i * 3, [("a", b"1"), ("b", None)])
                                 for i in range(4)]
    yield 3, 1000, 0, 4, False, [(b"lz-%d" % i, b"lz4 value %d" % i * 4, []) for i in range(3)]
    yield 4, 2000, 3, 0, True, [(b"zs-%d" % i, b"zstd value %d" % i * 4, []) for i in range(6)]
    yield 0, -1, -1, -1, False, [(b"tomb", None, []), (b"", b"", [("empty", b"")])]


def build(codec, pid, epoch, seq, txn, records, ts):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=codec, is_transactional=txn,
                                  producer_id=pid, producer_epoch=epoch, base_sequence=seq,
                                  batch_size=1 << 20)
    for i, (k, v, h) in enumerate(records):
        b.append(i, timestamp=ts + i, key=k, value=v, headers=h)
    return bytearray(b.build())


def main():
    path = sys.argv[1]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    offset = int(os.path.basename(path).split(".")[0])
    out = bytearray()
    for n, (codec, pid, epoch, seq, txn, records) in enumerate(batches()):
        batch = build(codec, pid, epoch, seq, txn, records, BASE_TS + 100 * n)
        struct.pack_into(">q", batch, 0, offset)     # baseOffset
        struct.pack_into(">i", batch, 12, 5)         # partitionLeaderEpoch
        offset += len(records)
        out += batch
    with open(path, "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
