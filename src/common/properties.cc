#include "common/properties.h"

#include <fstream>
#include <sstream>

#include "common/ascii.h"

namespace strata {
namespace {

// True when the line ends in an odd number of backslashes (a continuation).
bool continues(std::string_view line) {
  size_t n = 0;
  while (n < line.size() && line[line.size() - 1 - n] == '\\') ++n;
  return n % 2 == 1;
}

}  // namespace

Result<std::map<std::string, std::string>, std::string> parse_properties(std::string_view text,
                                                                         const std::string& origin) {
  std::map<std::string, std::string> out;
  std::string logical;
  bool joining = false;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find('\n', at), text.size());
    std::string_view line = trim_blanks(text.substr(at, end - at));
    at = end + 1;
    if (!joining && (line.empty() || line[0] == '#' || line[0] == '!')) continue;
    joining = continues(line);
    if (joining) line.remove_suffix(1);
    logical += line;
    if (joining && at <= text.size()) continue;
    const std::string_view entry = logical;
    const size_t sep = entry.find_first_of("=: \t\f");
    const std::string key(trim_blanks(entry.substr(0, sep)));
    std::string_view value = sep == std::string_view::npos ? "" : trim_blanks(entry.substr(sep + 1));
    // "key = value": a separator after blanks is part of them, not of the value.
    if (sep != std::string_view::npos && (entry[sep] == ' ' || entry[sep] == '\t' ||
                                          entry[sep] == '\f') &&
        !value.empty() && (value[0] == '=' || value[0] == ':')) {
      value = trim_blanks(value.substr(1));
    }
    if (key.empty()) return fail(origin + ": a line without a key: " + logical);
    out[key] = std::string(value);
    logical.clear();
    joining = false;
  }
  return out;
}

Result<std::map<std::string, std::string>, std::string> read_properties_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_properties(text.str(), path);
}

}  // namespace strata
