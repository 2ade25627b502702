#!/usr/bin/python3
"""check_storage.py DIR MANIFEST: reads a partition directory that Strata wrote with
kafka-python's record reader, segment by segment and batch by batch, and checks it
against what Strata appended (MANIFEST, from write_log): names, offsets, CRCs, codecs,
records; and that every .index / .timeindex entry points where Kafka's would."""
import json
import os
import struct
import sys

from kafka.record.default_records import DefaultRecordBatch


def batches_of(path):
    data = open(path, "rb").read()
    pos = 0
    while pos < len(data):
        (length,) = struct.unpack_from(">i", data, pos + 8)
        yield pos, DefaultRecordBatch(bytearray(data[pos:pos + 12 + length])), 12 + length
        pos += 12 + length
    assert pos == len(data), "trailing bytes in %s" % path


def check_index(path, base, positions):
    data = open(path, "rb").read()
    assert len(data) % 8 == 0, path
    last = -1
    for i in range(0, len(data), 8):
        rel, pos = struct.unpack_from(">ii", data, i)
        assert pos in positions, "%s: entry points inside a batch (%d)" % (path, pos)
        assert positions[pos] == base + rel, "%s: entry offset is not the batch's last" % path
        assert base + rel > last
        last = base + rel
    return len(data) // 8


def check_timeindex(path, base, last_offsets):
    data = open(path, "rb").read()
    assert len(data) % 12 == 0, path
    prev = -1
    for i in range(0, len(data), 12):
        ts, rel = struct.unpack_from(">qi", data, i)
        assert ts > prev, "%s: timestamps must increase" % path
        assert base + rel in last_offsets, "%s: entry offset is not a batch's last" % path
        prev = ts


def main():
    d, manifest = sys.argv[1], sys.argv[2]
    want = [json.loads(line) for line in open(manifest)]
    logs = sorted(f for f in os.listdir(d) if f.endswith(".log"))
    assert len(logs) > 1, "expected several segments"
    got, index_entries = [], 0
    for name in logs:
        base = int(name[:-4])
        assert name == "%020d.log" % base
        positions = {}
        for pos, batch, size in batches_of(os.path.join(d, name)):
            assert batch.validate_crc(), "%s@%d: CRC rejected by kafka-python" % (name, pos)
            assert batch.base_offset >= base
            positions[pos] = batch.base_offset + batch.last_offset_delta
            got.append(batch)
        index_entries += check_index(os.path.join(d, name[:-4] + ".index"), base, positions)
        check_timeindex(os.path.join(d, name[:-4] + ".timeindex"), base, set(positions.values()))
    assert len(got) == len(want), (len(got), len(want))
    for batch, w in zip(got, want):
        assert batch.base_offset == w["base_offset"], (batch.base_offset, w["base_offset"])
        assert batch.compression_type == w["codec"]
        header = DefaultRecordBatch.HEADER_STRUCT.unpack_from(batch._buffer)
        assert header[2] == 4, "partitionLeaderEpoch"
        records = list(batch)  # kafka-python's batch iterates only once
        values = [None if r.value is None else r.value.decode() for r in records]
        assert values == w["values"], batch.base_offset
        offsets = [r.offset for r in records]
        assert offsets == list(range(w["base_offset"], w["base_offset"] + len(values))), offsets
    print("kafka-python read %d segments, %d batches, %d index entries: ok" %
          (len(logs), len(got), index_entries))


if __name__ == "__main__":
    main()
