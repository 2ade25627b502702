// Standard base64 (RFC 4648 §4, with padding), as etcd's JSON gateway writes bytes
// fields. OpenSSL's EVP_EncodeBlock/EVP_DecodeBlock do the work.
#pragma once

#include <string>
#include <string_view>

#include "common/result.h"

namespace strata::cluster {

std::string base64_encode(std::string_view bytes);
// Fails on characters outside the alphabet or a length that is not a multiple of 4.
Result<std::string, std::string> base64_decode(std::string_view text);

}  // namespace strata::cluster
