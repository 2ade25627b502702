// What `strata produce` reads and `strata consume` prints, apart from any client library:
//
// LineReader: Kafka's kafka-console-producer LineMessageReader. One line is one record:
//   [headers <headers.delimiter>] [key <key.separator>] value
// with parse.headers / parse.key (default false), key.separator and headers.delimiter
// (tab), headers.separator (","), headers.key.separator (":"), null.marker (unset: a
// part equal to it is null) and ignore.error (a missing separator makes that part null
// instead of an error). The value is the rest of the line, separators and all.
//
// Formatter: what a consumed record prints as, one of
//  - Kafka's DefaultMessageFormatter (kafka-console-consumer): print.timestamp,
//    print.partition, print.offset, print.headers, print.key (false), print.value (true),
//    key.separator (tab) between fields, line.separator ("\n") after the last,
//    headers.separator (","), null.literal ("null"); fields in Kafka's order:
//    "CreateTime:<ms>" (or LogAppendTime / NO_TIMESTAMP), "Partition:<p>", "Offset:<o>",
//    headers "k:v,k:v" (or NO_HEADERS), key, value;
//  - a template (kcat/rpk habits): %t topic, %p partition, %o offset, %T timestamp (ms),
//    %k key, %K key length, %v or %s value, %V or %S value length, %h headers "k=v,..."
//    %H header count, %% a percent; \n \t \r \\ escapes. A null key or value prints
//    nothing (its length -1);
//  - JSON lines: {"topic","partition","offset","timestamp","timestamp_type","headers",
//    "key","value"}; a key, value or header value that is not UTF-8 is given as
//    {"base64": "..."}, null as null.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace strata::tools {

using Properties = std::map<std::string, std::string>;

// A record as the tools see it; nullopt: null.
struct ConsoleRecord {
  std::string topic;
  int32_t partition = -1;
  int64_t offset = -1;
  int64_t timestamp = -1;
  enum class TimestampType : uint8_t { kNone, kCreateTime, kLogAppendTime } timestamp_type = TimestampType::kNone;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<std::pair<std::string, std::optional<std::string>>> headers;
};

class LineReader {
 public:
  // From the --property settings; fails on Kafka's conflicting separators.
  static Result<LineReader, std::string> from(const Properties& properties);
  // One line (no line terminator), numbered from 1 for errors.
  Result<ConsoleRecord, std::string> parse(const std::string& line, int64_t line_number) const;

 private:
  bool parse_key_ = false;
  bool parse_headers_ = false;
  bool ignore_error_ = false;
  std::string key_separator_ = "\t";
  std::string headers_delimiter_ = "\t";
  std::string headers_separator_ = ",";
  std::string headers_key_separator_ = ":";
  std::optional<std::string> null_marker_;
};

class Formatter {
 public:
  // --format: "" (Kafka's formatter with `properties`), "json", or a template.
  static Result<Formatter, std::string> from(const std::string& format, const Properties& properties);
  std::string format(const ConsoleRecord& record) const;

 private:
  enum class Kind : uint8_t { kKafka, kJson, kTemplate } kind_ = Kind::kKafka;
  std::string template_;
  bool print_timestamp_ = false, print_partition_ = false, print_offset_ = false;
  bool print_headers_ = false, print_key_ = false, print_value_ = true;
  std::string key_separator_ = "\t", line_separator_ = "\n", headers_separator_ = ",";
  std::string null_literal_ = "null";

  std::string kafka(const ConsoleRecord& r) const;
  std::string filled(const ConsoleRecord& r) const;
};

// "k=v" (split at the first '='; no '=' means an empty value), as Kafka's tools parse
// --property and --producer-property.
std::pair<std::string, std::string> split_property(const std::string& text);

}  // namespace strata::tools
