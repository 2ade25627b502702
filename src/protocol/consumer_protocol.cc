#include "protocol/consumer_protocol.h"

#include "protocol/output.h"

#include <algorithm>

namespace strata::protocol {

namespace {

template <class T>
Result<Versioned<T>, std::string> decode(Bytes bytes, const char* what) {
  if (bytes.size() < 2) return fail(std::string(what) + ": shorter than its version");
  const int16_t version = int16_t(load_be16(bytes.data()));
  if (version < 0) return fail(std::string(what) + ": negative version " + std::to_string(version));
  const int16_t layout = std::min(version, kConsumerProtocolVersionMax);
  // The Decoder reads from a writable frame (for RECORDS fields, which these have not).
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  Decoder d(MutableBytes(copy), 2, layout, false);
  Versioned<T> out{version, {}};
  d.decode(out.message);
  if (!d.ok()) return fail(std::string(what) + " v" + std::to_string(version) + ": truncated");
  return out;
}

}  // namespace

Result<Versioned<ConsumerSubscription>, std::string> decode_consumer_subscription(Bytes bytes) {
  return decode<ConsumerSubscription>(bytes, "consumer subscription");
}

Result<Versioned<ConsumerAssignment>, std::string> decode_consumer_assignment(Bytes bytes) {
  return decode<ConsumerAssignment>(bytes, "consumer assignment");
}

std::vector<uint8_t> encode_consumer_assignment(const ConsumerAssignment& a, int16_t version) {
  Output out;
  ByteWriter w(out.bytes);
  w.i16(version);
  ConsumerAssignment copy = a;
  Encoder e(out, std::clamp<int16_t>(version, 0, kConsumerProtocolVersionMax), false);
  e.encode(copy);
  return std::move(out.bytes);
}

}  // namespace strata::protocol
