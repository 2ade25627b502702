#include "record/stamp.h"

#include <cassert>

#include "record/batch_format.h"
#include "record/crc32c.h"

namespace strata::record {

void stamp_batch(MutableBytes batch, Offset base_offset, LeaderEpoch epoch) {
  assert(batch.size() >= kHeaderSize);
  store_be64(&batch[kBaseOffsetPos], uint64_t(base_offset.value()));
  store_be32(&batch[kPartitionLeaderEpochPos], uint32_t(epoch.value()));
}

void set_log_append_time(MutableBytes batch, TimestampMs now) {
  assert(batch.size() >= kHeaderSize);
  const uint16_t attributes = load_be16(&batch[kAttributesPos]);
  store_be16(&batch[kAttributesPos], uint16_t(attributes | kTimestampTypeBit));
  store_be64(&batch[kMaxTimestampPos], uint64_t(now.value()));
  store_be32(&batch[kCrcPos], crc32c(Bytes(batch).subspan(kCrcStart)));
}

}  // namespace strata::record
