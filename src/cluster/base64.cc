#include "cluster/base64.h"

#include <openssl/evp.h>

namespace strata::cluster {

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()),
                                int(bytes.size()));
  out.resize(size_t(n));
  return out;
}

Result<std::string, std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return fail(std::string("base64 text of a length not a multiple of 4"));
  if (text.size() > size_t(1) << 30) return fail(std::string("base64 text too long"));
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()),
                                int(text.size()));
  if (n < 0) return fail(std::string("not base64 text"));
  // EVP_DecodeBlock counts the bytes the padding stands for as zeros.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') ++pad;
  if (text.size() >= 2 && text[text.size() - 2] == '=') ++pad;
  out.resize(size_t(n) - pad);
  return out;
}

}  // namespace strata::cluster
