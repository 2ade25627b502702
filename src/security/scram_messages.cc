#include "security/scram_messages.h"

#include <vector>

#include "security/base64.h"

namespace strata::security {
namespace {

using Error = std::string;

// Kafka's patterns admit only %x01-7F anywhere in a client message.
bool all_ascii_nonzero(std::string_view s) {
  for (char c : s) {
    if (c == '\0' || static_cast<unsigned char>(c) > 0x7F) return false;
  }
  return true;
}

// The message's ','-separated attributes (views into it); at most size + 1 of them,
// and the caller bounds the size.
std::vector<std::string_view> split_attributes(std::string_view message) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t comma = message.find(',', start);
    if (comma == std::string_view::npos) {
      parts.push_back(message.substr(start));
      return parts;
    }
    parts.push_back(message.substr(start, comma - start));
    start = comma + 1;
  }
}

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool is_nonce(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < 0x21 || c > 0x7E) return false;  // ',' never reaches here: attributes are split on it
  }
  return true;
}

bool is_alpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// ext = 1*ALPHA "=" 1*value-char. Returns the key, or nullopt if malformed.
std::optional<std::string_view> extension_key(std::string_view attr) {
  const size_t eq = attr.find('=');
  if (eq == 0 || eq == std::string_view::npos || eq + 1 == attr.size()) return std::nullopt;
  for (size_t i = 0; i < eq; ++i) {
    if (!is_alpha(attr[i])) return std::nullopt;
  }
  return attr.substr(0, eq);
}

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// Checks the size and bytes shared by both messages.
Result<void, Error> check_bytes(std::string_view message) {
  if (message.size() > kScramMessageBytesMax) return fail(Error("message too long"));
  if (!all_ascii_nonzero(message)) return fail(Error("message has a NUL or non-ASCII byte"));
  return {};
}

Result<void, Error> check_gs2_flag(std::string_view flag) {
  if (flag == "n") return {};
  if (starts_with(flag, "p=")) return fail(Error("channel binding is not supported"));
  if (flag == "y") return fail(Error("gs2 flag 'y' is not supported"));
  return fail(Error("invalid gs2 header"));
}

// The authzid slot of the gs2 header: empty, or "a=" saslname.
Result<std::string, Error> parse_authzid(std::string_view attr) {
  if (attr.empty()) return std::string();
  if (!starts_with(attr, "a=")) return fail(Error("invalid authzid in gs2 header"));
  auto name = scram_unescape_name(attr.substr(2));
  if (!name) return fail(Error("invalid authzid in gs2 header"));
  return std::move(*name);
}

// Extensions from parts[first, last): each well formed; tokenauth noted.
Result<bool, Error> parse_extensions(const std::vector<std::string_view>& parts, size_t first,
                                     size_t last) {
  bool token_auth = false;
  for (size_t i = first; i < last; ++i) {
    auto key = extension_key(parts[i]);
    if (!key) return fail(Error("invalid extension"));
    if (*key == "tokenauth") token_auth = equals_ignore_case(parts[i].substr(10), "true");
  }
  return token_auth;
}

}  // namespace

std::string scram_escape_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == ',')
      out += "=2C";
    else if (c == '=')
      out += "=3D";
    else
      out += c;
  }
  return out;
}

std::optional<std::string> scram_unescape_name(std::string_view saslname) {
  if (saslname.empty()) return std::nullopt;
  std::string out;
  out.reserve(saslname.size());
  for (size_t i = 0; i < saslname.size(); ++i) {
    const char c = saslname[i];
    if (c == ',' || c == '\0') return std::nullopt;
    if (c != '=') {
      out += c;
      continue;
    }
    const std::string_view code = saslname.substr(i + 1, 2);
    if (code == "2C")
      out += ',';
    else if (code == "3D")
      out += '=';
    else
      return std::nullopt;
    i += 2;
  }
  return out;
}

Result<ScramClientFirst, std::string> parse_scram_client_first(std::string_view message) {
  if (auto r = check_bytes(message); !r) return fail(r.error());
  const auto parts = split_attributes(message);
  if (auto r = check_gs2_flag(parts[0]); !r) return fail(r.error());
  if (parts.size() < 4) return fail(Error("client-first message too short"));
  auto authzid = parse_authzid(parts[1]);
  if (!authzid) return fail(authzid.error());
  if (starts_with(parts[2], "m=")) return fail(Error("reserved attribute m= is not supported"));
  if (!starts_with(parts[2], "n=")) return fail(Error("client-first message without n="));
  auto username = scram_unescape_name(parts[2].substr(2));
  if (!username) return fail(Error("invalid username"));
  if (!starts_with(parts[3], "r=") || !is_nonce(parts[3].substr(2))) {
    return fail(Error("invalid client nonce"));
  }
  auto token_auth = parse_extensions(parts, 4, parts.size());
  if (!token_auth) return fail(token_auth.error());

  ScramClientFirst f;
  const size_t gs2_bytes = parts[0].size() + parts[1].size() + 2;
  f.gs2_header = std::string(message.substr(0, gs2_bytes));
  f.bare = std::string(message.substr(gs2_bytes));
  f.authzid = std::move(*authzid);
  f.username = std::move(*username);
  f.nonce = std::string(parts[3].substr(2));
  f.token_auth = *token_auth;
  return f;
}

Result<ScramClientFinal, std::string> parse_scram_client_final(std::string_view message) {
  if (auto r = check_bytes(message); !r) return fail(r.error());
  const auto parts = split_attributes(message);
  if (parts.size() < 3) return fail(Error("client-final message too short"));
  if (!starts_with(parts[0], "c=")) return fail(Error("client-final message without c="));
  auto binding = base64_decode(parts[0].substr(2));
  if (!binding) return fail(Error("channel binding is not base64"));
  if (!starts_with(parts[1], "r=") || !is_nonce(parts[1].substr(2))) {
    return fail(Error("invalid nonce"));
  }
  const std::string_view last = parts.back();
  if (!starts_with(last, "p=")) return fail(Error("client-final message does not end in p="));
  auto proof = base64_decode(last.substr(2));
  if (!proof) return fail(Error("proof is not base64"));
  auto extensions = parse_extensions(parts, 2, parts.size() - 1);
  if (!extensions) return fail(extensions.error());

  ScramClientFinal f;
  f.channel_binding = std::move(*binding);
  f.nonce = std::string(parts[1].substr(2));
  f.proof = std::move(*proof);
  f.without_proof = std::string(message.substr(0, message.size() - last.size() - 1));
  return f;
}

}  // namespace strata::security
