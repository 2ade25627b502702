// How Kafka messages are declared once and coded in every version.
//
// A message is a plain struct whose fields carry Kafka's defaults, plus one member
//   template <class V> void visit(V& v) { v(field, F{versions, nullable, tag...}); ... }
// listing its fields in wire order with the versions each exists in (Kafka's schema
// facts, written here in our own terms). The Decoder and Encoder below walk that list
// for a given version, so every version's reader and writer derives from the single
// declaration; flexible versions switch to compact lengths and add tagged fields.
//
// Type mapping: int8/16/32/64_t, uint16_t, uint32_t, bool, double; std::string (STRING),
// std::optional<std::string> (nullable STRING), std::vector<uint8_t> (BYTES), its
// optional (nullable BYTES), Records (RECORDS), Uuid, std::vector<T> (ARRAY of T, T a
// field type or a struct with visit), std::optional<std::vector<T>> (nullable ARRAY),
// a struct with visit (a nested STRUCT), and std::optional of such a struct: a tagged
// STRUCT that is written only when set, or a nullable STRUCT (a marker byte, -1 null
// or 1 present, precedes it in the versions where it may be null).
#pragma once

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstring>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "common/bytes.h"
#include "protocol/output.h"
#include "protocol/types.h"

namespace strata::protocol {

struct Versions {
  int16_t min = 0;
  int16_t max = INT16_MAX;
  constexpr bool has(int16_t v) const { return v >= min && v <= max; }
};
inline constexpr Versions kNoVersions{1, 0};

// One field's schema: the versions it exists in, those where it may be null, and for a
// tagged field its tag and tagged versions. A tagged scalar is written only when it
// differs from `tag_default`; a tagged array only when non-empty, an optional (string,
// bytes, struct) only when set, and a Uuid only when non-zero.
struct F {
  Versions versions;
  Versions nullable = kNoVersions;
  int32_t tag = -1;
  Versions tagged = kNoVersions;
  int64_t tag_default = 0;
};

template <class T>
struct is_vector : std::false_type {};
template <class T>
struct is_vector<std::vector<T>> : std::true_type {};

template <class T>
struct is_std_optional : std::false_type {};
template <class T>
struct is_std_optional<std::optional<T>> : std::true_type {};

class Decoder;
template <class T>
concept Struct = requires(T& t, Decoder& d) { t.visit(d); };

template <class T>
size_t min_wire_size(int16_t version, bool flexible);

// Sums the smallest encoding of each field a struct has in one version: int8 and bool
// 1, int16 2, int32 4, int64 and float64 8, uuid 16; a (nullable) string's length 2, or
// 1 compact; bytes, records and arrays 4, or 1 compact; a nested struct its own sum, a
// nullable one its 1-byte marker; a tagged field nothing (it may be absent). A struct
// adds 1 in flexible versions for its tagged-field count.
class MinWireSize {
 public:
  MinWireSize(int16_t version, bool flexible) : version_(version), flexible_(flexible) {}

  template <class T>
  void operator()(T&, const F& f) {
    if (!f.versions.has(version_)) return;
    if (f.tag >= 0 && flexible_ && f.tagged.has(version_)) return;
    total_ += of<T>(f);
  }
  size_t total() const { return total_; }

  // The smallest encoding of a field of type T with schema `f`.
  template <class T>
  size_t of(const F& f) const {
    if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, bool>) {
      return 1;
    } else if constexpr (std::is_same_v<T, int16_t> || std::is_same_v<T, uint16_t>) {
      return 2;
    } else if constexpr (std::is_same_v<T, int32_t> || std::is_same_v<T, uint32_t>) {
      return 4;
    } else if constexpr (std::is_same_v<T, int64_t> || std::is_same_v<T, double>) {
      return 8;
    } else if constexpr (std::is_same_v<T, Uuid>) {
      return 16;
    } else if constexpr (std::is_same_v<T, std::string> ||
                         std::is_same_v<T, std::optional<std::string>>) {
      return flexible_ ? 1 : 2;
    } else if constexpr (std::is_same_v<T, Records> || is_vector<T>::value) {
      return flexible_ ? 1 : 4;  // BYTES and ARRAY alike: a length
    } else if constexpr (is_std_optional<T>::value) {
      if constexpr (is_vector<typename T::value_type>::value) {
        return flexible_ ? 1 : 4;
      } else {
        static_assert(Struct<typename T::value_type>);
        if (f.nullable.has(version_)) return 1;  // the marker byte of a null struct
        return min_wire_size<typename T::value_type>(version_, flexible_);
      }
    } else {
      static_assert(Struct<T>, "a field type the protocol does not know");
      return min_wire_size<T>(version_, flexible_);
    }
  }

 private:
  int16_t version_;
  bool flexible_;
  size_t total_ = 0;
};

// The fewest bytes a value of type T (a field type or a struct with visit) takes on the
// wire in `version`. Computed from the declaration on first use, then cached per struct
// type, version and flexibility (any thread may compute it; all compute the same).
template <class T>
size_t min_wire_size(int16_t version, bool flexible) {
  const MinWireSize m(version, flexible);
  if constexpr (!Struct<T>) {
    return m.of<T>(F{});
  } else {
    constexpr int16_t kCachedVersions = 64;
    static std::atomic<uint32_t> cache[2][kCachedVersions];  // size + 1; 0: not yet known
    const bool cached = version >= 0 && version < kCachedVersions;
    if (cached) {
      const uint32_t known = cache[flexible][version].load(std::memory_order_relaxed);
      if (known != 0) return known - 1;
    }
    T probe{};
    MinWireSize fields(version, flexible);
    probe.visit(fields);
    const size_t size = fields.total() + (flexible ? 1 : 0);
    if (cached) cache[flexible][version].store(uint32_t(size + 1), std::memory_order_relaxed);
    return size;
  }
}

// Where a Decoder read a length or count, for tests that rewrite each one
// (decode_bounds_test.cc). `unit` is the fewest bytes one unit of it takes: an
// array's element, 1 for string and bytes lengths, 2 for a tagged field (tag, size).
enum class LengthKind : uint8_t { kArray, kString, kBytes, kTaggedCount };
struct LengthSite {
  size_t at = 0;     // offset of the length in the decoded span
  size_t width = 0;  // bytes it took
  LengthKind kind = LengthKind::kArray;
  size_t unit = 1;
};

// Reads a message of one version from a request frame. Never reads out of bounds;
// every length is checked against the bytes that remain before anything is allocated:
// a string or bytes length against those bytes, an array count against the bytes left
// divided by its element's smallest encoding (min_wire_size), a tagged-field count
// against half of them. Arrays grow as their elements are read (64 KiB worth, then
// doubling), never to the count alone. A failure is sticky: check ok() after decode().
class Decoder {
 public:
  // `frame` is writable so RECORDS fields can be views the leader stamps in place.
  Decoder(MutableBytes frame, size_t start, int16_t version, bool flexible)
      : base_(frame.data() + start), in_(Bytes(frame).subspan(start)), version_(version),
        flexible_(flexible) {}

  template <Struct T>
  void decode(T& message) {
    decode_struct(message);
  }
  bool ok() const { return ok_ && in_.ok(); }
  size_t remaining() const { return in_.remaining(); }
  int16_t version() const { return version_; }
  // Tests only: note where every length and count is read (nullptr: don't).
  void record_lengths(std::vector<LengthSite>* sites) { sites_ = sites; }

  template <class T>
  void operator()(T& value, const F& f) {
    if (!ok() || !f.versions.has(version_)) return;
    if (f.tag >= 0 && flexible_ && f.tagged.has(version_)) {
      if (tag_target_ == f.tag) read(value, f);  // inside the tagged section
      return;
    }
    if (tag_target_ >= 0) return;  // tagged pass: plain fields were read already
    read(value, f);
  }

 private:
  void fail() { ok_ = false; }
  bool nullable(const F& f) const { return f.nullable.has(version_); }

  template <Struct T>
  void decode_struct(T& s) {
    const int32_t saved = tag_target_;
    tag_target_ = -1;
    s.visit(*this);
    if (flexible_) read_tagged_section(s);
    tag_target_ = saved;
  }

  template <Struct T>
  void read_tagged_section(T& s) {
    const size_t at = in_.position();
    const uint32_t count = in_.uvarint32();
    note(at, LengthKind::kTaggedCount, 2);
    // Each tagged field takes at least 2 bytes: its tag and its size.
    if (count > in_.remaining() / 2) return fail();
    for (uint32_t i = 0; i < count && ok(); ++i) {
      const uint32_t tag = in_.uvarint32();
      const uint32_t size = in_.uvarint32();
      if (!in_.fits(size)) return fail();
      const size_t end = in_.position() + size;
      tag_target_ = int32_t(tag);
      s.visit(*this);  // reads the field with this tag, if the struct has one
      tag_target_ = -1;
      if (in_.position() > end) return fail();
      in_.skip(end - in_.position());  // unknown tags are skipped
    }
  }

  // Length of a STRING/BYTES/ARRAY: -1 means null.
  int64_t read_length(LengthKind kind, size_t unit = 1) {
    const size_t at = in_.position();
    int64_t n;
    if (flexible_) {
      n = int64_t(in_.uvarint32()) - 1;
    } else {
      n = kind == LengthKind::kString ? in_.i16() : in_.i32();
    }
    note(at, kind, unit);
    return n;
  }
  void note(size_t at, LengthKind kind, size_t unit) {
    if (sites_ != nullptr) [[unlikely]] record(at, kind, unit);
  }
  // Out of line and cold: only tests record (the push_back kept note() from inlining).
  [[gnu::noinline, gnu::cold]] void record(size_t at, LengthKind kind, size_t unit) {
    sites_->push_back({at, in_.position() - at, kind, unit});
  }

  // How many elements of T an array reserves before any is read: 64 KiB worth.
  template <class T>
  static constexpr size_t kArrayReserveElements = std::max<size_t>(1, (64 << 10) / sizeof(T));

  void read(int8_t& v, const F&) { v = in_.i8(); }
  void read(int16_t& v, const F&) { v = in_.i16(); }
  void read(int32_t& v, const F&) { v = in_.i32(); }
  void read(int64_t& v, const F&) { v = in_.i64(); }
  void read(uint16_t& v, const F&) { v = in_.u16(); }
  void read(uint32_t& v, const F&) { v = in_.u32(); }
  void read(bool& v, const F&) { v = in_.u8() != 0; }
  void read(double& v, const F&) {
    const uint64_t bits = uint64_t(in_.i64());
    std::memcpy(&v, &bits, sizeof v);
  }
  void read(Uuid& v, const F&) {
    const Bytes b = in_.take(16);
    if (b.size() == 16) std::copy(b.begin(), b.end(), v.bytes.begin());
  }
  void read(std::optional<std::string>& v, const F& f) {
    const int64_t n = read_length(LengthKind::kString);
    if (n < 0) {
      if (!nullable(f) || n != -1) return fail();
      v.reset();
      return;
    }
    if (!in_.fits(n)) return fail();
    v = std::string(as_string_view(in_.take(size_t(n))));
  }
  void read(std::string& v, const F& f) {
    std::optional<std::string> s;
    read(s, F{f.versions});
    if (s) v = std::move(*s);
  }
  void read(std::optional<std::vector<uint8_t>>& v, const F& f) {
    const int64_t n = read_length(LengthKind::kBytes);
    if (n < 0) {
      if (!nullable(f) || n != -1) return fail();
      v.reset();
      return;
    }
    if (!in_.fits(n)) return fail();
    const Bytes b = in_.take(size_t(n));
    v.emplace(b.begin(), b.end());
  }
  void read(std::vector<uint8_t>& v, const F& f) {
    std::optional<std::vector<uint8_t>> b;
    read(b, F{f.versions});
    if (b) v = std::move(*b);
  }
  void read(Records& v, const F&) {
    const int64_t n = read_length(LengthKind::kBytes);
    if (n < 0) {
      v = Records{};
      return;
    }
    if (!in_.fits(n)) return fail();
    const size_t at = in_.position();
    in_.skip(size_t(n));
    // The frame is writable (see the constructor): the view may be too.
    v.data = MutableBytes(base_ + at, size_t(n));
  }
  template <Struct T>
  void read(T& v, const F&) {
    decode_struct(v);
  }
  // Absent until read: a tagged struct not on the wire stays nullopt. (emplace(T{}),
  // not emplace(): clang judges a nested struct with member initializers not default
  // constructible while its enclosing struct is being defined, and remembers that.)
  template <Struct T>
  void read(std::optional<T>& v, const F& f) {
    if (nullable(f) && in_.i8() < 0) {
      v.reset();
      return;
    }
    decode_struct(v.emplace(T{}));
  }
  template <class T>
    requires(!std::is_same_v<T, uint8_t>)
  void read(std::vector<T>& v, const F& f) {
    std::optional<std::vector<T>> a;
    read(a, F{f.versions});
    if (a) v = std::move(*a);
  }
  template <class T>
    requires(!std::is_same_v<T, uint8_t>)
  void read(std::optional<std::vector<T>>& v, const F& f) {
    // At least 1: an element of a struct with no fields in this version still costs.
    const size_t unit = std::max<size_t>(1, min_wire_size<T>(version_, flexible_));
    const int64_t n = read_length(LengthKind::kArray, unit);
    if (n < 0) {
      if (!nullable(f) || n != -1) return fail();
      v.reset();
      return;
    }
    // n elements take at least n * unit bytes: a count the bytes left cannot hold is a
    // lie, refused before anything is allocated. (n < 2^32 and unit < 2^32: no overflow.)
    if (uint64_t(n) * unit > in_.remaining()) return fail();
    const size_t count = size_t(n);
    std::vector<T>& out = v.emplace();
    // Storage grows with the elements read (64 KiB worth, then doubling, never past the
    // count: reserve before resize), so a count whose bytes turn out to be missing costs
    // at most 64 KiB, or as much again as the elements actually read.
    size_t read_so_far = 0;
    while (read_so_far < count && ok()) {
      const size_t next = std::min(count, read_so_far == 0 ? kArrayReserveElements<T>
                                                           : 2 * read_so_far);
      out.reserve(next);
      out.resize(next);
      for (; read_so_far < next && ok(); ++read_so_far) read(out[read_so_far], F{f.versions});
    }
  }

  uint8_t* base_;  // writable first byte of what in_ reads
  std::vector<LengthSite>* sites_ = nullptr;
  ByteReader in_;
  int16_t version_;
  bool flexible_;
  int32_t tag_target_ = -1;
  bool ok_ = true;
};

// Writes a message of one version. RECORDS backed by a file become splices.
class Encoder {
 public:
  Encoder(Output& out, int16_t version, bool flexible)
      : out_(out), w_(out.bytes), version_(version), flexible_(flexible) {}

  template <class T>
  void encode(T& message) {
    encode_struct(message);
  }

  template <class T>
  void operator()(T& value, const F& f) {
    if (!f.versions.has(version_)) return;
    const bool tagged = f.tag >= 0 && flexible_ && f.tagged.has(version_);
    if (collecting_tags_) {
      if (tagged && !is_default(value, f)) tagged_.push_back({f.tag, encode_alone(value, f)});
      return;
    }
    if (!tagged) write(value, f);
  }

 private:
  struct Tagged {
    int32_t tag;
    std::vector<uint8_t> bytes;
  };

  template <class T>
  void encode_struct(T& s) {
    s.visit(*this);
    if (!flexible_) return;
    std::vector<Tagged> saved = std::move(tagged_);
    tagged_.clear();
    const bool was = collecting_tags_;
    collecting_tags_ = true;
    s.visit(*this);
    collecting_tags_ = was;
    std::sort(tagged_.begin(), tagged_.end(), [](auto& a, auto& b) { return a.tag < b.tag; });
    w_.uvarint(tagged_.size());
    for (const Tagged& t : tagged_) {
      w_.uvarint(uint32_t(t.tag));
      w_.uvarint(t.bytes.size());
      w_.bytes(t.bytes);
    }
    tagged_ = std::move(saved);
  }

  template <class T>
  std::vector<uint8_t> encode_alone(T& value, const F& f) {
    Output o;
    Encoder e(o, version_, flexible_);
    e.write(value, f);
    return std::move(o.bytes);
  }

  template <class T>
  static bool is_default(const T& v, const F& f) {
    if constexpr (std::is_integral_v<T>) {
      return int64_t(v) == f.tag_default;
    } else if constexpr (is_vector<T>::value) {
      return v.empty();
    } else if constexpr (requires { v.has_value(); }) {
      return !v.has_value();
    } else if constexpr (std::is_same_v<T, Uuid>) {
      return v.is_zero();
    } else {
      return false;
    }
  }

  void write_length(int64_t n, bool array_or_bytes) {
    if (flexible_) {
      w_.uvarint(uint64_t(n + 1));
    } else if (array_or_bytes) {
      w_.i32(int32_t(n));
    } else {
      w_.i16(int16_t(n));
    }
  }

  void write(int8_t v, const F&) { w_.i8(v); }
  void write(int16_t v, const F&) { w_.i16(v); }
  void write(int32_t v, const F&) { w_.i32(v); }
  void write(int64_t v, const F&) { w_.i64(v); }
  void write(uint16_t v, const F&) { w_.i16(int16_t(v)); }
  void write(uint32_t v, const F&) { w_.u32(v); }
  void write(bool v, const F&) { w_.u8(v ? 1 : 0); }
  void write(double v, const F&) {
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof v);
    w_.i64(int64_t(bits));
  }
  void write(const Uuid& v, const F&) { w_.bytes(v.bytes); }
  void write(const std::string& v, const F&) {
    write_length(int64_t(v.size()), false);
    w_.bytes(as_bytes(v));
  }
  void write(const std::optional<std::string>& v, const F& f) {
    if (!v) return write_length(-1, false);
    write(*v, f);
  }
  void write(const std::vector<uint8_t>& v, const F&) {
    write_length(int64_t(v.size()), true);
    w_.bytes(v);
  }
  void write(const std::optional<std::vector<uint8_t>>& v, const F& f) {
    if (!v) return write_length(-1, true);
    write(*v, f);
  }
  void write(const Records& v, const F&) {
    if (v.is_null()) return write_length(-1, true);
    write_length(int64_t(v.size()), true);
    if (v.file) {
      out_.splices.push_back({out_.bytes.size(), *v.file});
    } else {
      w_.bytes(*v.data);
    }
  }
  template <class T>
    requires requires(T& t, Encoder& e) { t.visit(e); }
  void write(T& v, const F&) {
    encode_struct(v);
  }
  // Tagged: only reached when set (see is_default). Untagged and not nullable in this
  // version: an unset struct goes out as its defaults, as Kafka's always-present one.
  template <class T>
    requires requires(T& t, Encoder& e) { t.visit(e); }
  void write(std::optional<T>& v, const F& f) {
    if (f.nullable.has(version_)) {
      w_.i8(v ? 1 : -1);
      if (!v) return;
    }
    T unset{};
    encode_struct(v ? *v : unset);
  }
  template <class T>
    requires(!std::is_same_v<T, uint8_t>)
  void write(std::vector<T>& v, const F& f) {
    write_length(int64_t(v.size()), true);
    for (T& e : v) write(e, F{f.versions});
  }
  template <class T>
    requires(!std::is_same_v<T, uint8_t>)
  void write(std::optional<std::vector<T>>& v, const F& f) {
    if (!v) return write_length(-1, true);
    write(*v, f);
  }

  Output& out_;
  ByteWriter w_;
  int16_t version_;
  bool flexible_;
  bool collecting_tags_ = false;
  std::vector<Tagged> tagged_;
};

}  // namespace strata::protocol
