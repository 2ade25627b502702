// Group commit. Appends go to the page cache; a durable append waits for an fdatasync
// that started after its write. The SyncService runs those fdatasyncs on its own threads
// (never on a thread that serves the network) and shares each one among every request
// that arrived meanwhile: while one round of fdatasyncs runs, new requests queue, and the
// next round syncs each distinct file once for all of them, the files of a round in
// parallel.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "common/result.h"
#include "storage/errors.h"
#include "storage/file.h"

namespace strata::storage {

struct SyncStats {
  uint64_t requests = 0;
  uint64_t rounds = 0;     // batches of requests served together
  uint64_t fdatasyncs = 0; // system calls made
};

class SyncService {
 public:
  // Called on the sync thread once every file of the request is durable, or with the
  // first error. Must not block for long: it delays the next round.
  using Done = std::function<void(Result<void, StorageError>)>;

  SyncService();   // starts the sync thread
  ~SyncService();  // serves every queued request, then joins
  SyncService(const SyncService&) = delete;
  SyncService& operator=(const SyncService&) = delete;

  // Makes `files` durable: `done` runs after an fdatasync of each of them that began
  // after this call. Thread-safe.
  void request(std::vector<std::shared_ptr<File>> files, Done done);
  SyncStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::storage
