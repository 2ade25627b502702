// Producer ids for InitProducerId, never handed out twice across restarts: ids are
// reserved in blocks (Kafka's controller hands out blocks of 1000), and the end of the
// reserved range is made durable in <log.dir>/strata-producer-ids before any id of the
// block is used. A restart starts at that end, skipping what was unused. Thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "common/result.h"
#include "common/types.h"

namespace strata::broker {

class ProducerIds {
 public:
  static constexpr int64_t kBlockSize = 1000;

  // Reads the file if it exists (a missing file starts at 0).
  Result<void, std::string> load(const std::string& path);
  // In a cluster blocks come from `reserve` (etcd's /latest_producer_id_block: the first
  // id of a new block of kBlockSize), not from the file.
  using Reserve = std::function<Result<int64_t, std::string>()>;
  void reserve_from(Reserve reserve);
  // Reserves a block now if none is held, so that InitProducerId does not wait for (or
  // fail on) etcd for the next kBlockSize producers.
  Result<void, std::string> prefetch();
  // The next id, reserving (durably) a new block when the current one is used up.
  Result<ProducerId, std::string> next();

 private:
  std::mutex mu_;
  std::string path_;
  int64_t next_ = 0;
  int64_t reserved_end_ = 0;  // ids below it are reserved on disk
  Reserve reserve_;
};

}  // namespace strata::broker
