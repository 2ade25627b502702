// Java properties files, as Kafka reads server.properties and a client's --command-config:
// "key=value", "key: value" or "key value" lines; '#' and '!' start comment lines; a line
// ending in an odd number of backslashes continues on the next one (leading white space of
// the continuation dropped), which is how a long sasl.jaas.config is usually written.
// Escapes other than the line continuation are kept as written (Kafka users rarely need
// \uXXXX in these files; a value is never unescaped behind their back).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/result.h"

namespace strata {

// Parses properties text. `origin` names it in errors ("client.properties: ...").
Result<std::map<std::string, std::string>, std::string> parse_properties(std::string_view text,
                                                                         const std::string& origin);

// The value of `key` in `properties`, or `fallback` when it is not set.
inline std::string property_or(const std::map<std::string, std::string>& properties, const std::string& key,
                               const std::string& fallback = "") {
  const auto it = properties.find(key);
  return it == properties.end() ? fallback : it->second;
}

// Reads and parses the file at `path`.
Result<std::map<std::string, std::string>, std::string> read_properties_file(const std::string& path);

}  // namespace strata
