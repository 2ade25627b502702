// Fuzzes the v2 batch decoder: framing, CRC, every record field, each codec.
// The input is used twice: as raw bytes, and with its CRC fixed up so the fuzzer
// reaches the record decoder behind the checksum.
#include <cstdint>
#include <vector>

#include "record/batch_view.h"
#include "record/control.h"
#include "record/crc32c.h"
#include "record/validate.h"

using namespace strata;
using namespace strata::record;

namespace {

void decode_all(Bytes in) {
  std::vector<uint8_t> scratch;
  ValidateOptions options;
  options.limits.max_output_bytes = 1 << 20;
  for (RecordCheck mode : {RecordCheck::kProducer, RecordCheck::kLog}) {
    options.records = mode;
    auto batch = validate_batch(in, options, scratch);
    if (!batch) continue;
    // A validated batch must iterate cleanly to the end.
    auto records = uncompressed_records(*batch, scratch, options.limits);
    if (!records) __builtin_trap();
    RecordCursor cursor(*records, batch->record_count());
    RecordView r;
    int32_t n = 0;
    for (;;) {
      auto more = cursor.next(r);
      if (!more) __builtin_trap();
      if (!*more) break;
      ++n;
      HeaderCursor hc(r);
      Header h;
      int32_t headers = 0;
      while (hc.next(h)) ++headers;
      if (headers != r.header_count) __builtin_trap();
      if (batch->is_control()) {
        if (auto key = parse_control_key(r.key); key && key->is_end_txn()) {
          (void)parse_end_txn_marker(*key, r.value);
        }
      }
    }
    if (n != batch->record_count()) __builtin_trap();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  decode_all(Bytes(data, size));
  if (size >= kHeaderSize) {
    std::vector<uint8_t> sealed(data, data + size);
    sealed[kMagicPos] = uint8_t(kMagicV2);
    store_be32(&sealed[kBatchLengthPos], uint32_t(size - kLogOverhead));
    store_be32(&sealed[kCrcPos], crc32c(Bytes(sealed).subspan(kCrcStart)));
    decode_all(sealed);
  }
  return 0;
}
