#include "storage/log_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>

namespace strata::storage {
namespace {

template <class T>
Result<void, std::string> parse_int(const std::string& name, const std::string& text, T min,
                                    T& out) {
  T v{};
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return fail(name + ": not a number: " + text);
  }
  if (v < min) return fail(name + ": must be at least " + std::to_string(min) + ": " + text);
  out = v;
  return {};
}

Result<void, std::string> parse_ratio(const std::string& name, const std::string& text,
                                      double& out) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) {
    return fail(name + ": not a number: " + text);
  }
  if (!(v >= 0.0 && v <= 1.0)) return fail(name + ": must be between 0 and 1: " + text);
  out = v;
  return {};
}

Result<void, std::string> parse_choice(const std::string& name, const std::string& text,
                                       std::initializer_list<const char*> choices,
                                       std::string& out) {
  for (const char* c : choices) {
    if (text == c) {
      out = text;
      return {};
    }
  }
  return fail(name + ": unsupported value: " + text);
}

// As Kafka's ConfigDef BOOLEAN: "true" or "false", any case, surrounding blanks ignored.
Result<void, std::string> parse_bool(const std::string& name, const std::string& text, bool& out) {
  const size_t first = text.find_first_not_of(" \t");
  const size_t last = text.find_last_not_of(" \t");
  std::string t = first == std::string::npos ? "" : text.substr(first, last - first + 1);
  std::transform(t.begin(), t.end(), t.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (t != "true" && t != "false") return fail(name + ": expected true or false: " + text);
  out = t == "true";
  return {};
}

}  // namespace

Result<void, std::string> LogConfig::apply(const std::map<std::string, std::string>& props) {
  using Setter = std::function<Result<void, std::string>(const std::string&, const std::string&)>;
  const std::map<std::string, Setter> setters = {
      // Minimums as Kafka's TopicConfig/LogConfig define them.
      {"segment.bytes", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 14, segment_bytes); }},
      {"segment.ms", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 1, segment_ms); }},
      {"segment.index.bytes", [&](auto& n, auto& v) { return parse_int<int32_t>(n, v, 4, segment_index_bytes); }},
      {"index.interval.bytes", [&](auto& n, auto& v) { return parse_int<int32_t>(n, v, 0, index_interval_bytes); }},
      {"retention.ms", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, -1, retention_ms); }},
      {"retention.bytes", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, -1, retention_bytes); }},
      {"flush.messages", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 1, flush_messages); }},
      {"flush.ms", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 0, flush_ms); }},
      {"max.message.bytes", [&](auto& n, auto& v) { return parse_int<int32_t>(n, v, 0, max_message_bytes); }},
      {"file.delete.delay.ms", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 0, file_delete_delay_ms); }},
      {"min.insync.replicas", [&](auto& n, auto& v) { return parse_int<int32_t>(n, v, 1, min_insync_replicas); }},
      {"unclean.leader.election.enable", [&](auto& n, auto& v) { return parse_bool(n, v, unclean_leader_election_enable); }},
      {"min.cleanable.dirty.ratio", [&](auto& n, auto& v) { return parse_ratio(n, v, min_cleanable_dirty_ratio); }},
      {"min.compaction.lag.ms", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 0, min_compaction_lag_ms); }},
      {"max.compaction.lag.ms", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 1, max_compaction_lag_ms); }},
      {"delete.retention.ms", [&](auto& n, auto& v) { return parse_int<int64_t>(n, v, 0, delete_retention_ms); }},
      {"cleanup.policy", [&](auto& n, auto& v) {
         return parse_choice(n, v, {"delete", "compact", "compact,delete", "delete,compact"},
                             cleanup_policy);
       }},
      {"compression.type", [&](auto& n, auto& v) {
         return parse_choice(n, v, {"producer", "uncompressed", "gzip", "snappy", "lz4", "zstd"},
                             compression_type);
       }},
      {"message.timestamp.type", [&](auto& n, auto& v) {
         return parse_choice(n, v, {"CreateTime", "LogAppendTime"}, message_timestamp_type);
       }},
  };
  for (const auto& [name, value] : props) {
    auto it = setters.find(name);
    if (it == setters.end()) return fail("unknown topic config: " + name);
    if (auto r = it->second(name, value); !r) return r;
  }
  return {};
}

size_t CleanerConfig::map_bytes_per_thread() const {
  const int64_t per_thread = dedupe_buffer_size / std::max<int32_t>(threads, 1);
  return size_t(std::clamp<int64_t>(per_thread, 0, INT32_MAX));
}

}  // namespace strata::storage
