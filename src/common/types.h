// Strong types for the domain integers of a Kafka log, so an offset, an epoch and
// a producer id can never be passed for one another.
#pragma once

#include <array>
#include <compare>
#include <cstring>
#include <cstdint>
#include <functional>

namespace strata {

template <class Tag, class Rep>
class StrongInt {
 public:
  using rep = Rep;
  constexpr StrongInt() = default;
  constexpr explicit StrongInt(Rep v) : v_(v) {}
  constexpr Rep value() const { return v_; }
  constexpr auto operator<=>(const StrongInt&) const = default;

 private:
  Rep v_{};
};

using Offset = StrongInt<struct OffsetTag, int64_t>;              // position in a partition log
using LeaderEpoch = StrongInt<struct LeaderEpochTag, int32_t>;    // partitionLeaderEpoch
using ProducerId = StrongInt<struct ProducerIdTag, int64_t>;
using ProducerEpoch = StrongInt<struct ProducerEpochTag, int16_t>;
using Sequence = StrongInt<struct SequenceTag, int32_t>;
using PartitionId = StrongInt<struct PartitionIdTag, int32_t>;
using NodeId = StrongInt<struct NodeIdTag, int32_t>;
using TimestampMs = StrongInt<struct TimestampMsTag, int64_t>;    // ms since the Unix epoch

// Kafka's "none" values for the producer fields of a batch.
inline constexpr ProducerId kNoProducerId{-1};
inline constexpr ProducerEpoch kNoProducerEpoch{-1};
inline constexpr Sequence kNoSequence{-1};
inline constexpr LeaderEpoch kNoLeaderEpoch{-1};
inline constexpr TimestampMs kNoTimestamp{-1};

// A Kafka Uuid (topic ids): 16 bytes; all zero is "no id".
struct Uuid {
  std::array<uint8_t, 16> bytes{};
  bool operator==(const Uuid&) const = default;
  bool is_zero() const { return *this == Uuid{}; }
};

}  // namespace strata

template <>
struct std::hash<strata::Uuid> {
  size_t operator()(const strata::Uuid& id) const {
    uint64_t a, b;
    std::memcpy(&a, id.bytes.data(), 8);
    std::memcpy(&b, id.bytes.data() + 8, 8);
    return size_t(a ^ (b * 0x9e3779b97f4a7c15ull));
  }
};

template <class Tag, class Rep>
struct std::hash<strata::StrongInt<Tag, Rep>> {
  size_t operator()(strata::StrongInt<Tag, Rep> v) const { return std::hash<Rep>{}(v.value()); }
};
