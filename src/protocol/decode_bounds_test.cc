// Bounds by wire size (issue 13): a hostile count or length can never make the Decoder
// allocate more than a small multiple of the frame it decodes.
//
// For every API in protocol/apis/all.h (checked against the headers in apis/ and the
// broker's dispatch table), every version, request and response: a message with one
// element in every array (every optional set, so tagged and nullable fields are on the
// wire too) is encoded; a recording decode notes where each array count, string and
// bytes length and tagged-field count sits; then each one in turn is rewritten to
// INT32_MAX, to 90 million (the count of the issue's Fetch), and to just above what the
// bytes after it can hold (the bytes left over the element's smallest encoding, plus
// one). Each such frame must fail to decode, allocating no more than decoding the
// valid frame did and below kPeakBytesPerFrameByte * frame + kPeakSlackBytes (operator
// new is counted: alloc_meter.cc). A count exactly at the limit may decode or not; it
// is held to the same bound.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "protocol/alloc_meter.h"
#include "protocol/apis/all.h"
#include "protocol/message.h"

namespace strata::protocol {
namespace {

// The stated bound on what one decode allocates at its peak.
constexpr int64_t kPeakBytesPerFrameByte = 64;
constexpr int64_t kPeakSlackBytes = 4 << 10;

constexpr uint64_t kIssueCount = 90'000'000;

// Sets every optional and puts one element in every array, recursively, in every
// version's fields (the encoder writes only those of the version it encodes).
struct Fill {
  template <class T>
  void operator()(T& value, const F&) {
    fill(value);
  }
  template <class T>
  static void fill(T& v) {
    if constexpr (std::is_same_v<T, std::optional<std::string>>) {
      v = "";  // a non-nullable version would refuse null
    } else if constexpr (std::is_same_v<T, std::optional<std::vector<uint8_t>>>) {
      v.emplace();
    } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
      // BYTES: its length is on the wire already
    } else if constexpr (is_vector<T>::value) {
      fill(v.emplace_back());
    } else if constexpr (is_std_optional<T>::value) {
      fill(v.emplace(typename T::value_type{}));  // a nullable array, a tagged or nullable struct
    } else if constexpr (Struct<T>) {
      Fill f;
      v.visit(f);
    }
  }
};

template <class T>
std::vector<uint8_t> encode(T& m, int16_t version, bool flexible) {
  Output out;
  Encoder e(out, version, flexible);
  e.encode(m);
  return std::move(out.bytes);
}

struct DecodeResult {
  bool ok = false;
  size_t remaining = 0;
  alloc_meter::Counts alloc;
};

template <class T>
DecodeResult decode_counted(std::vector<uint8_t>& bytes, int16_t version, bool flexible,
                            std::vector<LengthSite>* sites = nullptr) {
  DecodeResult r;
  {
    T m;
    Decoder d(bytes, 0, version, flexible);
    d.record_lengths(sites);
    alloc_meter::start();
    d.decode(m);
    r.alloc = alloc_meter::stop();
    r.ok = d.ok();
    r.remaining = d.remaining();
  }
  return r;
}

std::vector<uint8_t> uvarint_bytes(uint64_t v) {
  std::vector<uint8_t> out;
  ByteWriter w(out);
  w.uvarint(v);
  return out;
}

// `bytes` with the length at `s` replaced by `claim`, in the length's own encoding.
std::vector<uint8_t> rewrite(const std::vector<uint8_t>& bytes, const LengthSite& s,
                             uint64_t claim, bool flexible) {
  std::vector<uint8_t> with;
  if (s.kind == LengthKind::kTaggedCount) {
    with = uvarint_bytes(claim);
  } else if (flexible) {
    with = uvarint_bytes(claim + 1);  // compact: length + 1
  } else if (s.kind == LengthKind::kString) {
    with = {uint8_t(claim >> 8), uint8_t(claim)};
  } else {
    with = {uint8_t(claim >> 24), uint8_t(claim >> 16), uint8_t(claim >> 8), uint8_t(claim)};
  }
  std::vector<uint8_t> out(bytes.begin(), bytes.begin() + long(s.at));
  out.insert(out.end(), with.begin(), with.end());
  out.insert(out.end(), bytes.begin() + long(s.at + s.width), bytes.end());
  return out;
}

const char* kind_name(LengthKind k) {
  switch (k) {
    case LengthKind::kArray: return "array count";
    case LengthKind::kString: return "string length";
    case LengthKind::kBytes: return "bytes length";
    case LengthKind::kTaggedCount: return "tagged-field count";
  }
  return "?";
}

struct Claim {
  uint64_t count;
  const char* what;
  bool must_fail;
};

// The claims to try at one site: each must fail but the last (exactly at the limit).
std::vector<Claim> claims_for(const LengthSite& s, size_t left, bool flexible) {
  const uint64_t above = left / s.unit + 1;  // one more than the bytes left can hold
  std::vector<Claim> c;
  if (s.kind == LengthKind::kString && !flexible) {
    c.push_back({INT16_MAX, "INT16_MAX", true});
  } else {
    c.push_back({INT32_MAX, "INT32_MAX", true});
    c.push_back({kIssueCount, "90 million", true});
  }
  c.push_back({above, "just above bytes left / unit", true});
  if (s.kind == LengthKind::kArray) c.push_back({above - 1, "exactly bytes left / unit", false});
  return c;
}

// What one test saw, printed at its end.
struct Totals {
  uint64_t cases = 0;
  double worst_refused_ratio = 0;  // peak / frame bytes, among frames that must fail
  double worst_at_limit_ratio = 0;
  double worst_valid_ratio = 0;
  std::string worst_at_limit;
};

template <class T>
void every_count_of(int16_t version, bool flexible, const char* api, Totals& totals) {
  T m;
  Fill::fill(m);
  std::vector<uint8_t> valid = encode(m, version, flexible);
  std::vector<LengthSite> sites;
  const DecodeResult base = decode_counted<T>(valid, version, flexible, &sites);
  ASSERT_TRUE(base.ok && base.remaining == 0) << api << " v" << version << " does not decode";
  for (const LengthSite& s : sites) {
    if (s.kind != LengthKind::kArray) continue;
    ASSERT_GT(base.alloc.peak, 0) << api << " v" << version << ": the meter sees nothing";
    break;
  }
  const double valid_ratio = double(base.alloc.peak) / double(valid.size());
  totals.worst_valid_ratio = std::max(totals.worst_valid_ratio, valid_ratio);
  for (size_t i = 0; i < sites.size(); ++i) {
    const LengthSite& s = sites[i];
    const size_t left = valid.size() - s.at - s.width;
    for (const Claim& c : claims_for(s, left, flexible)) {
      std::vector<uint8_t> frame = rewrite(valid, s, c.count, flexible);
      const DecodeResult r = decode_counted<T>(frame, version, flexible);
      ++totals.cases;
      const int64_t bound = kPeakBytesPerFrameByte * int64_t(frame.size()) + kPeakSlackBytes;
      const double ratio = double(r.alloc.peak) / double(frame.size());
      std::ostringstream where;
      where << api << " v" << version << ": " << kind_name(s.kind) << " #" << i << " at byte "
            << s.at << " (unit " << s.unit << ", " << left << " bytes after it) claiming "
            << c.count << " (" << c.what << "), frame " << frame.size() << " bytes, peak "
            << r.alloc.peak << " bytes";
      EXPECT_LE(r.alloc.peak, bound) << where.str();
      if (c.must_fail) {
        EXPECT_FALSE(r.ok && r.remaining == 0) << "decoded: " << where.str();
        EXPECT_LE(r.alloc.peak, base.alloc.peak) << "more than the valid frame: " << where.str();
        totals.worst_refused_ratio = std::max(totals.worst_refused_ratio, ratio);
      } else if (ratio > totals.worst_at_limit_ratio) {
        totals.worst_at_limit_ratio = ratio;
        totals.worst_at_limit = where.str();
      }
    }
  }
}

// T: a request or response; Req: the request, whose versions both have.
template <class T, class Req>
void every_version(const char* api) {
  Totals totals;
  for (int16_t v = Req::kVersions.min; v <= Req::kVersions.max; ++v) {
    SCOPED_TRACE("version " + std::to_string(v));
    every_count_of<T>(v, v >= Req::kFlexibleFrom, api, totals);
  }
  std::printf(
      "%s: %llu rewritten frames; peak bytes / frame bytes: refused %.2f, at the limit %.2f, "
      "valid %.2f (bound %lld x + %lld)\n  worst at the limit: %s\n",
      api, (unsigned long long)totals.cases, totals.worst_refused_ratio,
      totals.worst_at_limit_ratio, totals.worst_valid_ratio, (long long)kPeakBytesPerFrameByte,
      (long long)kPeakSlackBytes, totals.worst_at_limit.c_str());
}

#define STRATA_BOUNDS_TEST(Api)                                                         \
  TEST(DecodeBoundsEveryCount, Api##Request) { every_version<Api##Request, Api##Request>(#Api "Request"); } \
  TEST(DecodeBoundsEveryCount, Api##Response) {                                         \
    every_version<Api##Response, Api##Request>(#Api "Response");                                      \
  }
STRATA_PROTOCOL_APIS(STRATA_BOUNDS_TEST)
#undef STRATA_BOUNDS_TEST

// ---- the list of APIs is complete ---------------------------------------------------

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

#define STRATA_API_NAME_KEY(Api) {#Api, Api##Request::kApiKey},
const std::map<std::string, int16_t> kListed = {STRATA_PROTOCOL_APIS(STRATA_API_NAME_KEY)};
#undef STRATA_API_NAME_KEY

TEST(DecodeBoundsApiList, EveryHeaderInApisIsListed) {
  const std::filesystem::path dir = std::filesystem::path(STRATA_SOURCE_DIR) / "src/protocol/apis";
  std::set<int> listed;
  for (const auto& [name, key] : kListed) listed.insert(key);
  EXPECT_EQ(listed.size(), kListed.size()) << "two listed APIs share a key";
  const std::regex key_re(R"(kApiKey\s*=\s*(\d+)\s*;)");
  int headers = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".h" || e.path().filename() == "all.h") continue;
    ++headers;
    const std::string text = read_text(e.path());
    std::smatch m;
    ASSERT_TRUE(std::regex_search(text, m, key_re)) << e.path() << " declares no kApiKey";
    EXPECT_TRUE(listed.count(std::stoi(m[1]))) << e.path() << " (key " << m[1]
                                               << ") is missing from apis/all.h";
    EXPECT_NE(read_text(dir / "all.h").find("apis/" + e.path().filename().string()),
              std::string::npos)
        << e.path() << " is not included by apis/all.h";
  }
  EXPECT_EQ(size_t(headers), kListed.size()) << "apis/ has a header all.h does not list";
}

TEST(DecodeBoundsApiList, EveryApiTheBrokerServesIsListed) {
  const std::string text =
      read_text(std::filesystem::path(STRATA_SOURCE_DIR) / "src/broker/dispatch.cc");
  const std::regex entry_re(R"(STRATA_API\((\w+),\s*handle_)");
  int served = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), entry_re);
       it != std::sregex_iterator(); ++it) {
    ++served;
    EXPECT_TRUE(kListed.count((*it)[1])) << (*it)[1] << " is served but not in apis/all.h";
  }
  EXPECT_GT(served, 30) << "dispatch.cc no longer lists APIs as STRATA_API(Name, handle_...)";
}

// ---- the smallest encoding ----------------------------------------------------------

TEST(DecodeBoundsMinWireSize, FieldsOfFetch) {
  using P = FetchRequest::FetchPartition;
  using T = FetchRequest::FetchTopic;
  EXPECT_EQ(min_wire_size<P>(4, false), 4u + 8 + 4);        // partition, offset, max bytes
  EXPECT_EQ(min_wire_size<P>(5, false), 4u + 8 + 8 + 4);    // + log start offset
  EXPECT_EQ(min_wire_size<P>(12, true), 4u + 4 + 8 + 4 + 8 + 4 + 1);  // + epochs, tags
  EXPECT_EQ(min_wire_size<P>(17, true), min_wire_size<P>(12, true));  // the uuid is tagged
  EXPECT_EQ(min_wire_size<T>(4, false), 2u + 4);            // name length, partitions count
  EXPECT_EQ(min_wire_size<T>(12, true), 1u + 1 + 1);        // compact both, tag count
  EXPECT_EQ(min_wire_size<T>(13, true), 16u + 1 + 1);       // topic id in place of the name
  EXPECT_EQ(min_wire_size<int32_t>(0, false), 4u);
  EXPECT_EQ(min_wire_size<std::string>(0, false), 2u);
  EXPECT_EQ(min_wire_size<std::string>(9, true), 1u);
  EXPECT_EQ(min_wire_size<Uuid>(9, true), 16u);
}

// The smallest encoding is a lower bound of every encoding, and a default-constructed
// message (empty arrays and strings, nulls, no tagged fields) is at it.
template <class T, class Req>
void min_is_a_lower_bound(const char* api) {
  for (int16_t v = Req::kVersions.min; v <= Req::kVersions.max; ++v) {
    const bool flexible = v >= Req::kFlexibleFrom;
    T empty;
    T full;
    Fill::fill(full);
    const size_t min = min_wire_size<T>(v, flexible);
    EXPECT_LE(min, encode(empty, v, flexible).size()) << api << " v" << v;
    EXPECT_LE(min, encode(full, v, flexible).size()) << api << " v" << v;
  }
}
TEST(DecodeBoundsMinWireSize, IsALowerBoundOfEveryApiInEveryVersion) {
#define STRATA_MIN_BOUND(Api)                        \
  min_is_a_lower_bound<Api##Request, Api##Request>(#Api "Request"); \
  min_is_a_lower_bound<Api##Response, Api##Request>(#Api "Response");
  STRATA_PROTOCOL_APIS(STRATA_MIN_BOUND)
#undef STRATA_MIN_BOUND
}

// Storage per wire byte of an array at its limit: sizeof(T) / min_wire_size<T>, the
// most a frame made only of such elements can cost (times the growth factor, < 2).
struct StorageRatio {
  int16_t version;
  bool flexible;
  double worst = 0;
  std::string where;
  std::string path;

  template <class T>
  void operator()(T& value, const F& f) {
    if (!f.versions.has(version)) return;
    descend(value, path);
  }
  template <class T>
  void descend(T& v, const std::string& at) {
    if constexpr (is_std_optional<T>::value) {
      typename T::value_type inner{};
      descend(inner, at);
    } else if constexpr (is_vector<T>::value && !std::is_same_v<T, std::vector<uint8_t>>) {
      using E = typename T::value_type;
      const size_t unit = std::max<size_t>(1, min_wire_size<E>(version, flexible));
      const double r = double(sizeof(E)) / double(unit);
      if (r > worst) {
        worst = r;
        where = at + "[] (" + std::to_string(sizeof(E)) + " B per element, " +
                std::to_string(unit) + " on the wire)";
      }
      E e{};
      descend(e, at + "[]");
    } else if constexpr (Struct<T>) {
      StorageRatio inner{version, flexible, 0, "", at + "/"};
      v.visit(inner);
      if (inner.worst > worst) {
        worst = inner.worst;
        where = inner.where;
      }
    }
  }
};

// The requests (what the broker decodes from anyone) and the responses (what the tools
// decode from a broker) apart: the worst array of each and what it costs at its limit.
TEST(DecodeBoundsMinWireSize, StoragePerWireByteOfEveryArray) {
  double worst[2] = {0, 0};
  std::string where[2];
  auto each = [&]<class T, class Req>(const char* api, int side) {
    for (int16_t v = Req::kVersions.min; v <= Req::kVersions.max; ++v) {
      T m{};
      StorageRatio r{v, v >= Req::kFlexibleFrom, 0, "", ""};
      r.descend(m, std::string(api) + " v" + std::to_string(v));
      if (r.worst > worst[side]) {
        worst[side] = r.worst;
        where[side] = r.where;
      }
    }
  };
#define STRATA_RATIO(Api)                                                \
  each.template operator()<Api##Request, Api##Request>(#Api "Request", 0); \
  each.template operator()<Api##Response, Api##Request>(#Api "Response", 1);
  STRATA_PROTOCOL_APIS(STRATA_RATIO)
#undef STRATA_RATIO
  std::printf("most storage per wire byte: requests %.1f, %s\n  responses %.1f, %s\n",
              worst[0], where[0].c_str(), worst[1], where[1].c_str());
  // A decode's arrays take at most twice this per frame byte at their peak (storage
  // grows to at most the count, which the frame holds, and old and new storage coexist
  // while it grows), strings and bytes about one more: fuzz_request's bound.
  constexpr double kFuzzPeakBytesPerInputByte = 96;  // as in fuzz/fuzz_request.cc
  EXPECT_LT(2 * std::max(worst[0], worst[1]) + 2, kFuzzPeakBytesPerInputByte);
}

// ---- named cases --------------------------------------------------------------------

// The issue's request, scaled down: a Fetch v4 whose topics array claims 90 million
// elements in a 1 MiB frame. It fails at the count, before anything is allocated.
TEST(DecodeBoundsNamed, FetchClaimingNinetyMillionTopicsAllocatesNothing) {
  FetchRequest r;
  std::vector<uint8_t> frame = encode(r, 4, false);  // ... topics count at the end
  frame.resize(frame.size() - 4);
  ByteWriter w(frame);
  w.i32(int32_t(kIssueCount));
  frame.resize(1 << 20, 0);
  const DecodeResult d = decode_counted<FetchRequest>(frame, 4, false);
  EXPECT_FALSE(d.ok);
  EXPECT_EQ(d.alloc.peak, 0);
}

// A frame of zeros holds (1 MiB - header) / 6 empty Fetch v4 topics exactly; one more
// is refused; the storage of those that decode grows as they are read, within 2x.
TEST(DecodeBoundsNamed, CountAtTheLimitDecodesAndOneMoreIsRefused) {
  FetchRequest r;
  std::vector<uint8_t> head = encode(r, 4, false);
  head.resize(head.size() - 4);
  const size_t body = 1 << 20;
  const size_t fits = body / min_wire_size<FetchRequest::FetchTopic>(4, false);
  for (const size_t claim : {fits, fits + 1}) {
    std::vector<uint8_t> frame = head;
    ByteWriter w(frame);
    w.i32(int32_t(claim));
    frame.resize(head.size() + 4 + body, 0);
    const DecodeResult d = decode_counted<FetchRequest>(frame, 4, false);
    EXPECT_EQ(d.ok, claim == fits) << claim;
    if (claim == fits) {
      EXPECT_EQ(d.remaining, body - fits * 6);
      EXPECT_LE(d.alloc.peak, int64_t(3 * fits * sizeof(FetchRequest::FetchTopic)));
    } else {
      EXPECT_EQ(d.alloc.peak, 0);
    }
  }
}

struct StringAndBytes {
  std::string s;
  std::vector<uint8_t> b;
  template <class V>
  void visit(V& v) {
    v(s, F{{0}});
    v(b, F{{0}});
  }
};

// Strings and bytes: a length past the bytes left fails before the copy.
TEST(DecodeBoundsNamed, StringAndBytesLengthsPastTheEndAllocateNothing) {
  using S = StringAndBytes;
  for (const bool flexible : {false, true}) {
    S m;
    m.s = std::string(100, 'x');
    m.b.assign(100, 7);
    std::vector<uint8_t> valid = encode(m, 0, flexible);
    std::vector<LengthSite> sites;
    ASSERT_TRUE(decode_counted<S>(valid, 0, flexible, &sites).ok);
    ASSERT_EQ(sites.size(), flexible ? 3u : 2u);  // + the tagged-field count
    for (size_t i = 0; i < 2; ++i) {
      const size_t left = valid.size() - sites[i].at - sites[i].width;
      std::vector<uint8_t> frame = rewrite(valid, sites[i], left + 1, flexible);
      const DecodeResult d = decode_counted<S>(frame, 0, flexible);
      EXPECT_FALSE(d.ok) << i;
      EXPECT_LT(d.alloc.peak, 100 + 64) << i;  // at most the string before the bytes
    }
  }
}

// A tagged-field count above half the bytes left (each field: tag and size) fails.
TEST(DecodeBoundsNamed, TaggedFieldCountAboveHalfTheBytesLeftIsRefused) {
  ApiVersionsRequest r;
  std::vector<uint8_t> valid = encode(r, 3, true);
  std::vector<LengthSite> sites;
  ASSERT_TRUE(decode_counted<ApiVersionsRequest>(valid, 3, true, &sites).ok);
  ASSERT_EQ(sites.back().kind, LengthKind::kTaggedCount);
  std::vector<uint8_t> frame = rewrite(valid, sites.back(), 3, true);
  frame.insert(frame.end(), {0, 0, 1, 0, 2});  // 5 bytes cannot hold 3 fields
  EXPECT_FALSE(decode_counted<ApiVersionsRequest>(frame, 3, true).ok);
  frame.push_back(0);  // now 3 fields fit: tags 0 and 1 empty, tag 2 of size 0
  EXPECT_TRUE(decode_counted<ApiVersionsRequest>(frame, 3, true).ok);
}

}  // namespace
}  // namespace strata::protocol
