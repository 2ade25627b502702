// Group commit (issue 3): durable appends of 16 KiB batches from 1, 4 and 16 concurrent
// writers through the SyncService, against one writer doing pwrite + fdatasync inline per
// batch. items_per_second is batches made durable per second (all writers together);
// fdatasyncs_per_batch shows how many waiters shared each fdatasync. Compare ratios within
// one run: the machine is shared and its disk is whatever /tmp sits on.
//
// BM_RoundOfFiles*: a round naming 1, 4 or 16 files, synced one after another (Inline)
// or by the SyncService, which syncs a round's files in parallel.
//
// Files go to $STRATA_BENCH_DIR (default /tmp) and are removed afterwards. Run:
//   build/release/bench/storage_sync_bench --benchmark_min_time=1
// Every case uses real time: the writers sleep in fdatasync, so CPU time means nothing.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <semaphore>
#include <string>
#include <vector>

#include "storage/file.h"
#include "storage/sync_service.h"

using namespace strata;
using namespace strata::storage;

namespace {

constexpr size_t kBatchBytes = 16 << 10;
// Each writer appends in its own region of the shared file, wrapping at the end of it
// (a run at the default min time writes a few MiB per writer).
constexpr uint64_t kRegionBytes = uint64_t(256) << 20;
constexpr uint64_t kBatchesPerRegion = kRegionBytes / kBatchBytes;

std::string bench_path(const std::string& name) {
  const char* dir = std::getenv("STRATA_BENCH_DIR");
  return std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/strata-sync-bench-" +
         std::to_string(::getpid()) + "-" + name;
}

// An I/O failure ends the whole run: a writer thread cannot leave the timed loop alone
// (Google Benchmark would wait for it at the loop's end barrier).
[[noreturn]] void die(const StorageError& e) {
  std::fprintf(stderr, "storage_sync_bench: %s\n", e.message().c_str());
  std::abort();
}

// A new, empty file at `path`.
std::shared_ptr<File> fresh_file(const std::string& path) {
  ::unlink(path.c_str());
  auto f = File::open(path, /*create=*/true);
  if (!f.ok()) die(f.error());
  return *f;
}

uint64_t batch_offset(int writer, uint64_t batch) {
  return uint64_t(writer) * kRegionBytes + (batch % kBatchesPerRegion) * kBatchBytes;
}

// --- Baseline: one writer, pwrite + fdatasync per batch, on its own thread -----------

void BM_InlineFdatasync(benchmark::State& state) {
  const std::string path = bench_path("inline");
  auto file = fresh_file(path);
  const std::vector<uint8_t> batch(kBatchBytes, 0xab);
  uint64_t n = 0;
  for (auto _ : state) {
    if (auto w = file->pwrite_all(batch, batch_offset(0, n++)); !w.ok()) die(w.error());
    if (auto s = file->datasync(); !s.ok()) die(s.error());
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
  state.counters["fdatasyncs_per_batch"] = 1.0;
  file.reset();
  ::unlink(path.c_str());
}
BENCHMARK(BM_InlineFdatasync)->UseRealTime()->Unit(benchmark::kMicrosecond);

// --- Group commit: N writers, pwrite then wait for the SyncService ----------------------

// Shared by the writer threads of one run; set up and torn down by thread 0 outside the
// timed loop (Google Benchmark starts and stops all threads of a run together).
struct Shared {
  std::string path;
  std::shared_ptr<File> file;
  std::unique_ptr<SyncService> sync;
};
Shared g_shared;

void BM_GroupCommit(benchmark::State& state) {
  if (state.thread_index() == 0) {
    g_shared.path = bench_path("group");
    g_shared.file = fresh_file(g_shared.path);
    g_shared.sync = std::make_unique<SyncService>();
  }
  const std::vector<uint8_t> batch(kBatchBytes, uint8_t(state.thread_index()));
  std::binary_semaphore durable{0};
  uint64_t n = 0;
  for (auto _ : state) {
    auto w = g_shared.file->pwrite_all(batch, batch_offset(state.thread_index(), n++));
    if (!w.ok()) die(w.error());
    g_shared.sync->request({g_shared.file}, [&durable](Result<void, StorageError> r) {
      if (!r.ok()) die(r.error());
      durable.release();
    });
    durable.acquire();
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
  if (state.thread_index() == 0) {
    // Counters are summed over threads, so only thread 0 reports the run's ratios.
    const SyncStats st = g_shared.sync->stats();
    state.counters["fdatasyncs_per_batch"] = double(st.fdatasyncs) / double(st.requests);
    state.counters["batches_per_round"] = double(st.requests) / double(st.rounds);
    g_shared.sync.reset();
    g_shared.file.reset();
    ::unlink(g_shared.path.c_str());
  }
}
BENCHMARK(BM_GroupCommit)
    ->Threads(1)
    ->Threads(4)
    ->Threads(16)
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);

// --- A round of N files: 16 KiB appended to each of N files, then all made durable ---
// (a produce to N partitions, a transaction's markers, commits of N groups). Inline: one
// fdatasync after another, as the SyncService did before it synced a round's files in
// parallel. Service: one request naming the N files.

struct Files {
  std::vector<std::string> paths;
  std::vector<std::shared_ptr<File>> files;
  explicit Files(int n) {
    for (int i = 0; i < n; ++i) {
      paths.push_back(bench_path("round-" + std::to_string(i)));
      files.push_back(fresh_file(paths.back()));
    }
  }
  ~Files() {
    files.clear();
    for (const auto& p : paths) ::unlink(p.c_str());
  }
  void append(const std::vector<uint8_t>& batch, uint64_t n) {
    for (auto& f : files) {
      auto w = f->pwrite_all(batch, (n % kBatchesPerRegion) * kBatchBytes);
      if (!w.ok()) die(w.error());
    }
  }
};

void BM_RoundOfFilesInline(benchmark::State& state) {
  Files files(int(state.range(0)));
  const std::vector<uint8_t> batch(kBatchBytes, 1);
  uint64_t n = 0;
  for (auto _ : state) {
    files.append(batch, n++);
    for (auto& f : files.files) {
      if (auto s = f->datasync(); !s.ok()) die(s.error());
    }
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_RoundOfFilesInline)->Arg(1)->Arg(4)->Arg(16)->UseRealTime()->Unit(benchmark::kMicrosecond);

void BM_RoundOfFilesService(benchmark::State& state) {
  Files files(int(state.range(0)));
  SyncService sync;
  const std::vector<uint8_t> batch(kBatchBytes, 1);
  std::binary_semaphore durable{0};
  uint64_t n = 0;
  for (auto _ : state) {
    files.append(batch, n++);
    sync.request(files.files, [&durable](Result<void, StorageError> r) {
      if (!r.ok()) die(r.error());
      durable.release();
    });
    durable.acquire();
  }
  state.SetItemsProcessed(int64_t(state.iterations()));
}
BENCHMARK(BM_RoundOfFilesService)->Arg(1)->Arg(4)->Arg(16)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
