// Kafka's `sasl.jaas.config` value (and `listener.name.<l>.<mech>.sasl.jaas.config`):
// one JAAS login-module entry, parsed as Kafka's JaasConfig and JaasContext do.
//
//   entry   = class-name control-flag *(option) ";"
//   option  = token "=" token
//   token   = word / quoted
//   word    = 1*(any byte > 0x20 except  " ' / ; =)
//   quoted  = DQUOTE *(char / escape) DQUOTE  /  "'" *(char / escape) "'"
//   escape  = "\" (octal{1,3} / a b f n r t v / any other byte, taken as is)
//
// Bytes 0x00-0x20 are white space; "/*...*/", "//..." and a lone "/" (to the end of
// the line) are comments, so an unquoted value cannot contain '/'. The control flag
// is required, requisite, sufficient or optional, in any case. A repeated option
// keeps its last value, as in Kafka's map. Exactly one entry, as Kafka requires of
// the property ("JAAS config property contains 2 login modules, should be 1 module").
//
// Stricter than Kafka: a quoted token must close on its line (Kafka's tokenizer ends
// it silently at the line's end or the text's), and the text is at most
// kJaasConfigBytesMax bytes. Error texts are Kafka's where Kafka has one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace strata::security {

inline constexpr size_t kJaasConfigBytesMax = 65536;

enum class JaasControlFlag : uint8_t { kRequired, kRequisite, kSufficient, kOptional };

// "required", "requisite", "sufficient", "optional".
std::string_view to_string(JaasControlFlag f);

struct JaasConfig {
  std::string login_module;  // e.g. org.apache.kafka.common.security.plain.PlainLoginModule
  JaasControlFlag control_flag = JaasControlFlag::kRequired;
  std::map<std::string, std::string> options;

  // The option's value, or nullptr. Valid while the config lives and is not changed.
  const std::string* option(std::string_view key) const;
  // The `username` and `password` options (a login module's own credentials).
  std::optional<std::string> username() const;
  std::optional<std::string> password() const;
};

Result<JaasConfig, std::string> parse_jaas_config(std::string_view text);

// The PLAIN users: each option `user_<name>` (name not empty) as name -> password,
// what Kafka's PlainServerCallbackHandler checks passwords against.
std::map<std::string, std::string> plain_users(const JaasConfig& config);

}  // namespace strata::security
