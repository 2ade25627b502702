#include "security/jaas.h"

#include <cassert>
#include <vector>

namespace strata::security {
namespace {

using Error = std::string;

enum class TokenKind : uint8_t { kEnd, kWord, kQuoted, kSemicolon, kEquals };

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // kWord, kQuoted

  bool has_text() const { return kind == TokenKind::kWord || kind == TokenKind::kQuoted; }
};

bool is_space(char c) {
  return static_cast<unsigned char>(c) <= 0x20;
}

bool is_word_char(char c) {
  if (is_space(c)) return false;
  switch (c) {
    case '"':
    case '\'':
    case '/':
    case ';':
    case '=':
      return false;
    default:
      return true;
  }
}

bool is_octal(char c) {
  return c >= '0' && c <= '7';
}

// A value a Java tokenizer would hold as one UTF-16 unit, as UTF-8 (octal escapes
// reach up to \377).
void append_code_unit(std::string& out, unsigned v) {
  assert(v <= 0xFF);
  if (v < 0x80) {
    out += char(v);
  } else {
    out += char(0xC0 | (v >> 6));
    out += char(0x80 | (v & 0x3F));
  }
}

// Java's StreamTokenizer, as Kafka's JaasConfig sets it up (see jaas.h's grammar).
class Tokenizer {
 public:
  explicit Tokenizer(std::string_view text) : text_(text) {}

  Result<Token, Error> next() {
    skip_space_and_comments();
    if (pos_ == text_.size()) return Token{};
    const char c = text_[pos_];
    if (c == ';' || c == '=') {
      ++pos_;
      return Token{c == ';' ? TokenKind::kSemicolon : TokenKind::kEquals, {}};
    }
    if (c == '"' || c == '\'') return quoted();
    const size_t start = pos_;
    while (pos_ < text_.size() && is_word_char(text_[pos_])) ++pos_;
    assert(pos_ > start);  // not space, not a comment, not ; = or a quote: a word char
    return Token{TokenKind::kWord, std::string(text_.substr(start, pos_ - start))};
  }

 private:
  void skip_space_and_comments() {
    while (pos_ < text_.size()) {
      if (is_space(text_[pos_])) {
        ++pos_;
      } else if (text_[pos_] != '/') {
        return;
      } else if (text_.substr(pos_, 2) == "/*") {
        const size_t close = text_.find("*/", pos_ + 2);
        pos_ = close == text_.npos ? text_.size() : close + 2;  // unclosed: to the end, as Java
      } else {
        const size_t eol = text_.find_first_of("\r\n", pos_);
        pos_ = eol == text_.npos ? text_.size() : eol;
      }
    }
  }

  Result<Token, Error> quoted() {
    const char quote = text_[pos_++];
    Token t{TokenKind::kQuoted, {}};
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == quote) {
        ++pos_;
        return t;
      }
      if (c == '\n' || c == '\r') break;
      ++pos_;
      if (c != '\\') {
        t.text += c;
      } else if (pos_ < text_.size()) {
        escape(t.text);
      }
    }
    return fail(Error("Unterminated quoted string in JAAS config"));
  }

  // After a backslash: one escape, appended to `out`.
  void escape(std::string& out) {
    const char first = text_[pos_++];
    if (!is_octal(first)) {
      switch (first) {
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'v':
          out += '\v';
          break;
        default:
          out += first;
      }
      return;
    }
    unsigned v = unsigned(first - '0');
    const size_t max_digits = first <= '3' ? 3 : 2;
    for (size_t n = 1; n < max_digits && pos_ < text_.size() && is_octal(text_[pos_]); ++n) {
      v = v * 8 + unsigned(text_[pos_++] - '0');
    }
    append_code_unit(out, v);
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Result<JaasControlFlag, Error> control_flag(const Token& t) {
  if (t.kind == TokenKind::kEnd) {
    return fail(Error("Login module control flag not specified in JAAS config"));
  }
  if (!t.has_text()) {
    return fail(Error("Login module control flag is not available in the JAAS config"));
  }
  std::string lower = t.text;
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  if (lower == "required") return JaasControlFlag::kRequired;
  if (lower == "requisite") return JaasControlFlag::kRequisite;
  if (lower == "sufficient") return JaasControlFlag::kSufficient;
  if (lower == "optional") return JaasControlFlag::kOptional;
  return fail("Invalid login module control flag '" + t.text + "' in JAAS config");
}

// The options up to and including the entry's ';'.
Result<void, Error> parse_options(Tokenizer& tokens, JaasConfig& entry) {
  while (true) {
    auto key = tokens.next();
    if (!key) return fail(key.error());
    if (key->kind == TokenKind::kSemicolon) return {};
    if (key->kind == TokenKind::kEnd) {
      return fail(Error("JAAS config entry not terminated by semi-colon"));
    }
    if (!key->has_text()) return fail(Error("Option name not specified in JAAS config"));
    auto eq = tokens.next();
    if (!eq) return fail(eq.error());
    auto value = eq->kind == TokenKind::kEquals ? tokens.next() : Result<Token, Error>(Token{});
    if (!value) return fail(value.error());
    if (!value->has_text()) {
      return fail("Value not specified for key '" + key->text + "' in JAAS config");
    }
    entry.options[key->text] = std::move(value->text);
  }
}

// One entry, whose first token (the class name) has been read.
Result<JaasConfig, Error> parse_entry(Tokenizer& tokens, const Token& class_name) {
  if (!class_name.has_text() || class_name.text.empty()) {
    return fail(Error("Login module class name not specified in JAAS config"));
  }
  JaasConfig entry;
  entry.login_module = class_name.text;
  auto flag_token = tokens.next();
  if (!flag_token) return fail(flag_token.error());
  auto flag = control_flag(*flag_token);
  if (!flag) return fail(flag.error());
  entry.control_flag = *flag;
  if (auto r = parse_options(tokens, entry); !r) return fail(r.error());
  return entry;
}

}  // namespace

std::string_view to_string(JaasControlFlag f) {
  switch (f) {
    case JaasControlFlag::kRequired:
      return "required";
    case JaasControlFlag::kRequisite:
      return "requisite";
    case JaasControlFlag::kSufficient:
      return "sufficient";
    case JaasControlFlag::kOptional:
      return "optional";
  }
  assert(false && "not a JaasControlFlag");
  return "";
}

const std::string* JaasConfig::option(std::string_view key) const {
  const auto it = options.find(std::string(key));
  return it == options.end() ? nullptr : &it->second;
}

std::optional<std::string> JaasConfig::username() const {
  const std::string* v = option("username");
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

std::optional<std::string> JaasConfig::password() const {
  const std::string* v = option("password");
  return v ? std::optional<std::string>(*v) : std::nullopt;
}

Result<JaasConfig, std::string> parse_jaas_config(std::string_view text) {
  if (text.size() > kJaasConfigBytesMax) return fail(Error("JAAS config too long"));
  Tokenizer tokens(text);
  std::vector<JaasConfig> entries;  // at most one per ';' of a bounded text
  while (true) {
    auto first = tokens.next();
    if (!first) return fail(first.error());
    if (first->kind == TokenKind::kEnd) break;
    auto entry = parse_entry(tokens, *first);
    if (!entry) return fail(entry.error());
    entries.push_back(std::move(*entry));
  }
  if (entries.empty()) return fail(Error("Login module not specified in JAAS config"));
  if (entries.size() != 1) {
    return fail("JAAS config property contains " + std::to_string(entries.size()) +
                " login modules, should be 1 module");
  }
  return std::move(entries.front());
}

std::map<std::string, std::string> plain_users(const JaasConfig& config) {
  constexpr std::string_view kPrefix = "user_";
  std::map<std::string, std::string> users;
  for (const auto& [key, value] : config.options) {
    if (key.size() > kPrefix.size() && key.compare(0, kPrefix.size(), kPrefix) == 0) {
      users.emplace(key.substr(kPrefix.size()), value);
    }
  }
  return users;
}

}  // namespace strata::security
