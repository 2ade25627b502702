// Fuzzes the decoders of what the coordinators read back from disk: __consumer_offsets
// keys and values (classic and KIP-848 consumer groups), __transaction_state keys and values, .txnindex entries and producer
// snapshot files. The
// first input byte picks the decoder. Must never crash; a value that decodes must
// re-encode to bytes that decode to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "group/records.h"
#include "storage/producer_snapshot.h"
#include "storage/txn_index.h"
#include "txn/records.h"

namespace {

using namespace strata;

void txn_value(Bytes in) {
  auto v = txn::decode_txn_value(in);
  if (!v) return;
  // Kafka never writes an Empty state with partitions; the encoder refuses to.
  if (v->state == txn::TxnState::kEmpty && !v->partitions.empty()) return;
  auto again = txn::decode_txn_value(txn::encode_txn_value(*v));
  if (!again || !(*again == *v)) std::abort();
}

void txn_key(Bytes in) {
  auto k = txn::decode_txn_key(in);
  if (!k) return;
  auto again = txn::decode_txn_key(txn::encode_txn_key(*k));
  if (!again || *again != *k) std::abort();
}

void aborted_txn(Bytes in) {
  auto a = storage::decode_aborted_txn(in);
  if (!a) return;
  auto bytes = storage::encode_aborted_txn(*a);
  auto again = storage::decode_aborted_txn(Bytes(bytes));
  if (!again || !(*again == *a)) std::abort();
}

// The KIP-848 values: whatever decodes re-encodes to bytes that decode the same (type 4
// is read only).
template <class Decode>
void consumer_value(Bytes in, Decode decode) {
  auto v = decode(in);
  if (!v) return;
  const std::vector<uint8_t> bytes = group::encode_value(*v);
  auto again = decode(Bytes(bytes));
  if (!again || group::encode_value(*again) != bytes) std::abort();
}

void consumer_record(Bytes in) {
  if (in.empty()) return;
  const Bytes rest = in.subspan(1);
  switch (in[0] % 7) {
    case 0: consumer_value(rest, group::decode_group_metadata_value); break;
    case 1: consumer_value(rest, group::decode_member_value); break;
    case 2: consumer_value(rest, group::decode_target_metadata_value); break;
    case 3: consumer_value(rest, group::decode_target_member_value); break;
    case 4: consumer_value(rest, group::decode_current_assignment_value); break;
    case 5: consumer_value(rest, group::decode_regex_value); break;
    default: (void)group::decode_partition_metadata_value(rest); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const Bytes in(data + 1, size - 1);
  switch (data[0] % 8) {
    case 0: (void)group::decode_key(in); break;
    case 1: (void)group::decode_offset_value(in); break;
    case 2: (void)group::decode_group_value(in); break;
    case 3: txn_key(in); break;
    case 4: txn_value(in); break;
    case 5: aborted_txn(in); break;
    case 6: consumer_record(in); break;
    default: (void)storage::decode_producer_snapshot(in); break;
  }
  return 0;
}
