// Shared harness for the protocol tests (apis_test.cc, message_test.cc, admin_*_test.cc,
// group_*_test.cc, txn_apis_test.cc): encode/decode one message, hex helpers, and the
// every-version round trip that compares messages field by field. Test code only.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "protocol/message.h"

namespace strata::protocol::test {

template <class T>
std::vector<uint8_t> encode(T& m, int16_t version) {
  Output out;
  Encoder e(out, version, version >= T::kFlexibleFrom);
  e.encode(m);
  return out.bytes;
}

// Decodes a whole message: fails unless every byte is consumed. The decoded message's
// RECORDS view `bytes`, which must outlive it.
template <class T>
std::optional<T> decode(std::vector<uint8_t>& bytes, int16_t version) {
  T m;
  Decoder d(bytes, 0, version, version >= T::kFlexibleFrom);
  d.decode(m);
  if (!d.ok() || d.remaining() != 0) return std::nullopt;
  return m;
}

// The same, decoding a copy of `bytes`: only for messages that own all their fields (no
// RECORDS), as the copy is gone when this returns.
template <class T>
std::optional<T> decode(const std::vector<uint8_t>& bytes, int16_t version) {
  std::vector<uint8_t> copy = bytes;
  return decode<T>(copy, version);
}

inline std::string hex(const std::vector<uint8_t>& bytes) {
  std::string s;
  char b[3];
  for (uint8_t c : bytes) {
    std::snprintf(b, sizeof b, "%02x", c);
    s += b;
  }
  return s;
}

// Hex with the spaces and bars that group fields removed.
inline std::string squash(std::string_view spaced) {
  std::string s;
  for (char c : spaced) {
    if (c != ' ' && c != '|') s += c;
  }
  return s;
}

inline std::vector<uint8_t> unhex(std::string_view spaced) {
  const std::string s = squash(spaced);
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < s.size(); i += 2) {
    out.push_back(uint8_t(std::stoi(std::string(s.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

inline Uuid uuid(uint8_t seed) {
  Uuid u;
  for (size_t i = 0; i < u.bytes.size(); ++i) u.bytes[i] = uint8_t(seed + i);
  return u;
}

inline std::vector<uint8_t> blob(std::initializer_list<uint8_t> b) {
  return b;
}

template <class Request, class Response>
constexpr bool same_constants() {
  return Request::kApiKey == Response::kApiKey &&
         Request::kVersions.min == Response::kVersions.min &&
         Request::kVersions.max == Response::kVersions.max &&
         Request::kFlexibleFrom == Response::kFlexibleFrom;
}

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

template <class T>
concept Visitable = requires(T& t, Encoder& e) {
  t.visit(e);
};

// Renders a message as text, field by field in wire order, to compare two messages. In
// kPresent mode only the fields that exist in `version` are rendered, and every struct met
// is also checked: the fields it lacks in `version` must still hold their defaults
// (failures are appended to `errors`).
class Dump {
 public:
  enum class Mode { kPresent, kAbsent, kAll };

  template <class T>
  static std::string message(T& m, int16_t version, std::vector<std::string>* errors) {
    Dump d(version, Mode::kPresent, errors);
    return d.render(m);
  }

  // Each field rendered on its own, for checking a sample sets every field.
  template <Visitable S>
  static std::vector<std::string> each_field(S& s) {
    Dump d(0, Mode::kAll, nullptr);
    d.split_ = true;
    s.visit(d);
    return d.fields_;
  }

  template <class T>
  void operator()(T& value, const F& f) {
    const bool exists = f.versions.has(version_);
    if ((mode_ == Mode::kPresent && !exists) || (mode_ == Mode::kAbsent && exists)) return;
    if (split_) {
      fields_.push_back(render(value));
    } else {
      out_ += render(value) + ";";
    }
  }

 private:
  Dump(int16_t version, Mode mode, std::vector<std::string>* errors)
      : version_(version), mode_(mode), errors_(errors) {}

  template <Visitable S>
  static std::string fields(S& s, int16_t version, Mode mode, std::vector<std::string>* errors) {
    Dump d(version, mode, errors);
    s.visit(d);
    return d.out_;
  }

  template <class T>
  std::string render(T& v) {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? "true" : "false";
    } else if constexpr (std::is_integral_v<T>) {
      return std::to_string(int64_t(v));
    } else if constexpr (std::is_same_v<T, std::string>) {
      return '"' + v + '"';
    } else if constexpr (std::is_same_v<T, Uuid>) {
      return "uuid:" + hex(std::vector<uint8_t>(v.bytes.begin(), v.bytes.end()));
    } else if constexpr (is_optional<T>::value) {
      return v ? render(*v) : "null";
    } else if constexpr (is_vector<T>::value) {
      std::string s = "[";
      for (auto& e : v) s += render(e) + ",";
      return s + "]";
    } else {
      static_assert(Visitable<T>);
      return render_struct(v);
    }
  }

  template <Visitable S>
  std::string render_struct(S& s) {
    if (mode_ != Mode::kPresent) return "{" + fields(s, version_, Mode::kAll, nullptr) + "}";
    if (errors_ != nullptr) {
      S fresh{};
      const std::string lacking = fields(s, version_, Mode::kAbsent, nullptr);
      if (lacking != fields(fresh, version_, Mode::kAbsent, nullptr)) {
        errors_->push_back("fields absent in v" + std::to_string(version_) +
                           " are not defaults: " + lacking);
      }
    }
    return "{" + fields(s, version_, Mode::kPresent, errors_) + "}";
  }

  int16_t version_;
  Mode mode_;
  std::vector<std::string>* errors_;
  bool split_ = false;
  std::string out_;
  std::vector<std::string> fields_;
};

// Sets to null every field that may be null in `version`.
struct Nullify {
  int16_t version;

  template <class T>
  void operator()(T& value, const F& f) {
    if (!f.versions.has(version)) return;
    if constexpr (is_optional<T>::value) {
      if (f.nullable.has(version)) {
        value.reset();
      } else if (value) {
        descend(*value);
      }
    } else {
      descend(value);
    }
  }

  template <class T>
  void descend(T& v) {
    if constexpr (is_vector<T>::value) {
      for (auto& e : v) descend(e);
    } else if constexpr (Visitable<T>) {
      v.visit(*this);
    }
  }
};

// Checks that a sample sets every field of every struct in it to something other than
// its default, so the round trips below exercise each field.
struct Coverage {
  std::vector<std::string>* errors;
  std::string where;

  template <Visitable S>
  void check(S& s) {
    S fresh{};
    const auto got = Dump::each_field(s);
    const auto defaults = Dump::each_field(fresh);
    for (size_t i = 0; i < got.size(); ++i) {
      if (got[i] == defaults[i]) errors->push_back(where + " field #" + std::to_string(i));
    }
    s.visit(*this);
  }

  template <class T>
  void operator()(T& value, const F&) {
    descend(value);
  }

  template <class T>
  void descend(T& v) {
    if constexpr (is_optional<T>::value) {
      if (v) descend(*v);
    } else if constexpr (is_vector<T>::value) {
      for (auto& e : v) descend(e);
    } else if constexpr (Visitable<T>) {
      Coverage inner{errors, where + "/" + typeid(T).name()};
      inner.check(v);
    }
  }
};

template <class T>
void expect_round_trip(T& m, int16_t v) {
  const auto bytes = encode(m, v);
  auto back = decode<T>(bytes, v);
  ASSERT_TRUE(back);
  std::vector<std::string> errors;
  EXPECT_EQ(Dump::message(*back, v, &errors), Dump::message(m, v, nullptr));
  for (const auto& e : errors) ADD_FAILURE() << e;
  EXPECT_EQ(hex(encode(*back, v)), hex(bytes));
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode<T>(std::vector<uint8_t>(bytes.begin(), bytes.begin() + long(n)), v))
        << "accepted a cut at " << n << " of " << bytes.size();
  }
}

// Every version Kafka defines (so the lowest, the highest and each one between), with
// the sample as given and with every field that may be null in that version set to null.
// The sample must set every field away from its default.
template <class T>
void expect_every_version(const T& sample) {
  static_assert(T::kVersions.min <= T::kVersions.max);
  static_assert(T::kFlexibleFrom >= T::kVersions.min);  // == min: flexible in every version
  T full = sample;
  std::vector<std::string> unset;
  Coverage{&unset, "sample"}.check(full);
  for (const auto& e : unset) ADD_FAILURE() << "sample leaves a default: " << e;
  for (int16_t v = T::kVersions.min; v <= T::kVersions.max; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    T a = sample;
    expect_round_trip(a, v);
    T nulls = sample;
    Nullify n{v};
    nulls.visit(n);
    expect_round_trip(nulls, v);
  }
}

// `m` encodes in `v` to exactly `want` (spaced hex), and `want` decodes to the same fields.
template <class T>
void expect_bytes(T m, int16_t v, std::string_view want) {
  SCOPED_TRACE("version " + std::to_string(v));
  EXPECT_EQ(hex(encode(m, v)), squash(want));
  auto back = decode<T>(unhex(want), v);
  ASSERT_TRUE(back);
  EXPECT_EQ(Dump::message(*back, v, nullptr), Dump::message(m, v, nullptr));
}

}  // namespace strata::protocol::test
