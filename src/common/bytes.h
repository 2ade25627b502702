// The one place bytes are encoded and decoded: a big-endian writer and a
// bounds-checked reader with a sticky fault, Kafka's zigzag varints included.
//
// Reader contract: every read checks the bytes that remain first. A read that
// cannot be satisfied sets a sticky fault, returns zero / an empty span, and every
// later read fails too; callers check `ok()` once after a group of reads. A
// length read from the input must pass `fits(n)` before anything is allocated
// for it, so a hostile length can never cause a huge allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace strata {

using Bytes = std::span<const uint8_t>;
using MutableBytes = std::span<uint8_t>;

inline Bytes as_bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}
inline std::string_view as_string_view(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

// Fixed-width big-endian loads and stores on raw memory the caller has bounds-checked.
inline uint16_t load_be16(const uint8_t* p) { return uint16_t((p[0] << 8) | p[1]); }
inline uint32_t load_be32(const uint8_t* p) {
  return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}
inline uint64_t load_be64(const uint8_t* p) {
  return (uint64_t(load_be32(p)) << 32) | load_be32(p + 4);
}
inline void store_be16(uint8_t* p, uint16_t v) { p[0] = uint8_t(v >> 8); p[1] = uint8_t(v); }
inline void store_be32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24); p[1] = uint8_t(v >> 16); p[2] = uint8_t(v >> 8); p[3] = uint8_t(v);
}
inline void store_be64(uint8_t* p, uint64_t v) {
  store_be32(p, uint32_t(v >> 32));
  store_be32(p + 4, uint32_t(v));
}

inline uint32_t zigzag_encode32(int32_t v) { return (uint32_t(v) << 1) ^ uint32_t(v >> 31); }
inline uint64_t zigzag_encode64(int64_t v) { return (uint64_t(v) << 1) ^ uint64_t(v >> 63); }
inline int32_t zigzag_decode32(uint32_t v) { return int32_t(v >> 1) ^ -int32_t(v & 1); }
inline int64_t zigzag_decode64(uint64_t v) { return int64_t(v >> 1) ^ -int64_t(v & 1); }

// Bytes a value takes as an unsigned LEB128 varint.
inline size_t uvarint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) { v >>= 7; ++n; }
  return n;
}
inline size_t varint_size(int32_t v) { return uvarint_size(zigzag_encode32(v)); }
inline size_t varlong_size(int64_t v) { return uvarint_size(zigzag_encode64(v)); }

enum class ReadFault : uint8_t {
  kNone = 0,
  kPastEnd,          // a read wanted more bytes than remain
  kVarintOverflow,   // a varint ran past 5 bytes (10 for a varlong)
};

class ByteReader {
 public:
  explicit ByteReader(Bytes in) : p_(in.data()), begin_(in.data()), end_(in.data() + in.size()) {}

  bool ok() const { return fault_ == ReadFault::kNone; }
  ReadFault fault() const { return fault_; }
  size_t remaining() const { return size_t(end_ - p_); }
  size_t position() const { return size_t(p_ - begin_); }
  bool fits(int64_t n) const { return n >= 0 && uint64_t(n) <= remaining(); }
  // Marks the input bad; used by callers whose own checks fail mid-read.
  void set_fault(ReadFault f) { if (ok()) fault_ = f; }

  uint8_t u8() { return need(1) ? *p_++ : 0; }
  int8_t i8() { return int8_t(u8()); }
  int16_t i16() { return need(2) ? int16_t(load_be16(advance(2))) : 0; }
  uint16_t u16() { return need(2) ? load_be16(advance(2)) : 0; }
  int32_t i32() { return need(4) ? int32_t(load_be32(advance(4))) : 0; }
  uint32_t u32() { return need(4) ? load_be32(advance(4)) : 0; }
  int64_t i64() { return need(8) ? int64_t(load_be64(advance(8))) : 0; }

  // Unsigned LEB128 of at most `max_bytes` bytes.
  uint64_t uvarint(int max_bytes = 10) {
    // Fast paths (the same result): one byte, or enough input that no byte needs a
    // bounds check. Record fields are mostly 1-2 byte varints.
    if (p_ < end_ && (*p_ & 0x80) == 0 && ok()) return *p_++;
    if (remaining() >= size_t(max_bytes) && ok()) {
      uint64_t v = 0;
      for (int i = 0; i < max_bytes; ++i) {
        const uint8_t b = p_[i];
        v |= uint64_t(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) {
          p_ += i + 1;
          return v;
        }
      }
      p_ += max_bytes;
      set_fault(ReadFault::kVarintOverflow);
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (!need(1)) return 0;
      const uint8_t b = *p_++;
      v |= uint64_t(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) return v;
    }
    set_fault(ReadFault::kVarintOverflow);
    return 0;
  }
  uint32_t uvarint32() { return uint32_t(uvarint(5)); }
  int32_t varint() { return zigzag_decode32(uint32_t(uvarint(5))); }
  int64_t varlong() { return zigzag_decode64(uvarint(10)); }

  // A view of the next n bytes (no copy); empty on a fault.
  Bytes take(size_t n) {
    if (!need(n)) return {};
    const uint8_t* start = advance(n);
    return {start, n};
  }
  void skip(size_t n) { (void)take(n); }
  Bytes rest() const { return {p_, remaining()}; }

 private:
  bool need(size_t n) {
    if (ok() && n <= remaining()) return true;
    set_fault(ReadFault::kPastEnd);
    return false;
  }
  const uint8_t* advance(size_t n) {
    const uint8_t* s = p_;
    p_ += n;
    return s;
  }

  const uint8_t* p_;
  const uint8_t* begin_;
  const uint8_t* end_;
  ReadFault fault_ = ReadFault::kNone;
};

// Appends big-endian values to a byte vector it does not own.
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<uint8_t>& out) : out_(out) {}

  size_t size() const { return out_.size(); }
  void u8(uint8_t v) { out_.push_back(v); }
  void i8(int8_t v) { out_.push_back(uint8_t(v)); }
  void i16(int16_t v) { store_be16(grow(2), uint16_t(v)); }
  void i32(int32_t v) { store_be32(grow(4), uint32_t(v)); }
  void u32(uint32_t v) { store_be32(grow(4), v); }
  void i64(int64_t v) { store_be64(grow(8), uint64_t(v)); }
  void uvarint(uint64_t v) {
    while (v >= 0x80) { out_.push_back(uint8_t(v) | 0x80); v >>= 7; }
    out_.push_back(uint8_t(v));
  }
  void varint(int32_t v) { uvarint(zigzag_encode32(v)); }
  void varlong(int64_t v) { uvarint(zigzag_encode64(v)); }
  void bytes(Bytes b) { if (!b.empty()) std::memcpy(grow(b.size()), b.data(), b.size()); }
  // Reserves n zero bytes to patch later; returns their position.
  size_t reserve(size_t n) { size_t at = out_.size(); out_.resize(at + n); return at; }
  void patch_i32(size_t at, int32_t v) { store_be32(&out_[at], uint32_t(v)); }

 private:
  uint8_t* grow(size_t n) {
    size_t at = out_.size();
    out_.resize(at + n);
    return &out_[at];
  }
  std::vector<uint8_t>& out_;
};

}  // namespace strata
