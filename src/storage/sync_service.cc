// Group commit: one thread, one queue, rounds.
//
// The sync thread sleeps on a condition variable until the queue is non-empty, then takes
// the whole queue as one round, fdatasyncs each distinct file of the round once, and calls
// every request back. Requests that arrive while a round runs wait for the next round, so
// their fdatasync starts after they were queued (the durability contract in the header),
// and however many of them there are, they share one fdatasync per file.
//
// Bounds. The queue has no fixed limit: each request names a handful of files (a segment's
// log, perhaps its indexes), and the number of requests in flight is bounded upstream by the
// callers, who each wait for their own callback (queued.max.requests and the per-connection
// in-flight limit on the produce path). A round therefore holds at most that many requests.
//
// Parallel files. A round naming several files (a produce to many partitions, a
// transaction's markers, commits of groups on different partitions) syncs them at once:
// the sync thread and kSyncWorkers helpers take files from a shared index. Journaling
// file systems commit concurrent fdatasyncs together: on this project's test machine a
// round of 16 files cost 2-15x less than 16 sequential fdatasyncs (bench/
// storage_sync_bench, BM_RoundOfFiles; docs/performance.md, "Group commit").
//
// Errors. A failed fdatasync is reported to every request of the round that named the file
// and is not retried. On Linux a failed fdatasync may drop the dirty pages and clear the
// error, so a later round can succeed on the same file without the data being durable: the
// owner of a file must treat a sync error as fatal for it (Kafka takes the log dir offline).
// The service does not remember failures.
#include "common/thread_name.h"
#include "storage/sync_service.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

namespace strata::storage {

namespace {

struct Request {
  std::vector<std::shared_ptr<File>> files;  // kept alive until the round ends
  SyncService::Done done;
};

// One distinct file of a round and the outcome of its fdatasync.
struct Synced {
  File* file;
  std::optional<StorageError> error;
};

// The distinct files named by `round`, sorted by address for lookup.
std::vector<Synced> distinct_files(const std::vector<Request>& round) {
  std::vector<Synced> synced;
  for (const Request& r : round) {
    for (const auto& f : r.files) synced.push_back({f.get(), std::nullopt});
  }
  const auto by_file = [](const Synced& a, const Synced& b) {
    return std::less<File*>()(a.file, b.file);
  };
  std::sort(synced.begin(), synced.end(), by_file);
  const auto same_file = [](const Synced& a, const Synced& b) { return a.file == b.file; };
  synced.erase(std::unique(synced.begin(), synced.end(), same_file), synced.end());
  return synced;
}

const Synced& find(const std::vector<Synced>& synced, const File* file) {
  const auto it = std::lower_bound(
      synced.begin(), synced.end(), file,
      [](const Synced& s, const File* f) { return std::less<const File*>()(s.file, f); });
  assert(it != synced.end() && it->file == file);
  return *it;
}

// OK, or the error of the request's first file (in its own order) whose fdatasync failed.
Result<void, StorageError> outcome(const Request& r, const std::vector<Synced>& synced) {
  for (const auto& f : r.files) {
    const Synced& s = find(synced, f.get());
    if (s.error) return fail(*s.error);
  }
  return {};
}

}  // namespace

// Helpers that fdatasync a round's files alongside the sync thread.
constexpr size_t kSyncWorkers = 3;

// The files of the round being synced, shared with the helpers: each takes the next
// index until none is left.
struct ParallelRound {
  std::mutex mu;
  std::condition_variable wake;  // helpers: a new round (generation) or stopping
  std::condition_variable done;  // sync thread: `active` reached 0
  uint64_t generation = 0;       // guarded by mu
  size_t active = 0;             // helpers still working on this round, guarded by mu
  bool stopping = false;         // guarded by mu
  std::vector<Synced>* files = nullptr;
  std::atomic<size_t> next{0};

  void sync_some() {
    for (size_t i = next.fetch_add(1); i < files->size(); i = next.fetch_add(1)) {
      auto r = (*files)[i].file->datasync();
      if (!r) (*files)[i].error = r.error();
    }
  }
};

struct SyncService::Impl {
  mutable std::mutex mu;
  std::condition_variable wake;  // signalled when the queue grows or `stopping` is set
  std::vector<Request> queue;    // guarded by mu
  bool stopping = false;         // guarded by mu
  SyncStats stats;               // guarded by mu
  ParallelRound parallel;
  std::vector<std::thread> helpers;
  std::thread thread;            // started last, joined by ~SyncService

  void run();
  void serve(std::vector<Request>& round);
  void sync_all(std::vector<Synced>& files);
  void help();
};

// A helper: waits for a round, syncs files of it until none are left, reports, repeats.
void SyncService::Impl::help() {
  ParallelRound& p = parallel;
  uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(p.mu);
      p.wake.wait(lock, [&] { return p.stopping || p.generation != seen; });
      if (p.stopping) return;
      seen = p.generation;
    }
    p.sync_some();
    std::lock_guard lock(p.mu);
    if (--p.active == 0) p.done.notify_one();
  }
}

// One file: synced here. Several: the helpers join in, and all are done on return.
void SyncService::Impl::sync_all(std::vector<Synced>& files) {
  if (files.size() <= 1 || helpers.empty()) {
    for (Synced& s : files) {
      auto r = s.file->datasync();
      if (!r) s.error = r.error();
    }
    return;
  }
  ParallelRound& p = parallel;
  {
    std::lock_guard lock(p.mu);
    p.files = &files;
    p.next = 0;
    p.active = helpers.size();
    ++p.generation;
  }
  p.wake.notify_all();
  p.sync_some();
  std::unique_lock lock(p.mu);
  p.done.wait(lock, [&] { return p.active == 0; });
  p.files = nullptr;
}

// Until stopped and drained: take the whole queue, serve it, repeat. Requests queued by a
// callback (or by anyone before the destructor) are served before the thread exits.
void SyncService::Impl::run() {
  std::vector<Request> round;
  for (;;) {
    {
      std::unique_lock lock(mu);
      wake.wait(lock, [this] { return stopping || !queue.empty(); });
      if (queue.empty()) return;  // stopping, and nothing left to serve
      assert(round.empty());
      round.swap(queue);
    }
    serve(round);
    round.clear();  // drops the files and callbacks of the round, on this thread
  }
}

void SyncService::Impl::serve(std::vector<Request>& round) {
  assert(!round.empty());
  std::vector<Synced> synced = distinct_files(round);
  sync_all(synced);
  {
    // Before the callbacks, so a caller woken by one sees its round counted.
    std::lock_guard lock(mu);
    stats.rounds += 1;
    stats.fdatasyncs += synced.size();
  }
  for (Request& r : round) r.done(outcome(r, synced));
}

SyncService::SyncService() : impl_(std::make_unique<Impl>()) {
  for (size_t i = 0; i < kSyncWorkers; ++i) {
    impl_->helpers.emplace_back([impl = impl_.get()] {
      set_thread_name("sync-io");
      impl->help();
    });
  }
  impl_->thread = std::thread([impl = impl_.get()] {
    set_thread_name("sync");
    impl->run();
  });
}

SyncService::~SyncService() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->wake.notify_one();
  impl_->thread.join();
  assert(impl_->queue.empty());
  {
    std::lock_guard lock(impl_->parallel.mu);
    impl_->parallel.stopping = true;
  }
  impl_->parallel.wake.notify_all();
  for (std::thread& t : impl_->helpers) t.join();
}

void SyncService::request(std::vector<std::shared_ptr<File>> files, Done done) {
  assert(done);
  assert(std::all_of(files.begin(), files.end(), [](const auto& f) { return f != nullptr; }));
  {
    std::lock_guard lock(impl_->mu);
    impl_->queue.push_back({std::move(files), std::move(done)});
    impl_->stats.requests += 1;
  }
  impl_->wake.notify_one();
}

SyncStats SyncService::stats() const {
  std::lock_guard lock(impl_->mu);
  return impl_->stats;
}

}  // namespace strata::storage
