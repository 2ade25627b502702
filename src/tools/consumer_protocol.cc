#include "tools/consumer_protocol.h"

#include <algorithm>

namespace strata::tools {

namespace {

template <class T>
Result<Versioned<T>, std::string> decode(Bytes bytes, const char* what) {
  if (bytes.size() < 2) return fail(std::string(what) + ": shorter than its version");
  const int16_t version = int16_t(load_be16(bytes.data()));
  if (version < 0) return fail(std::string(what) + ": negative version " + std::to_string(version));
  const int16_t layout = std::min(version, kConsumerProtocolVersionMax);
  // The Decoder reads from a writable frame (for RECORDS fields, which these have not).
  std::vector<uint8_t> copy(bytes.begin(), bytes.end());
  protocol::Decoder d(MutableBytes(copy), 2, layout, false);
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

}  // namespace strata::tools
