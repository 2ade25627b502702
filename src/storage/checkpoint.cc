#include "storage/checkpoint.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <utility>

#include "storage/file.h"

namespace strata::storage {
namespace {

// Error messages quote at most this much of an offending line.
constexpr size_t kQuotedLineBytesMax = 120;
// Nesting bound of the clean shutdown marker's JSON (unknown fields may nest).
constexpr int kJsonDepthMax = 16;

StorageError corrupt(std::string_view path, std::string what) {
  return storage_error(StorageErrc::kCorruptCheckpoint,
                       std::string(path).append(": ").append(what));
}

StorageError malformed_line(std::string_view path, int line_number, std::string_view line) {
  std::string quoted(line.substr(0, kQuotedLineBytesMax));
  if (line.size() > kQuotedLineBytesMax) quoted += "...";
  return corrupt(path, "malformed line " + std::to_string(line_number) + ": '" + quoted + "'");
}

// A decimal integer exactly filling `text`: optional '-', digits, in range. No '+', no blanks.
template <class Int>
std::optional<Int> parse_int(std::string_view text) {
  Int v{};
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (text.empty() || ec != std::errc() || p != end) return std::nullopt;
  return v;
}

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

std::string join_path(const std::string& dir, const char* name) {
  return dir + "/" + name;
}

std::string parent_dir(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// The whole file, or nullopt if it does not exist. Fails past `bytes_max`.
Result<std::optional<std::string>, StorageError> read_bounded(const std::string& path,
                                                              size_t bytes_max) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return fail(io_error("open " + path));
  }
  std::string out;
  char chunk[64 * 1024];
  while (true) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      StorageError e = io_error("read " + path);
      ::close(fd);
      return fail(std::move(e));
    }
    if (n == 0) break;
    if (out.size() + size_t(n) > bytes_max) {
      ::close(fd);
      return fail(
          corrupt(path, "larger than the bound of " + std::to_string(bytes_max) + " bytes"));
    }
    out.append(chunk, size_t(n));
  }
  ::close(fd);
  return std::optional<std::string>(std::move(out));
}

// Removes `path` keeping errno, for cleanup on a failure path.
void unlink_quietly(const std::string& path) {
  const int saved = errno;
  ::unlink(path.c_str());
  errno = saved;
}

Result<void, StorageError> write_and_sync(int fd, const std::string& path, std::string_view data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(io_error("write " + path));
    done += size_t(n);
  }
  if (::fsync(fd) != 0) return fail(io_error("fsync " + path));
  return {};
}

// ---- The version/count/lines grammar shared by the offsets and leader-epoch checkpoints.

// Exactly `N` non-empty fields separated by single spaces (what Kafka writes).
template <size_t N>
std::optional<std::array<std::string_view, N>> split_fields(std::string_view line) {
  std::array<std::string_view, N> fields;
  for (size_t i = 0; i < N; ++i) {
    const size_t space = line.find(' ');
    const bool last = i + 1 == N;
    if (last != (space == std::string_view::npos)) return std::nullopt;
    fields[i] = line.substr(0, space);
    if (fields[i].empty()) return std::nullopt;
    if (!last) line.remove_prefix(space + 1);
  }
  return fields;
}

// "0\n<count>\n<entry>\n..." -> entries, each line given to `parse_entry` (returns optional).
// Grows with the lines present only; the count is compared, never used to allocate.
template <class Entry, class ParseEntry>
Result<std::vector<Entry>, StorageError> parse_checkpoint(std::string_view text,
                                                          std::string_view path,
                                                          ParseEntry parse_entry) {
  std::vector<Entry> entries;
  if (text.empty()) return entries;  // Kafka creates a checkpoint file empty before writing it
  if (text.back() != '\n') return fail(corrupt(path, "truncated: no newline at the end"));
  int line_number = 0;
  auto next_line = [&] {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    ++line_number;
    return line;
  };
  const std::string_view version_line = next_line();
  const auto version = parse_int<int32_t>(version_line);
  if (!version) return fail(malformed_line(path, line_number, version_line));
  if (*version != kCheckpointVersion) {
    return fail(corrupt(path, "unrecognised version " + std::to_string(*version) +
                                  ", expected version " + std::to_string(kCheckpointVersion)));
  }
  if (text.empty()) return fail(corrupt(path, "no entry count after the version"));
  const std::string_view count_line = next_line();
  const auto count = parse_int<int32_t>(count_line);
  if (!count || *count < 0) return fail(malformed_line(path, line_number, count_line));
  while (!text.empty()) {
    const std::string_view line = next_line();
    if (entries.size() == size_t(*count)) {
      return fail(corrupt(path, "more entries than its count of " + std::to_string(*count) +
                                    " (line " + std::to_string(line_number) + ")"));
    }
    std::optional<Entry> entry = parse_entry(line);
    if (!entry) return fail(malformed_line(path, line_number, line));
    entries.push_back(std::move(*entry));
  }
  if (entries.size() != size_t(*count)) {
    return fail(corrupt(path, "expected " + std::to_string(*count) + " entries, found " +
                                  std::to_string(entries.size())));
  }
  return entries;
}

std::string checkpoint_header(size_t count) {
  return std::to_string(kCheckpointVersion) + "\n" + std::to_string(count) + "\n";
}

std::optional<std::pair<TopicPartition, Offset>> parse_offset_line(std::string_view line) {
  const auto fields = split_fields<3>(line);
  if (!fields || !valid_topic_name((*fields)[0])) return std::nullopt;
  const auto partition = parse_int<int32_t>((*fields)[1]);
  const auto offset = parse_int<int64_t>((*fields)[2]);
  if (!partition || *partition < 0 || !offset || *offset < 0) return std::nullopt;
  return std::pair{TopicPartition{std::string((*fields)[0]), PartitionId(*partition)},
                   Offset(*offset)};
}

std::optional<EpochEntry> parse_epoch_line(std::string_view line) {
  const auto fields = split_fields<2>(line);
  if (!fields) return std::nullopt;
  const auto epoch = parse_int<int32_t>((*fields)[0]);
  const auto start_offset = parse_int<int64_t>((*fields)[1]);
  if (!epoch || *epoch < 0 || !start_offset || *start_offset < 0) return std::nullopt;
  return EpochEntry{LeaderEpoch(*epoch), Offset(*start_offset)};
}

}  // namespace

bool valid_topic_name(std::string_view topic) {
  if (topic.empty() || topic.size() > kTopicNameBytesMax) return false;
  if (topic == "." || topic == "..") return false;
  return std::all_of(topic.begin(), topic.end(),
                     [](char c) { return is_ascii_alnum(c) || c == '.' || c == '_' || c == '-'; });
}

Result<void, StorageError> atomic_write_file(const std::string& path, std::string_view contents) {
  const std::string tmp = path + kTempFileSuffix;
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return fail(io_error("open " + tmp));
  auto written = write_and_sync(fd, tmp, contents);
  const int close_rc = ::close(fd);
  if (written.ok() && close_rc != 0) written = fail(io_error("close " + tmp));
  if (!written.ok()) {
    unlink_quietly(tmp);
    return written;
  }
  if (auto renamed = rename_file(tmp, path); !renamed.ok()) {
    unlink_quietly(tmp);
    return renamed;
  }
  return sync_directory(parent_dir(path));
}

// ---- Offsets checkpoints

Result<std::string, StorageError> encode_offset_checkpoint(const OffsetCheckpoint& entries) {
  std::string out = checkpoint_header(entries.size());
  for (const auto& [tp, offset] : entries) {
    if (!valid_topic_name(tp.topic) || tp.partition.value() < 0 || offset.value() < 0) {
      return fail(storage_error(StorageErrc::kCorruptCheckpoint,
                                "refusing to checkpoint an invalid entry for topic '" + tp.topic +
                                    "' partition " + std::to_string(tp.partition.value()) +
                                    " offset " + std::to_string(offset.value())));
    }
    out.append(tp.topic).append(" ").append(std::to_string(tp.partition.value()));
    out.append(" ").append(std::to_string(offset.value())).append("\n");
  }
  return out;
}

Result<OffsetCheckpoint, StorageError> parse_offset_checkpoint(std::string_view text,
                                                               std::string_view path) {
  using Line = std::pair<TopicPartition, Offset>;
  auto lines = parse_checkpoint<Line>(text, path, parse_offset_line);
  if (!lines.ok()) return fail(lines.error());
  OffsetCheckpoint out;
  for (Line& line : *lines) {
    const std::string name = line.first.topic + "-" + std::to_string(line.first.partition.value());
    if (!out.emplace(std::move(line.first), line.second).second) {
      return fail(corrupt(path, "duplicate entry for " + name));
    }
  }
  return out;
}

Result<OffsetCheckpoint, StorageError> read_offset_checkpoint(const std::string& path) {
  auto text = read_bounded(path, kCheckpointFileBytesMax);
  if (!text.ok()) return fail(text.error());
  if (!text->has_value()) return OffsetCheckpoint{};
  return parse_offset_checkpoint(**text, path);
}

Result<void, StorageError> write_offset_checkpoint(const std::string& path,
                                                   const OffsetCheckpoint& entries) {
  auto text = encode_offset_checkpoint(entries);
  if (!text.ok()) return fail(text.error());
  return atomic_write_file(path, *text);
}

// ---- leader-epoch-checkpoint

Result<std::string, StorageError> encode_leader_epoch_checkpoint(
    std::span<const EpochEntry> entries) {
  std::string out = checkpoint_header(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    const EpochEntry& e = entries[i];
    const bool increasing =
        i == 0 || (e.epoch > entries[i - 1].epoch && e.start_offset > entries[i - 1].start_offset);
    if (e.epoch.value() < 0 || e.start_offset.value() < 0 || !increasing) {
      return fail(storage_error(StorageErrc::kCorruptCheckpoint,
                                "refusing to checkpoint leader epoch entry " + std::to_string(i) +
                                    " (epoch " + std::to_string(e.epoch.value()) + ", offset " +
                                    std::to_string(e.start_offset.value()) + ")"));
    }
    out.append(std::to_string(e.epoch.value())).append(" ");
    out.append(std::to_string(e.start_offset.value())).append("\n");
  }
  return out;
}

Result<std::vector<EpochEntry>, StorageError> parse_leader_epoch_checkpoint(std::string_view text,
                                                                            std::string_view path) {
  return parse_checkpoint<EpochEntry>(text, path, parse_epoch_line);
}

Result<std::vector<EpochEntry>, StorageError> read_leader_epoch_checkpoint(
    const std::string& path) {
  auto text = read_bounded(path, kCheckpointFileBytesMax);
  if (!text.ok()) return fail(text.error());
  if (!text->has_value()) return std::vector<EpochEntry>{};
  return parse_leader_epoch_checkpoint(**text, path);
}

Result<void, StorageError> write_leader_epoch_checkpoint(const std::string& path,
                                                         std::span<const EpochEntry> entries) {
  auto text = encode_leader_epoch_checkpoint(entries);
  if (!text.ok()) return fail(text.error());
  return atomic_write_file(path, *text);
}

// ---- meta.properties: the part of Java's properties grammar Kafka's files use, and what a
// hand edit may add (comments, blanks, ':' separators, escapes, continuation lines).
namespace {

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\f';
}

std::string_view skip_blanks(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  return s;
}

// One natural line (ended by \n, \r or \r\n), removed from `rest`.
std::string_view take_natural_line(std::string_view& rest) {
  const size_t end = std::min(rest.find('\n'), rest.find('\r'));
  const std::string_view line = rest.substr(0, end);
  if (end == std::string_view::npos) {
    rest = {};
  } else {
    const bool crlf = rest[end] == '\r' && end + 1 < rest.size() && rest[end + 1] == '\n';
    rest.remove_prefix(end + (crlf ? 2 : 1));
  }
  return line;
}

// The next logical line: comments and blank lines skipped, a line ending in an odd number of
// backslashes joined to the next (whose leading blanks are dropped). nullopt at the end.
std::optional<std::string> next_logical_line(std::string_view& rest) {
  std::string line;
  bool continuing = false;
  while (!rest.empty()) {
    const std::string_view natural = skip_blanks(take_natural_line(rest));
    if (!continuing && (natural.empty() || natural[0] == '#' || natural[0] == '!')) continue;
    const size_t last_kept = natural.find_last_not_of('\\');
    const size_t backslashes =
        natural.size() - (last_kept == std::string_view::npos ? 0 : last_kept + 1);
    continuing = backslashes % 2 == 1;
    line.append(natural.substr(0, natural.size() - (continuing ? 1 : 0)));
    if (!continuing) return line;
  }
  if (continuing) return line;
  return std::nullopt;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

// Java's escapes: \uXXXX, \t \n \r \f, and \c for any other c. False on a malformed \u.
bool unescape(std::string_view in, std::string& out) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] != '\\' || i + 1 == in.size()) {
      out += in[i];
      continue;
    }
    const char c = in[++i];
    if (c == 'u') {
      if (i + 4 >= in.size()) return false;
      const auto cp = [&]() -> std::optional<uint32_t> {
        uint32_t v = 0;
        const auto [p, ec] = std::from_chars(in.data() + i + 1, in.data() + i + 5, v, 16);
        if (ec != std::errc() || p != in.data() + i + 5) return std::nullopt;
        return v;
      }();
      if (!cp) return false;
      append_utf8(out, *cp);
      i += 4;
    } else {
      out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == 'f' ? '\f' : c;
    }
  }
  return true;
}

using Properties = std::map<std::string, std::string, std::less<>>;

// Key ends at the first unescaped '=', ':' or blank; blanks, one optional '=' or ':' and
// blanks more separate it from the value. Later duplicates win, as in Java.
bool parse_properties(std::string_view text, Properties& out) {
  while (auto line = next_logical_line(text)) {
    const std::string_view l = *line;
    size_t key_end = 0;
    while (key_end < l.size() && l[key_end] != '=' && l[key_end] != ':' && !is_blank(l[key_end])) {
      key_end += l[key_end] == '\\' ? 2 : 1;
    }
    key_end = std::min(key_end, l.size());
    std::string_view value = l.substr(key_end);
    bool separated = !value.empty() && (value[0] == '=' || value[0] == ':');
    if (!value.empty()) value.remove_prefix(1);
    value = skip_blanks(value);
    if (!separated && !value.empty() && (value[0] == '=' || value[0] == ':')) {
      value = skip_blanks(value.substr(1));
    }
    std::string key, val;
    if (!unescape(l.substr(0, key_end), key) || !unescape(value, val)) return false;
    out[std::move(key)] = std::move(val);
  }
  return true;
}

// Java's String.trim: drops characters <= ' ' at both ends.
std::string_view java_trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  return s;
}

// Java's Integer.parseInt, which also takes a leading '+'.
std::optional<int32_t> java_int(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  return parse_int<int32_t>(s);
}

std::optional<std::string_view> lookup(const Properties& props, std::string_view key) {
  const auto it = props.find(key);
  if (it == props.end()) return std::nullopt;
  return it->second;
}

bool is_base64url(char c) {
  return is_ascii_alnum(c) || c == '-' || c == '_';
}

// Kafka's Uuid.toString: 16 bytes as unpadded base64url (22 characters); "==" padding is
// also accepted on read, as Java's decoder does.
bool valid_uuid_string(std::string_view s) {
  if (s.size() == 24 && s.substr(22) == "==") s = s.substr(0, 22);
  return s.size() == 22 && std::all_of(s.begin(), s.end(), is_base64url);
}

// Java's Properties.store escaping (with a Writer, so non-ASCII is written as it is).
std::string java_escape(std::string_view s, bool is_key) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case ' ':
        out += (is_key || i == 0) ? "\\ " : " ";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\f':
        out += "\\f";
        break;
      case '=':
      case ':':
      case '#':
      case '!':
      case '\\':
        out += '\\';
        out += c;
        break;
      default:
        out += c;
    }
  }
  return out;
}

// java.util.Date.toString() in UTC: "EEE MMM dd HH:mm:ss zzz yyyy".
std::string java_date_utc(TimestampMs now) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const int64_t ms = now.value();
  const std::time_t secs = std::time_t(ms / 1000 - (ms % 1000 < 0 ? 1 : 0));
  std::tm tm{};
  ::gmtime_r(&secs, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s %s %02d %02d:%02d:%02d UTC %d", kDays[tm.tm_wday],
                kMonths[tm.tm_mon], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                tm.tm_year + 1900);
  return buf;
}

}  // namespace

Result<std::string, StorageError> encode_meta_properties(const MetaProperties& props,
                                                         TimestampMs now) {
  const auto invalid = [](std::string what) {
    return fail(storage_error(StorageErrc::kCorruptCheckpoint,
                              "refusing to write meta.properties: " + what));
  };
  if (props.version != 0 && props.version != 1) return invalid("unknown version");
  if (props.version == 1 && !props.cluster_id) return invalid("v1 needs cluster.id");
  if (props.version == 1 && !props.node_id) return invalid("v1 needs node.id");
  if (props.directory_id && !valid_uuid_string(*props.directory_id)) {
    return invalid("directory.id is not a base64 Uuid");
  }
  std::map<std::string, std::string> lines;  // sorted by key, as Java 18+ stores them
  lines["version"] = std::to_string(props.version);
  if (props.cluster_id) lines["cluster.id"] = *props.cluster_id;
  if (props.node_id) {
    lines[props.version == 0 ? "broker.id" : "node.id"] = std::to_string(props.node_id->value());
  }
  if (props.directory_id) lines["directory.id"] = *props.directory_id;
  std::string out = "#\n#" + java_date_utc(now) + "\n";
  for (const auto& [key, value] : lines) {
    out.append(java_escape(key, true)).append("=").append(java_escape(value, false)).append("\n");
  }
  return out;
}

Result<MetaProperties, StorageError> parse_meta_properties(std::string_view text,
                                                           std::string_view path) {
  Properties props;
  if (!parse_properties(text, props)) return fail(corrupt(path, "malformed \\uxxxx escape"));
  MetaProperties meta;
  const std::string_view version_text = lookup(props, "version").value_or("0");
  const auto version = java_int(java_trim(version_text));
  if (!version || (*version != 0 && *version != 1)) {
    return fail(
        corrupt(path, "unknown meta.properties version '" + std::string(version_text) + "'"));
  }
  meta.version = *version;
  const char* id_key = meta.version == 0 ? "broker.id" : "node.id";
  if (const auto id = lookup(props, id_key)) {
    const auto n = java_int(*id);
    if (!n) return fail(corrupt(path, std::string(id_key) + " is not a base-10 int32"));
    meta.node_id = NodeId(*n);
  } else if (meta.version == 1) {
    return fail(corrupt(path, "node.id was not found"));
  }
  if (const auto cluster = lookup(props, "cluster.id")) meta.cluster_id = std::string(*cluster);
  if (meta.version == 1 && !meta.cluster_id) return fail(corrupt(path, "cluster.id was not found"));
  if (const auto dir_id = lookup(props, "directory.id")) {
    if (!valid_uuid_string(*dir_id))
      return fail(corrupt(path, "directory.id is not a base64 Uuid"));
    meta.directory_id = std::string(*dir_id);
  }
  return meta;
}

Result<std::optional<MetaProperties>, StorageError> read_meta_properties(const std::string& path) {
  auto text = read_bounded(path, kMetaPropertiesBytesMax);
  if (!text.ok()) return fail(text.error());
  if (!text->has_value()) return std::optional<MetaProperties>();
  auto meta = parse_meta_properties(**text, path);
  if (!meta.ok()) return fail(meta.error());
  return std::optional<MetaProperties>(std::move(*meta));
}

Result<void, StorageError> write_meta_properties(const std::string& path,
                                                 const MetaProperties& props) {
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::system_clock::now().time_since_epoch());
  auto text = encode_meta_properties(props, TimestampMs(now_ms.count()));
  if (!text.ok()) return fail(text.error());
  return atomic_write_file(path, *text);
}

// ---- .kafka_cleanshutdown

std::string encode_clean_shutdown_marker(int64_t broker_epoch) {
  return "{\"version\":0,\"brokerEpoch\":" + std::to_string(broker_epoch) + "}";
}

Result<void, StorageError> write_clean_shutdown_marker(const std::string& log_dir,
                                                       int64_t broker_epoch) {
  return atomic_write_file(join_path(log_dir, kCleanShutdownFile),
                           encode_clean_shutdown_marker(broker_epoch));
}

Result<std::optional<CleanShutdownMarker>, StorageError> read_clean_shutdown_marker(
    const std::string& log_dir) {
  const std::string path = join_path(log_dir, kCleanShutdownFile);
  auto text = read_bounded(path, kCleanShutdownFileBytesMax);
  if (!text.ok()) {
    // An oversized marker is still a marker; only its epoch is unreadable.
    if (text.error().code != StorageErrc::kCorruptCheckpoint) return fail(text.error());
    return std::optional<CleanShutdownMarker>(CleanShutdownMarker{});
  }
  if (!text->has_value()) return std::optional<CleanShutdownMarker>();
  return std::optional<CleanShutdownMarker>(
      CleanShutdownMarker{parse_clean_shutdown_broker_epoch(**text)});
}

Result<std::optional<CleanShutdownMarker>, StorageError> consume_clean_shutdown_marker(
    const std::string& log_dir) {
  auto marker = read_clean_shutdown_marker(log_dir);
  if (!marker.ok() || !marker->has_value()) return marker;
  const std::string path = join_path(log_dir, kCleanShutdownFile);
  if (::unlink(path.c_str()) != 0 && errno != ENOENT) return fail(io_error("unlink " + path));
  if (auto synced = sync_directory(log_dir); !synced.ok()) return fail(synced.error());
  return marker;
}

// ---- A minimal JSON reader: the marker's top-level "brokerEpoch", skipping unknown fields.
namespace {

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view s) : s_(s) {}

  bool at_end() {
    blanks();
    return i_ == s_.size();
  }
  bool eat(char c) {
    blanks();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  // A string's raw contents (escapes left as they are).
  std::optional<std::string_view> string() {
    if (!eat('"')) return std::nullopt;
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] != '"') i_ += s_[i_] == '\\' ? 2 : 1;
    if (i_ >= s_.size()) return std::nullopt;
    return s_.substr(start, i_++ - start);
  }
  // A number or a literal (true, false, null) as its raw token.
  std::string_view scalar() {
    blanks();
    const size_t start = i_;
    while (i_ < s_.size() &&
           (is_ascii_alnum(s_[i_]) || s_[i_] == '-' || s_[i_] == '+' || s_[i_] == '.')) {
      ++i_;
    }
    return s_.substr(start, i_ - start);
  }
  bool skip_value(int depth) {
    if (depth > kJsonDepthMax) return false;
    blanks();
    if (i_ < s_.size() && s_[i_] == '"') return string().has_value();
    if (eat('{')) return skip_members(depth);
    if (eat('[')) {
      if (eat(']')) return true;
      do {
        if (!skip_value(depth + 1)) return false;
      } while (eat(','));
      return eat(']');
    }
    return !scalar().empty();
  }

 private:
  bool skip_members(int depth) {
    if (eat('}')) return true;
    do {
      if (!string() || !eat(':') || !skip_value(depth + 1)) return false;
    } while (eat(','));
    return eat('}');
  }
  void blanks() {
    while (i_ < s_.size() &&
           (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
  }

  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace

std::optional<int64_t> parse_clean_shutdown_broker_epoch(std::string_view text) {
  JsonScanner json(text);
  if (!json.eat('{')) return std::nullopt;
  std::optional<int64_t> epoch;
  if (!json.eat('}')) {
    do {
      const auto key = json.string();
      if (!key || !json.eat(':')) return std::nullopt;
      if (*key == "brokerEpoch") {
        epoch = parse_int<int64_t>(json.scalar());  // null or a non-integer: no epoch
      } else if (!json.skip_value(1)) {
        return std::nullopt;
      }
    } while (json.eat(','));
    if (!json.eat('}')) return std::nullopt;
  }
  if (!json.at_end()) return std::nullopt;
  return epoch;
}

}  // namespace strata::storage
