"""The table of batch cases shared by the kafka-python cross-checks.

Each case lists a batch's producer fields, codec and records; kafka-python (an
independent implementation of the v2 format) builds it, and Strata must decode it
identically and, uncompressed, build the very same bytes.
"""

CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}

BASE_TS = 1700000000000


def _records(n, key=True, value_size=20, headers=0, nulls=False):
    out = []
    for i in range(n):
        k = None if (not key or (nulls and i % 3 == 0)) else ("key-%d" % i).encode()
        v = None if (nulls and i % 4 == 1) else (("v%d-" % i) * value_size).encode()[:value_size * 3]
        hs = [("h%d" % j, None if (nulls and j == 1) else ("hv%d" % j).encode())
              for j in range(headers)]
        out.append({"ts": BASE_TS + i * 7 - (5 if i % 5 == 4 else 0), "key": k, "value": v,
                    "headers": hs})
    return out


def all_cases():
    cases = []

    def add(name, records, codec="none", pid=-1, epoch=-1, seq=-1, txn=False):
        cases.append({"name": name, "codec": codec, "producer_id": pid,
                      "producer_epoch": epoch, "base_sequence": seq,
                      "transactional": txn, "records": records})

    add("single", _records(1))
    add("null_key_and_value", [{"ts": BASE_TS, "key": None, "value": None, "headers": []}])
    add("empty_key_and_value", [{"ts": BASE_TS, "key": b"", "value": b"", "headers": []}])
    add("headers", _records(5, headers=3))
    add("null_header_values", _records(6, headers=2, nulls=True))
    add("many", _records(300, value_size=10))
    add("big_value", [{"ts": BASE_TS, "key": b"k", "value": bytes(range(256)) * 400,
                       "headers": []}])
    add("idempotent", _records(4), pid=123456789, epoch=7, seq=1000)
    add("transactional", _records(3), pid=42, epoch=1, seq=0, txn=True)
    add("sequence_near_wrap", _records(3), pid=9, epoch=0, seq=2**31 - 2)
    add("negative_ts_delta", [{"ts": BASE_TS, "key": b"a", "value": b"1", "headers": []},
                              {"ts": BASE_TS - 1000, "key": b"b", "value": b"2", "headers": []}])
    for codec in ("gzip", "snappy", "lz4", "zstd"):
        add("codec_" + codec, _records(200, headers=1, nulls=True), codec=codec)
        add("codec_%s_idempotent" % codec, _records(50), codec=codec, pid=77, epoch=2, seq=5,
            txn=True)
    return cases


def to_json(case):
    """Bytes as hex strings, None as null, for the C++ side."""
    def hx(b):
        return None if b is None else b.hex()
    out = dict(case)
    out["records"] = [{"ts": r["ts"], "key": hx(r["key"]), "value": hx(r["value"]),
                       "headers": [[k, hx(v)] for k, v in r["headers"]]}
                      for r in case["records"]]
    return out


def build_with_kafka_python(case):
    from kafka.record.default_records import DefaultRecordBatchBuilder
    b = DefaultRecordBatchBuilder(magic=2, compression_type=CODECS[case["codec"]],
                                  is_transactional=case["transactional"],
                                  producer_id=case["producer_id"],
                                  producer_epoch=case["producer_epoch"],
                                  base_sequence=case["base_sequence"], batch_size=1 << 30)
    for i, r in enumerate(case["records"]):
        b.append(i, timestamp=r["ts"], key=r["key"], value=r["value"], headers=r["headers"])
    return bytes(b.build())
