// What the leader writes into a validated batch before appending it.
#pragma once

#include "common/bytes.h"
#include "common/types.h"

namespace strata::record {

// Writes baseOffset and partitionLeaderEpoch into the header, in place. O(1) and
// the CRC stays valid: neither field is covered by it (the CRC starts at attributes).
// Requires: `batch` framed by frame_batch.
void stamp_batch(MutableBytes batch, Offset base_offset, LeaderEpoch epoch);

// message.timestamp.type=LogAppendTime: sets the timestamp-type bit and
// maxTimestamp = `now`, then recomputes the CRC. The one rewrite of a producer's
// batch that must re-checksum; its cost grows with the batch size.
void set_log_append_time(MutableBytes batch, TimestampMs now);

}  // namespace strata::record
