// The broker's log cleaner threads (log.cleaner.threads): each takes the filthiest
// compacted partition (LogManager::grab_filthiest, over figures the maintenance loop
// refreshes every second on the partitions' shards), has its shard describe the work
// (Log::prepare_clean), cleans on the cleaner thread with its own bounded offset map
// (run_clean: log.cleaner.dedupe.buffer.size split between the threads), and has the
// shard swap the result in (Log::finish_clean). Idle threads wait
// log.cleaner.backoff.ms. storage/log_cleaner.h has the protocol.
//
// Stop it before the shards stop: its threads wait on shard work.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "storage/log_config.h"
#include "storage/log_manager.h"
#include "storage/offset_map.h"

namespace strata::broker {

class Broker;

class BrokerCleaner {
 public:
  BrokerCleaner(Broker& broker, storage::CleanerConfig config)
      : broker_(broker), config_(config) {}
  ~BrokerCleaner() { stop(); }

  void start();
  // Aborts cleanings between batches and joins the threads.
  void stop();

 private:
  void run();
  // Cleans one partition; false if none needed cleaning or the cleaning made no
  // progress (failed, or stopped where it started).
  bool clean_one(storage::OffsetMap& map);
  bool clean(const storage::TopicPartition& tp, storage::OffsetMap& map);

  Broker& broker_;
  storage::CleanerConfig config_;
  std::vector<std::thread> threads_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::atomic<bool> stopping_{false};
};

}  // namespace strata::broker
