// The two SCRAM messages a server reads (RFC 5802 §7), parsed as Kafka's broker
// accepts them. Grammar (every byte in %x01-7F, as Kafka's patterns demand):
//
//   client-first = gs2-header client-first-bare
//   gs2-header   = "n," ["a=" saslname] ","          ; "p=..." and "y" are refused
//   client-first-bare = "n=" saslname ",r=" nonce *("," ext)
//   client-final = "c=" base64 ",r=" nonce *("," ext) ",p=" base64
//   saslname     = 1*(%x01-2B / %x2D-3C / %x3E-7F / "=2C" / "=3D")
//   nonce        = 1*(%x21-2B / %x2D-7E)             ; printable, no ','
//   ext          = 1*ALPHA "=" 1*(%x01-2B / %x2D-7F)
//
// The reserved "m=" attribute (Kafka silently drops it) is refused, as RFC 5802 says.
// Of the extensions only `tokenauth` has a meaning (Kafka's delegation tokens); the
// others are ignored, as Kafka ignores them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace strata::security {

// Bound on either client message; longer ones are refused before any parsing.
inline constexpr size_t kScramMessageBytesMax = 4096;

struct ScramClientFirst {
  std::string gs2_header;  // "n,," or "n,a=<saslname>," exactly as received
  std::string authzid;     // unescaped; empty when absent
  std::string username;    // unescaped
  std::string nonce;       // the client's nonce
  std::string bare;        // client-first-message-bare exactly as received
  bool token_auth =
      false;  // the extension tokenauth=true (case-insensitive, as Java's parseBoolean)
};

struct ScramClientFinal {
  std::string channel_binding;  // c=, decoded
  std::string nonce;            // r=
  std::string proof;            // p=, decoded
  std::string without_proof;    // client-final-message-without-proof exactly as received
};

// Errors are texts for the broker's log; clients are told less (see scram.h).
Result<ScramClientFirst, std::string> parse_scram_client_first(std::string_view message);
Result<ScramClientFinal, std::string> parse_scram_client_final(std::string_view message);

// saslname escaping (RFC 5802 §5.1): ',' <-> "=2C", '=' <-> "=3D". unescape fails on
// any other '=' sequence.
std::string scram_escape_name(std::string_view name);
std::optional<std::string> scram_unescape_name(std::string_view saslname);

}  // namespace strata::security
