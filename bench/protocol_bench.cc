// Request decoding (issue 13): what protocol::Decoder costs on realistic Produce and
// Fetch requests, next to a memcpy of the same frame (the ratio is the number to read;
// the machine is shared). Run: build/release/bench/protocol_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <cstring>
#include <string>
#include <vector>

#include "protocol/apis/fetch.h"
#include "protocol/apis/metadata.h"
#include "protocol/apis/produce.h"
#include "protocol/message.h"

using namespace strata;
using namespace strata::protocol;

namespace {

template <class T>
std::vector<uint8_t> encode(T& m, int16_t version) {
  Output out;
  Encoder e(out, version, version >= T::kFlexibleFrom);
  e.encode(m);
  return std::move(out.bytes);
}

// Produce v9 (flexible, librdkafka's): one topic, `partitions` batches of 16 KiB each.
std::vector<uint8_t> produce_frame(int partitions, std::vector<uint8_t>& records) {
  records.assign(16 << 10, 0x5a);
  ProduceRequest r;
  r.acks = -1;
  r.timeout_ms = 30000;
  auto& t = r.topic_data.emplace_back();
  t.name = "orders";
  for (int i = 0; i < partitions; ++i) {
    auto& p = t.partition_data.emplace_back();
    p.index = i;
    p.records.data = MutableBytes(records);
  }
  return encode(r, 9);
}

// Fetch v12 (names) or v13 (topic ids): `topics` topics of `partitions` partitions.
std::vector<uint8_t> fetch_frame(int16_t version, int topics, int partitions) {
  FetchRequest r;
  r.max_wait_ms = 500;
  r.min_bytes = 1;
  r.session_epoch = -1;
  for (int t = 0; t < topics; ++t) {
    auto& ft = r.topics.emplace_back();
    ft.topic = "topic-" + std::to_string(t);
    ft.topic_id.bytes[0] = uint8_t(t + 1);
    for (int i = 0; i < partitions; ++i) {
      auto& p = ft.partitions.emplace_back();
      p.partition = i;
      p.current_leader_epoch = 3;
      p.fetch_offset = 123456789 + i;
      p.partition_max_bytes = 1 << 20;
    }
  }
  return encode(r, version);
}

std::vector<uint8_t> metadata_frame(int topics) {
  MetadataRequest r;
  r.topics.emplace();
  for (int t = 0; t < topics; ++t) r.topics->emplace_back().name = "topic-" + std::to_string(t);
  return encode(r, 12);
}

template <class T>
void decode_loop(benchmark::State& state, std::vector<uint8_t>& frame, int16_t version) {
  for (auto _ : state) {
    T m;
    Decoder d(frame, 0, version, version >= T::kFlexibleFrom);
    d.decode(m);
    if (!d.ok()) state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(m);
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(frame.size()));
  state.counters["frame_bytes"] = double(frame.size());
}

void BM_DecodeProduceV9(benchmark::State& state) {
  std::vector<uint8_t> records;
  auto frame = produce_frame(int(state.range(0)), records);
  decode_loop<ProduceRequest>(state, frame, 9);
}
BENCHMARK(BM_DecodeProduceV9)->Arg(6)->Arg(600);

void BM_DecodeFetchV12(benchmark::State& state) {
  auto frame = fetch_frame(12, int(state.range(0)), int(state.range(1)));
  decode_loop<FetchRequest>(state, frame, 12);
}
BENCHMARK(BM_DecodeFetchV12)->Args({1, 6})->Args({6, 100})->Args({60, 100});

void BM_DecodeFetchV4(benchmark::State& state) {
  auto frame = fetch_frame(4, int(state.range(0)), int(state.range(1)));
  decode_loop<FetchRequest>(state, frame, 4);
}
BENCHMARK(BM_DecodeFetchV4)->Args({1, 6})->Args({60, 100});

void BM_DecodeMetadataV12(benchmark::State& state) {
  auto frame = metadata_frame(int(state.range(0)));
  decode_loop<MetadataRequest>(state, frame, 12);
}
BENCHMARK(BM_DecodeMetadataV12)->Arg(10)->Arg(1000);

// The yardstick: copying the frame (Fetch v12, 60 x 100 partitions).
void BM_MemcpyFetchFrame(benchmark::State& state) {
  const auto frame = fetch_frame(12, 60, 100);
  std::vector<uint8_t> dst(frame.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), frame.data(), frame.size());
    benchmark::DoNotOptimize(dst.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(frame.size()));
}
BENCHMARK(BM_MemcpyFetchFrame);

}  // namespace

BENCHMARK_MAIN();
