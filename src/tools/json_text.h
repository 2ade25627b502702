// JSON text as Jackson's JsonNode.toString() writes it, for the dump-log decoders that
// print Kafka's generated JSON converters' output (offsets_decoder.h,
// txn_log_decoder.h): compact, fields in the order they are added.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/bytes.h"

namespace strata::tools::json {

// A JSON string: the bytes read as UTF-8 (bad bytes become U+FFFD), '"' and '\'
// escaped, control characters as \b \t \n \f \r or \u00XX (upper-case hex), everything
// else as is.
std::string quote(std::string_view s);

// Standard base64 with padding, quoted: how Jackson writes a binary node.
std::string binary(Bytes b);

// One JSON object, built field by field in order.
class Object {
 public:
  Object& raw(const char* name, const std::string& json);
  Object& str(const char* name, std::string_view s) { return raw(name, quote(s)); }
  Object& num(const char* name, int64_t n) { return raw(name, std::to_string(n)); }
  std::string done() const { return text_ + "}"; }

 private:
  std::string text_ = "{";
};

// A JSON array of `each(item)` for every item.
template <class T, class F>
std::string array(const std::vector<T>& items, F&& each) {
  std::string out = "[";
  for (const T& item : items) {
    if (out.size() > 1) out += ',';
    out += each(item);
  }
  return out + "]";
}

}  // namespace strata::tools::json
