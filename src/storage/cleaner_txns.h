// The cleaner's view of transactions as it walks the log (Kafka's
// CleanedTransactionMetadata): which data batches belong to aborted transactions (they
// go), and when a COMMIT or ABORT marker may go (once no batch of its transaction is
// left). An ABORT marker that stays is written again to the cleaned segment's txn index.
//
// Threading: the cleaner thread's, one per pass over the log.
#pragma once

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "common/result.h"
#include "common/types.h"
#include "record/batch_view.h"
#include "storage/errors.h"
#include "storage/txn_index.h"

namespace strata::storage {

class CleanerTxns {
 public:
  // The aborted transactions the pass may meet, in any order.
  explicit CleanerTxns(std::vector<AbortedTxn> aborted);

  // Kafka's onBatchRead: true when the data batch belongs to an aborted transaction.
  bool on_data(const record::BatchView& batch);
  // Kafka's onControlBatchRead: true when the marker may be discarded (an empty control
  // batch, a COMMIT none of whose batches this pass saw, an ABORT whose batches are all
  // gone). An ABORT that stays is appended to `cleaned` (the output's txn index) if set.
  Result<bool, StorageError> on_control(const record::BatchView& batch, TxnIndex* cleaned);

 private:
  struct OngoingAbort {
    AbortedTxn txn;
    std::optional<Offset> last_batch;  // the last batch of it this pass saw
  };
  // Moves the aborted transactions that start at or before `offset` to ongoing_aborts_.
  void start_aborts_up_to(Offset offset);

  std::vector<AbortedTxn> aborted_;  // by first offset, descending: the next is at the back
  std::unordered_map<ProducerId, OngoingAbort> ongoing_aborts_;
  std::unordered_set<ProducerId> ongoing_commits_;
};

}  // namespace strata::storage
