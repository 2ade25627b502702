// Record library benchmarks (issue 2). Compare ratios within one run, not absolute
// numbers: the machine is shared. See docs/performance.md for how to read them.
#include <benchmark/benchmark.h>
#include <isa-l/crc.h>

#include <cstring>
#include <random>
#include <vector>

#include "record/batch_builder.h"
#include "record/crc32c.h"
#include "record/stamp.h"
#include "record/validate.h"

using namespace strata;
using namespace strata::record;

namespace {

std::vector<uint8_t> random_bytes(size_t n) {
  std::mt19937_64 rng(42);
  std::vector<uint8_t> v(n);
  for (auto& b : v) b = uint8_t(rng());
  return v;
}

// --- CRC32C next to memcpy, on 16 KiB and 1 MiB --------------------------------

void BM_Memcpy(benchmark::State& state) {
  const auto src = random_bytes(size_t(state.range(0)));
  std::vector<uint8_t> dst(src.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), src.data(), src.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Memcpy)->Arg(16 << 10)->Arg(1 << 20);

void BM_Crc32c(benchmark::State& state) {
  const auto src = random_bytes(size_t(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc32c(src));
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Crc32c)->Arg(16 << 10)->Arg(1 << 20);

void BM_Crc32cIsalRaw(benchmark::State& state) {
  auto src = random_bytes(size_t(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc32_iscsi(src.data(), int(src.size()), ~0u));
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Crc32cIsalRaw)->Arg(16 << 10)->Arg(1 << 20);

void BM_Crc32cByteLoop(benchmark::State& state) {
  const auto src = random_bytes(size_t(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(crc32c_portable(src));
  state.SetBytesProcessed(int64_t(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Crc32cByteLoop)->Arg(16 << 10)->Arg(1 << 20);

// --- Batches of N records of 100-byte values --------------------------------------

std::vector<uint8_t> make_batch(int records, Codec codec) {
  BatchOptions o;
  o.codec = codec;
  BatchBuilder b(o);
  std::mt19937 rng(1);
  std::string value(100, 'x');
  for (int i = 0; i < records; ++i) {
    // Text-like values: compressible, not trivially so.
    for (auto& ch : value) ch = char('a' + rng() % 16);
    b.append(1700000000000 + i, std::nullopt, as_bytes(value));
  }
  return std::move(b.finish()).value();
}

void BM_StampOffsets(benchmark::State& state) {
  auto batch = make_batch(int(state.range(0)), Codec::kNone);
  int64_t base = 0;
  for (auto _ : state) {
    stamp_batch(batch, Offset(base += 1000), LeaderEpoch(3));
    benchmark::ClobberMemory();
  }
  state.counters["batch_bytes"] = double(batch.size());
}
BENCHMARK(BM_StampOffsets)->Arg(1)->Arg(1000);

void BM_Build(benchmark::State& state) {
  const Codec codec = Codec(state.range(0));
  std::string value(100, 'x');
  std::mt19937 rng(1);
  for (auto& ch : value) ch = char('a' + rng() % 16);
  size_t out_bytes = 0;
  for (auto _ : state) {
    BatchOptions o;
    o.codec = codec;
    BatchBuilder b(o);
    for (int i = 0; i < 1000; ++i) b.append(1700000000000 + i, std::nullopt, as_bytes(value));
    auto out = b.finish();
    out_bytes = out->size();
    benchmark::DoNotOptimize(out->data());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 1000 * 100);
  state.SetItemsProcessed(int64_t(state.iterations()) * 1000);
  state.counters["batch_bytes"] = double(out_bytes);
  state.SetLabel(codec_name(codec));
}
BENCHMARK(BM_Build)->DenseRange(0, 4);

// Validate (CRC + records) and iterate every record, touching keys and values.
void BM_ValidateAndIterate(benchmark::State& state) {
  const Codec codec = Codec(state.range(0));
  const auto batch = make_batch(1000, codec);
  std::vector<uint8_t> scratch;
  for (auto _ : state) {
    auto v = validate_batch(batch, {RecordCheck::kNone, {}}, scratch);
    auto records = uncompressed_records(*v, scratch);
    RecordCursor cursor(*records, v->record_count());
    RecordView r;
    size_t sum = 0;
    while (*cursor.next(r)) sum += r.value->size();
    benchmark::DoNotOptimize(sum);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * 1000 * 100);
  state.SetItemsProcessed(int64_t(state.iterations()) * 1000);
  state.SetLabel(codec_name(codec));
}
BENCHMARK(BM_ValidateAndIterate)->DenseRange(0, 4);

// Full producer-side validation (what the broker does once per produced batch).
void BM_ValidateProducerBatch(benchmark::State& state) {
  const auto batch = make_batch(1000, Codec::kNone);
  std::vector<uint8_t> scratch;
  for (auto _ : state) benchmark::DoNotOptimize(validate_batch(batch, {}, scratch).ok());
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(batch.size()));
}
BENCHMARK(BM_ValidateProducerBatch);

}  // namespace

BENCHMARK_MAIN();
