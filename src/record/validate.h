// Validation of v2 batches, in two depths:
//  - frame_batch: the header is there, magic is 2, batchLength fits the input.
//  - validate_batch: frame + CRC32C + (deep) every record decoded and counted.
// A producer's batch is validated once, on the way in; the storage layer
// re-validates on recovery. Corruption is reported as a RecordErrc value.
#pragma once

#include <vector>

#include "common/bytes.h"
#include "common/result.h"
#include "record/batch_view.h"
#include "record/compression.h"
#include "record/errors.h"

namespace strata::record {

// Frames the v2 batch at the start of `in` (which may hold more bytes after it).
// Checks: 61 header bytes present, magic 2, batchLength large enough for a header
// and not past the end of `in`. Does not check the CRC or the records.
Result<BatchView, RecordErrc> frame_batch(Bytes in);

enum class RecordCheck : uint8_t {
  kNone,      // framing and CRC only
  kLog,       // records decode; offset deltas increase and stay <= lastOffsetDelta
              // (compacted batches have gaps)
  kProducer,  // as a producer must send: at least one record, deltas exactly 0..n-1,
              // lastOffsetDelta == n-1
};

struct ValidateOptions {
  RecordCheck records = RecordCheck::kProducer;
  DecompressLimits limits;
  // A compacted topic's records need keys (Kafka's LogValidator.validateKey): a record
  // without one fails with kMissingKey. Control batches are exempt.
  bool require_keys = false;
};

// Full validation of the batch at the start of `in`. `scratch` receives the
// decompressed records of a compressed batch (reused across calls).
Result<BatchView, RecordErrc> validate_batch(Bytes in, const ValidateOptions& options,
                                             std::vector<uint8_t>& scratch);

// Record-level checks of an already framed batch whose CRC is known good.
Result<void, RecordErrc> validate_records(const BatchView& batch, const ValidateOptions& options,
                                          std::vector<uint8_t>& scratch);

}  // namespace strata::record
