#include "tools/console_format.h"

#include <nlohmann/json.hpp>

#include "common/ascii.h"
#include "common/properties.h"
#include "common/utf8.h"
#include "security/base64.h"

namespace strata::tools {
namespace {

bool flag(const Properties& p, const std::string& key, bool fallback) {
  auto it = p.find(key);
  if (it == p.end()) return fallback;
  return ascii_lower(it->second) == "true";
}

// The text up to the first `separator` at or after `from`, and where the rest starts;
// nullopt when there is none.
std::optional<std::pair<std::string, size_t>> take_until(const std::string& line, size_t from,
                                                         const std::string& separator) {
  const size_t at = line.find(separator, from);
  if (at == std::string::npos) return std::nullopt;
  return std::pair{line.substr(from, at - from), at + separator.size()};
}


nlohmann::json bytes_json(const std::optional<std::string>& v) {
  if (!v) return nullptr;
  if (valid_utf8(*v)) return *v;
  return nlohmann::json{{"base64", security::base64_encode(*v)}};
}

const char* timestamp_name(ConsoleRecord::TimestampType t) {
  switch (t) {
    case ConsoleRecord::TimestampType::kCreateTime: return "CreateTime";
    case ConsoleRecord::TimestampType::kLogAppendTime: return "LogAppendTime";
    case ConsoleRecord::TimestampType::kNone: break;
  }
  return "NO_TIMESTAMP";
}

}  // namespace

std::pair<std::string, std::string> split_property(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos) return {text, ""};
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Result<LineReader, std::string> LineReader::from(const Properties& p) {
  LineReader r;
  r.parse_key_ = flag(p, "parse.key", false);
  r.parse_headers_ = flag(p, "parse.headers", false);
  r.ignore_error_ = flag(p, "ignore.error", false);
  r.key_separator_ = property_or(p, "key.separator", "\t");
  r.headers_delimiter_ = property_or(p, "headers.delimiter", "\t");
  r.headers_separator_ = property_or(p, "headers.separator", ",");
  r.headers_key_separator_ = property_or(p, "headers.key.separator", ":");
  if (auto it = p.find("null.marker"); it != p.end()) r.null_marker_ = it->second;
  for (const auto* s : {&r.key_separator_, &r.headers_delimiter_, &r.headers_separator_, &r.headers_key_separator_}) {
    if (s->empty()) return fail(std::string("a separator may not be empty"));
  }
  if (r.parse_headers_) {
    if (r.headers_delimiter_ == r.headers_separator_) {
      return fail(std::string("headers.delimiter and headers.separator may not be equal"));
    }
    if (r.headers_delimiter_ == r.headers_key_separator_) {
      return fail(std::string("headers.delimiter and headers.key.separator may not be equal"));
    }
    if (r.headers_separator_ == r.headers_key_separator_) {
      return fail(std::string("headers.separator and headers.key.separator may not be equal"));
    }
  }
  if (r.null_marker_) {
    for (const auto* s : {&r.key_separator_, &r.headers_delimiter_, &r.headers_separator_, &r.headers_key_separator_}) {
      if (*s == *r.null_marker_) return fail("null.marker may not equal a separator ('" + *s + "')");
    }
  }
  return r;
}

Result<ConsoleRecord, std::string> LineReader::parse(const std::string& line, int64_t n) const {
  ConsoleRecord out;
  const std::string where = " on line number " + std::to_string(n) + ": '" + line + "'";
  auto nullable = [this](std::string s) -> std::optional<std::string> {
    if (null_marker_ && s == *null_marker_) return std::nullopt;
    return s;
  };
  size_t at = 0;
  if (parse_headers_) {
    auto part = take_until(line, at, headers_delimiter_);
    if (!part && !ignore_error_) return fail("No headers delimiter found" + where);
    if (part) {
      at = part->second;
      if (!(null_marker_ && part->first == *null_marker_) && !part->first.empty()) {
        size_t from = 0;
        const std::string& text = part->first;
        while (from <= text.size()) {
          size_t end = text.find(headers_separator_, from);
          if (end == std::string::npos) end = text.size();
          const std::string pair = text.substr(from, end - from);
          const size_t k = pair.find(headers_key_separator_);
          if (k == std::string::npos) {
            if (!ignore_error_) {
              return fail("No header key separator found in pair '" + pair + "' on line number " + std::to_string(n));
            }
            out.headers.emplace_back(pair, std::nullopt);
          } else {
            const std::string key = pair.substr(0, k);
            if (null_marker_ && key == *null_marker_) {
              return fail("Header keys should not be equal to the null marker '" + *null_marker_ +
                          "' as they can't be null");
            }
            out.headers.emplace_back(key, nullable(pair.substr(k + headers_key_separator_.size())));
          }
          from = end + headers_separator_.size();
        }
      }
    }
  }
  if (parse_key_) {
    auto part = take_until(line, at, key_separator_);
    if (!part && !ignore_error_) return fail("No key separator found" + where);
    if (part) {
      out.key = nullable(part->first);
      at = part->second;
    }
  }
  out.value = nullable(line.substr(std::min(at, line.size())));
  return out;
}

Result<Formatter, std::string> Formatter::from(const std::string& format, const Properties& p) {
  Formatter f;
  if (format == "json") {
    f.kind_ = Kind::kJson;
  } else if (!format.empty()) {
    f.kind_ = Kind::kTemplate;
    f.template_ = format;
  }
  f.print_timestamp_ = flag(p, "print.timestamp", false);
  f.print_partition_ = flag(p, "print.partition", false);
  f.print_offset_ = flag(p, "print.offset", false);
  f.print_headers_ = flag(p, "print.headers", false);
  f.print_key_ = flag(p, "print.key", false);
  f.print_value_ = flag(p, "print.value", true);
  f.key_separator_ = property_or(p, "key.separator", "\t");
  f.line_separator_ = property_or(p, "line.separator", "\n");
  f.headers_separator_ = property_or(p, "headers.separator", ",");
  f.null_literal_ = property_or(p, "null.literal", "null");
  return f;
}

std::string Formatter::format(const ConsoleRecord& r) const {
  switch (kind_) {
    case Kind::kKafka: return kafka(r);
    case Kind::kTemplate: return filled(r);
    case Kind::kJson: break;
  }
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [k, v] : r.headers) headers.push_back({{"key", k}, {"value", bytes_json(v)}});
  nlohmann::json j{{"topic", r.topic},     {"partition", r.partition}, {"offset", r.offset},
                   {"timestamp", r.timestamp}, {"timestamp_type", timestamp_name(r.timestamp_type)},
                   {"headers", headers},   {"key", bytes_json(r.key)}, {"value", bytes_json(r.value)}};
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

// Kafka's field order; after each field the key separator when another follows, the
// line separator after the last.
std::string Formatter::kafka(const ConsoleRecord& r) const {
  std::vector<std::string> fields;
  if (print_timestamp_) {
    fields.push_back(r.timestamp_type == ConsoleRecord::TimestampType::kNone
                         ? std::string("NO_TIMESTAMP")
                         : std::string(timestamp_name(r.timestamp_type)) + ":" + std::to_string(r.timestamp));
  }
  if (print_partition_) fields.push_back("Partition:" + std::to_string(r.partition));
  if (print_offset_) fields.push_back("Offset:" + std::to_string(r.offset));
  if (print_headers_) {
    std::string h;
    for (const auto& [k, v] : r.headers) {
      if (!h.empty()) h += headers_separator_;
      h += k + ":" + v.value_or(null_literal_);
    }
    fields.push_back(r.headers.empty() ? std::string("NO_HEADERS") : h);
  }
  if (print_key_) fields.push_back(r.key.value_or(null_literal_));
  if (print_value_) fields.push_back(r.value.value_or(null_literal_));
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    out += fields[i];
    out += i + 1 < fields.size() ? key_separator_ : line_separator_;
  }
  return out;
}

std::string Formatter::filled(const ConsoleRecord& r) const {
  std::string out;
  const std::string& t = template_;
  auto length = [](const std::optional<std::string>& v) { return v ? std::to_string(v->size()) : std::string("-1"); };
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if ((c != '%' && c != '\\') || i + 1 == t.size()) {
      out += c;
      continue;
    }
    const char n = t[++i];
    if (c == '\\') {
      switch (n) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case '\\': out += '\\'; break;
        default: out += c; out += n;
      }
      continue;
    }
    switch (n) {
      case 't': out += r.topic; break;
      case 'p': out += std::to_string(r.partition); break;
      case 'o': out += std::to_string(r.offset); break;
      case 'T': out += std::to_string(r.timestamp); break;
      case 'k': out += r.key.value_or(""); break;
      case 'K': out += length(r.key); break;
      case 'v': case 's': out += r.value.value_or(""); break;
      case 'V': case 'S': out += length(r.value); break;
      case 'H': out += std::to_string(r.headers.size()); break;
      case 'h':
        for (size_t h = 0; h < r.headers.size(); ++h) {
          if (h > 0) out += ',';
          out += r.headers[h].first + "=" + r.headers[h].second.value_or("");
        }
        break;
      case '%': out += '%'; break;
      default: out += c; out += n;
    }
  }
  return out;
}

}  // namespace strata::tools
