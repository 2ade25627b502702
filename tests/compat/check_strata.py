#!/usr/bin/python3
"""check_strata.py DIR: kafka-python reads every DIR/NAME.strata.bin that Strata built
and checks CRC, producer fields and records against the case table."""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
import cases  # noqa: E402
from kafka.record.default_records import DefaultRecordBatch  # noqa: E402


def check(case, data):
    batch = DefaultRecordBatch(bytearray(data))
    assert batch.validate_crc(), "CRC rejected by kafka-python"
    assert batch.compression_type == cases.CODECS[case["codec"]], batch.compression_type
    # kafka-python 2.0.2 has no accessors for the producer fields: read its header struct.
    header = DefaultRecordBatch.HEADER_STRUCT.unpack_from(data)
    producer_id, producer_epoch, base_sequence = header[9], header[10], header[11]
    assert producer_id == case["producer_id"], producer_id
    assert producer_epoch == case["producer_epoch"], producer_epoch
    assert base_sequence == case["base_sequence"], base_sequence
    assert batch.is_transactional == case["transactional"]
    got = list(batch)
    assert len(got) == len(case["records"]), (len(got), len(case["records"]))
    for i, (r, want) in enumerate(zip(got, case["records"])):
        assert r.offset == i, (r.offset, i)
        assert r.timestamp == want["ts"], (r.timestamp, want["ts"])
        assert r.key == want["key"], i
        assert r.value == want["value"], i
        assert [(k, v) for k, v in r.headers] == want["headers"], i


def main():
    d = sys.argv[1]
    failed = 0
    table = cases.all_cases()
    for c in table:
        path = os.path.join(d, c["name"] + ".strata.bin")
        try:
            with open(path, "rb") as f:
                check(c, f.read())
        except Exception as e:  # report every case, then fail
            failed += 1
            print("FAIL %s: %r" % (c["name"], e))
    print("kafka-python read %d Strata batches, %d failed" % (len(table), failed))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
