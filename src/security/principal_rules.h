// Kafka's `ssl.principal.mapping.rules` (KIP-371): how a TLS client certificate's
// distinguished name becomes a principal name, as Kafka's SslPrincipalMapper does it.
//
//   rules   = rule *("," rule)           ; white space around rules and commas is ignored,
//                                        ; empty rules (",,") are skipped
//   rule    = "DEFAULT" / "RULE:" pattern "/" replacement "/" ["L" / "U"]
//   pattern, replacement = *("\" any-byte / any byte but "\" and "/")
//
// Rules are tried in order; the first whose pattern matches the whole DN wins.
// DEFAULT yields the DN unchanged. A RULE yields the DN with every match of the
// pattern replaced (Java's String.replaceAll), `$n` in the replacement standing for
// group n and `\x` for a literal x, then lower- or upper-cased with /L or /U. A `$n`
// past the pattern's last group is literal text (Kafka's rule), and `$12` means group 12
// only if the pattern has 12 groups, else group 1 and a literal "2" (Java's rule). No
// rule matching is an error ("No rules apply to <dn>, rules [...]"); so is the empty
// rule list, for every DN.
//
// Differences from Kafka, all of them about texts Kafka's regexes are Java's:
// - patterns are ECMAScript (std::regex): no (?i), possessive quantifiers, \p{..} or
//   named groups; a pattern std::regex refuses is a parse error, and so is a
//   back-reference or repetition count over 9 digits (libstdc++ would overflow);
// - a replacement Java would refuse when the rule is applied (a lone trailing "\" or
//   "$", "${name}", "$1" when the pattern has no group) is refused at parse time;
// - /L and /U change ASCII letters only;
// - a DN longer than kDistinguishedNameBytesMax is refused: libstdc++'s matcher
//   recurses once per input character (about 250 bytes of stack each), so the bound
//   keeps a match within a few hundred KiB of stack.
// The rules are trusted configuration: a pattern can still take exponential time
// (nested quantifiers), as in Java.
#pragma once

#include <cstddef>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace strata::security {

inline constexpr size_t kDistinguishedNameBytesMax = 1024;
inline constexpr size_t kPrincipalRulesBytesMax = 65536;

struct PrincipalRule {
  enum class Case : uint8_t { kKeep, kLower, kUpper };
  // One piece of a compiled replacement: literal text, or a group's text.
  struct Piece {
    std::string literal;
    int group = -1;  // >= 0: the group's text instead of `literal`
  };

  bool is_default = false;
  std::string pattern;      // as written, escapes included
  std::string replacement;  // as written
  Case to_case = Case::kKeep;
  std::regex regex;           // `pattern`, ECMAScript
  std::vector<Piece> pieces;  // `replacement`, compiled

  // Kafka's text for the rule: DEFAULT, or RULE:pattern/replacement[/L|/U].
  std::string to_string() const;
};

class PrincipalMapper {
 public:
  // The principal name for `dn`, or the error Kafka reports when no rule applies.
  Result<std::string, std::string> name(std::string_view dn) const;

  const std::vector<PrincipalRule>& rules() const { return rules_; }
  // Kafka's list text: "[RULE:^CN=(.*?),OU=.*$/$1/L, DEFAULT]".
  std::string to_string() const;

 private:
  friend Result<PrincipalMapper, std::string> parse_principal_rules(std::string_view text);
  explicit PrincipalMapper(std::vector<PrincipalRule> rules) : rules_(std::move(rules)) {}

  std::vector<PrincipalRule> rules_;
};

// Parses the property's value. Errors name the offending rule ("Invalid rule: ...").
Result<PrincipalMapper, std::string> parse_principal_rules(std::string_view text);

}  // namespace strata::security
