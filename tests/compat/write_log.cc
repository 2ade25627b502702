// write_log DIR: Strata's storage writes a partition directory that independent
// readers then check (run_storage_compat.sh): batches of every codec, keys, headers,
// null values, producer fields, across several segments with sparse indexes. Prints
// one JSON line per batch (base offset, record count, codec, values) for the checker.
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "record/batch_builder.h"
#include "storage/log.h"

using namespace strata;
using namespace strata::record;
using namespace strata::storage;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: write_log DIR\n";
    return 2;
  }
  LogOptions options;
  options.config.segment_bytes = 4096;         // several segments
  options.config.index_interval_bytes = 512;  // several index entries each
  options.now_ms = 1700000000000;
  auto log = Log::open(argv[1], options);
  if (!log) {
    std::cerr << log.error().message() << "\n";
    return 1;
  }
  const Codec codecs[] = {Codec::kNone, Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd};
  std::map<int64_t, int32_t> next_sequence;  // per producer: idempotent batches follow on
  for (int b = 0; b < 60; ++b) {
    BatchOptions o;
    o.codec = codecs[b % 5];
    const int records = 1 + b % 7;
    if (b % 3 == 0) {
      const int64_t pid = 1000 + b % 4;
      o.producer_id = ProducerId(pid);
      o.producer_epoch = ProducerEpoch(0);
      o.base_sequence = Sequence(next_sequence[pid]);
      next_sequence[pid] += records;
    }
    BatchBuilder builder(o);
    nlohmann::json values = nlohmann::json::array();
    for (int r = 0; r < records; ++r) {
      const std::string key = "key-" + std::to_string(b) + "-" + std::to_string(r);
      const std::string value = "value " + std::to_string(b) + "/" + std::to_string(r) +
                                std::string(size_t(50 + 37 * r), char('a' + b % 26));
      const Header h{"trace", as_bytes(key)};
      const bool tombstone = r == 3;
      builder.append(options.now_ms + b * 10 + r, as_bytes(key),
                     tombstone ? std::nullopt : std::optional<Bytes>(as_bytes(value)),
                     std::span(&h, r % 2));
      values.push_back(tombstone ? nlohmann::json(nullptr) : nlohmann::json(value));
    }
    auto batch = builder.finish();
    if (!batch) return 1;
    auto appended = (*log)->append(*batch, LeaderEpoch(4), options.now_ms + b);
    if (!appended) {
      std::cerr << appended.error().message() << "\n";
      return 1;
    }
    std::cout << nlohmann::json{{"base_offset", appended->first_offset.value()},
                                {"codec", int(o.codec)},
                                {"values", values}}
                     .dump()
              << "\n";
  }
  if (auto c = (*log)->close(); !c) {
    std::cerr << c.error().message() << "\n";
    return 1;
  }
  return 0;
}
