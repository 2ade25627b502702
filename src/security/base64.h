// Standard base64 (RFC 4648 §4, with padding), as SCRAM messages and Kafka's stored
// credential text carry bytes. The decoder is strict, because its input comes from
// unauthenticated clients: alphabet A-Z a-z 0-9 + / only, length a multiple of 4,
// '=' only as the last one or two characters, no whitespace. The empty text is valid.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace strata::security {

std::string base64_encode(std::string_view bytes);
// nullopt on anything that is not strict base64 (see above).
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace strata::security
