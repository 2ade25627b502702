#include "security/principal_rules.h"

#include <cassert>
#include <optional>

namespace strata::security {
namespace {

using Error = std::string;

// Java's \s.
bool is_java_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\x0B' || c == '\f' || c == '\r';
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Java's String.trim: bytes <= 0x20 off both ends.
std::string_view trim(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= 0x20) s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= 0x20) s.remove_suffix(1);
  return s;
}

// Reads a rule's text from `text` at `pos`.
class RuleReader {
 public:
  RuleReader(std::string_view text, size_t pos) : text_(text), pos_(pos) {}

  size_t pos() const { return pos_; }
  bool at_end() const { return pos_ == text_.size(); }
  char peek() const { return text_[pos_]; }
  bool take(std::string_view s) {
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  void skip_spaces() {
    while (!at_end() && is_java_space(peek())) ++pos_;
  }
  // A pattern or a replacement: escape pairs and bytes other than '\' and '/', up to
  // (not over) the next unescaped '/'. nullopt if no '/' follows.
  std::optional<std::string_view> part() {
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != '/') pos_ += text_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= text_.size()) {  // ran off the end (a trailing '\' steps past it)
      pos_ = text_.size();
      return std::nullopt;
    }
    return text_.substr(start, pos_ - start);
  }
  // For error messages: from `start` to the next ',' or the end.
  std::string_view until_comma(size_t start) const {
    return text_.substr(start, text_.find(',', start) - start);
  }

 private:
  std::string_view text_;
  size_t pos_;
};

// libstdc++'s regex compiler reads a back-reference number (\N) and an interval's
// bounds ({n,m}) into a long without checking for overflow (undefined behaviour past
// 18 digits). Numbers in those places are bounded to 9 digits before std::regex sees
// the pattern; no sane pattern needs more.
bool has_overlong_regex_number(std::string_view p) {
  constexpr size_t kDigitsMax = 9;
  auto digits_at = [&](size_t i) {
    size_t n = 0;
    while (i + n < p.size() && is_digit(p[i + n])) ++n;
    return n;
  };
  bool in_bracket = false;
  bool in_brace = false;
  for (size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\') {
      if (i + 1 < p.size() && digits_at(i + 1) > kDigitsMax) return true;
      ++i;  // the escaped byte is never syntax
    } else if (in_bracket) {
      in_bracket = c != ']';
    } else if (c == '[') {
      in_bracket = true;
    } else if (c == '{' || (c == ',' && in_brace)) {
      in_brace = true;
      if (digits_at(i + 1) > kDigitsMax) return true;
    } else if (c == '}') {
      in_brace = false;
    }
  }
  return false;
}

// Java's Matcher.appendReplacement syntax with Kafka's escaping of references past the
// last group (SslPrincipalMapper.escapeLiteralBackReferences), compiled.
Result<std::vector<PrincipalRule::Piece>, Error> compile_replacement(std::string_view r,
                                                                     unsigned groups) {
  std::vector<PrincipalRule::Piece> pieces(1);
  for (size_t i = 0; i < r.size(); ++i) {
    const char c = r[i];
    if (c == '\\') {
      if (++i == r.size()) return fail(Error("character to be escaped is missing"));
      pieces.back().literal += r[i];
      continue;
    }
    if (c != '$') {
      pieces.back().literal += c;
      continue;
    }
    if (++i == r.size()) return fail(Error("Illegal group reference: group index is missing"));
    if (r[i] == '{') return fail(Error("named groups are not supported"));
    if (!is_digit(r[i])) return fail(Error("Illegal group reference"));
    unsigned ref = unsigned(r[i] - '0');
    if (ref > groups) {
      if (groups == 0) return fail("No group " + std::to_string(ref));
      pieces.back().literal += '$';
      pieces.back().literal += r[i];
      continue;
    }
    while (i + 1 < r.size() && is_digit(r[i + 1]) &&
           ref * 10 + unsigned(r[i + 1] - '0') <= groups) {
      ref = ref * 10 + unsigned(r[++i] - '0');
    }
    pieces.push_back({{}, int(ref)});
    pieces.push_back({});
  }
  return pieces;
}

// "RULE:" pattern "/" replacement "/" [L|U], read after the "RULE:".
Result<PrincipalRule, Error> read_rule_body(RuleReader& in) {
  PrincipalRule rule;
  auto pattern = in.part();
  if (!pattern || !in.take("/")) return fail(Error("missing '/' after the pattern"));
  auto replacement = in.part();
  if (!replacement || !in.take("/")) return fail(Error("missing '/' after the replacement"));
  rule.pattern = std::string(*pattern);
  rule.replacement = std::string(*replacement);
  if (in.take("L"))
    rule.to_case = PrincipalRule::Case::kLower;
  else if (in.take("U"))
    rule.to_case = PrincipalRule::Case::kUpper;
  if (has_overlong_regex_number(rule.pattern)) {
    return fail(Error("bad pattern: a back-reference or repetition count over 9 digits"));
  }
  try {
    rule.regex = std::regex(rule.pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return fail(Error("bad pattern: ") + e.what());
  }
  auto pieces = compile_replacement(rule.replacement, unsigned(rule.regex.mark_count()));
  if (!pieces) return fail("bad replacement: " + pieces.error());
  rule.pieces = std::move(*pieces);
  return rule;
}

// One rule at the reader's position, which is not a ',' or white space; the rule must
// be followed by white space then a ',' or the end.
Result<PrincipalRule, Error> read_rule(RuleReader& in) {
  const size_t start = in.pos();
  auto invalid = [&](std::string_view why) {
    std::string e = "Invalid rule: " + std::string(in.until_comma(start));
    if (!why.empty()) e += " (" + std::string(why) + ")";
    return e;
  };
  Result<PrincipalRule, Error> rule = PrincipalRule{};
  if (in.take("DEFAULT")) {
    rule->is_default = true;
  } else if (in.take("RULE:")) {
    rule = read_rule_body(in);
    if (!rule) return fail(invalid(rule.error()));
  } else {
    return fail(invalid(""));
  }
  in.skip_spaces();
  if (!in.at_end() && in.peek() != ',') return fail(invalid("unexpected text after the rule"));
  return rule;
}

void change_case(std::string& s, PrincipalRule::Case to) {
  for (char& c : s) {
    if (to == PrincipalRule::Case::kLower && c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
    if (to == PrincipalRule::Case::kUpper && c >= 'a' && c <= 'z') c = char(c - 'a' + 'A');
  }
}

void append_replacement(std::string& out, const PrincipalRule& rule, const std::cmatch& m) {
  for (const auto& piece : rule.pieces) {
    if (piece.group < 0)
      out += piece.literal;
    else if (m[size_t(piece.group)].matched)
      out += m[size_t(piece.group)].str();
  }
}

// Java's String.replaceAll: each match found searching on from the last one's end
// (one byte further after an empty match) replaced. At most dn.size() + 1 searches.
std::string replace_all(std::string_view dn, const PrincipalRule& rule) {
  const char* const end = dn.data() + dn.size();
  const char* search = dn.data();
  const char* copied = dn.data();
  auto flags = std::regex_constants::match_default;
  std::string out;
  std::cmatch m;
  while (std::regex_search(search, end, m, rule.regex, flags)) {
    out.append(copied, m[0].first);
    append_replacement(out, rule, m);
    copied = m[0].second;
    search = m[0].second;
    if (m[0].first == m[0].second) {
      if (search == end) break;
      ++search;
    }
    flags = std::regex_constants::match_prev_avail;
  }
  out.append(copied, end);
  return out;
}

}  // namespace

std::string PrincipalRule::to_string() const {
  if (is_default) return "DEFAULT";
  std::string s = "RULE:" + pattern + "/" + replacement;
  if (to_case == Case::kLower) s += "/L";
  if (to_case == Case::kUpper) s += "/U";
  return s;
}

std::string PrincipalMapper::to_string() const {
  std::string s = "[";
  for (size_t i = 0; i < rules_.size(); ++i) s += (i ? ", " : "") + rules_[i].to_string();
  return s + "]";
}

Result<std::string, std::string> PrincipalMapper::name(std::string_view dn) const {
  if (dn.size() > kDistinguishedNameBytesMax) {
    return fail("Distinguished name longer than " + std::to_string(kDistinguishedNameBytesMax) +
                " bytes");
  }
  try {
    for (const auto& rule : rules_) {
      if (rule.is_default) return std::string(dn);
      if (!std::regex_match(dn.data(), dn.data() + dn.size(), rule.regex)) continue;
      std::string out = replace_all(dn, rule);
      change_case(out, rule.to_case);
      return out;
    }
  } catch (const std::regex_error& e) {  // the matcher's complexity or stack limits
    return fail(std::string("Principal mapping failed: ") + e.what());
  }
  return fail("No rules apply to " + std::string(dn) + ", rules " + to_string());
}

Result<PrincipalMapper, std::string> parse_principal_rules(std::string_view text) {
  if (text.size() > kPrincipalRulesBytesMax) return fail(Error("Principal mapping rules too long"));
  const std::string_view trimmed = trim(text);
  RuleReader in(trimmed, 0);
  std::vector<PrincipalRule> rules;
  while (true) {  // each pass consumes at least one byte
    in.skip_spaces();
    if (in.at_end()) break;
    if (in.take(",")) continue;  // an empty rule
    auto rule = read_rule(in);
    if (!rule) return fail(rule.error());
    rules.push_back(std::move(*rule));
  }
  return PrincipalMapper(std::move(rules));
}

}  // namespace strata::security
