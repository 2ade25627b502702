#include "common/thread_name.h"
#include "broker/cleaner.h"

#include <spdlog/spdlog.h>

#include <future>

#include "broker/broker.h"

namespace strata::broker {

namespace {

// Runs `fn` on shard `s` and waits for its result (from a cleaner thread; the shards
// run until the cleaner has stopped).
template <class Fn>
auto on_shard_blocking(Broker& broker, size_t s, Fn fn) {
  using R = decltype(fn());
  std::packaged_task<R()> task(std::move(fn));
  std::future<R> result = task.get_future();
  asio::post(broker.shard(s), [&task] { task(); });
  return result.get();
}

}  // namespace

void BrokerCleaner::start() {
  if (!config_.enable) return;
  for (int32_t i = 0; i < std::max(config_.threads, 1); ++i) {
    threads_.emplace_back([this] {
      set_thread_name("cleaner");
      run();
    });
  }
}

void BrokerCleaner::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
}

void BrokerCleaner::run() {
  auto map = storage::OffsetMap::create(config_.map_bytes_per_thread());
  if (!map) {
    spdlog::error("log cleaner: no offset map: {}; compaction is off", map.error().message());
    return;
  }
  while (!stopping_) {
    // After a cleaning, look for the next at once; when none was needed, or the one
    // tried failed (a corrupt batch, a log no longer compacted), wait, so a partition
    // that cannot be cleaned is retried every log.cleaner.backoff.ms, not in a loop.
    if (clean_one(**map)) continue;
    std::unique_lock lock(mu_);
    wake_.wait_for(lock, std::chrono::milliseconds(config_.backoff_ms),
                   [this] { return stopping_.load(); });
  }
}

bool BrokerCleaner::clean_one(storage::OffsetMap& map) {
  auto tp = broker_.logs().grab_filthiest();
  if (!tp) return false;
  const bool cleaned = clean(*tp, map);
  map.clear();  // returns the map's pages: an idle cleaner holds no table memory
  return cleaned;
}

bool BrokerCleaner::clean(const storage::TopicPartition& tp, storage::OffsetMap& map) {
  storage::LogManager& logs = broker_.logs();
  const size_t shard = broker_.owner_shard(tp);
  const std::string name = tp.topic + "-" + std::to_string(tp.partition.value());
  const auto checkpoint = logs.cleaner_checkpoint(tp);
  auto task = on_shard_blocking(broker_, shard, [&logs, &tp, &checkpoint] {
    using R = Result<std::optional<storage::CleanTask>, storage::StorageError>;
    storage::Log* log = logs.get(tp);
    if (log == nullptr) return R(std::optional<storage::CleanTask>());
    return log->prepare_clean(checkpoint, now_ms());
  });
  if (!task || !*task) {
    if (!task) spdlog::warn("log cleaner: {}: {}", name, task.error().message());
    logs.abort_cleaning(tp);
    return false;
  }
  const auto started = std::chrono::steady_clock::now();
  auto result = storage::run_clean(**task, map, config_, now_ms(), &stopping_);
  if (!result) {
    if (!stopping_) spdlog::error("log cleaner: {}: {}", name, result.error().message());
    logs.abort_cleaning(tp);
    return false;
  }
  std::string dir;
  auto outcome = on_shard_blocking(broker_, shard, [&logs, &tp, &result, &dir] {
    using R = Result<storage::CleanOutcome, storage::StorageError>;
    storage::Log* log = logs.get(tp);
    if (log == nullptr) return R(fail(storage::storage_error(storage::StorageErrc::kClosed, "deleted")));
    dir = log->dir();
    return log->finish_clean(std::move(*result), now_ms());
  });
  if (!outcome) {
    spdlog::warn("log cleaner: {}: not swapped in: {}", name, outcome.error().message());
    logs.abort_cleaning(tp);
    return false;
  }
  // The swap's final renames, made durable here rather than on the shard (Log::swap_in).
  if (auto r = storage::sync_directory(dir); !r) {
    spdlog::warn("log cleaner: {}: {} (a restart completes the swap)", name, r.error().message());
  }
  if (auto r = logs.done_cleaning(tp, *outcome, now_ms()); !r) {
    spdlog::error("log cleaner: {}: cleaner-offset-checkpoint: {}", name, r.error().message());
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto& st = outcome->stats;
  spdlog::info("log cleaner: cleaned {} up to offset {}: {} segments ({} bytes, {} records) -> "
               "{} segments ({} bytes, {} records) in {:.3f} s, map {:.0f}% full",
               name, outcome->first_dirty.value(), st.segments_read, outcome->bytes_before,
               st.records_read, st.segments_written, outcome->bytes_after, st.records_written,
               secs, st.map_utilization * 100);
  // A cleaning that could not move past its first dirty offset (the offset map filled
  // inside one batch) would be chosen again at once: wait instead.
  return outcome->first_dirty > (*task)->first_dirty;
}

}  // namespace strata::broker
