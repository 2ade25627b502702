#include "security/tls_stores.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace strata::security {

std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

Result<std::string, std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Result<std::pair<int, int>, std::string> tls_protocol_range(const std::string& text) {
  int lo = 0, hi = 0;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t end = std::min(text.find(',', at), text.size());
    std::string p = text.substr(at, end - at);
    at = end + 1;
    p.erase(0, p.find_first_not_of(' '));
    p.erase(p.find_last_not_of(' ') + 1);
    if (p.empty()) continue;
    int v = 0;
    if (p == "TLSv1.2") v = TLS1_2_VERSION;
    else if (p == "TLSv1.3") v = TLS1_3_VERSION;
    else return fail("ssl.enabled.protocols: " + p + " is not supported (TLSv1.2, TLSv1.3)");
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo == 0) return fail(std::string("ssl.enabled.protocols: none given"));
  return std::pair{lo, hi};
}

Result<void, std::string> use_pem_key_store(SSL_CTX* ctx, const std::string& chain_pem,
                                            const std::string& key_pem, const std::string& password) {
  BIO* bio = BIO_new_mem_buf(chain_pem.data(), int(chain_pem.size()));
  X509* leaf = PEM_read_bio_X509_AUX(bio, nullptr, nullptr, nullptr);
  if (leaf == nullptr) {
    BIO_free(bio);
    return fail("no certificate in the key store: " + openssl_error());
  }
  const int used = SSL_CTX_use_certificate(ctx, leaf);
  X509_free(leaf);
  if (used != 1) {
    BIO_free(bio);
    return fail("certificate: " + openssl_error());
  }
  SSL_CTX_clear_chain_certs(ctx);
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add0_chain_cert(ctx, ca) != 1) {
      X509_free(ca);
      BIO_free(bio);
      return fail("certificate chain: " + openssl_error());
    }
  }
  ERR_clear_error();  // the loop ends on "no start line"
  BIO_free(bio);
  bio = BIO_new_mem_buf(key_pem.data(), int(key_pem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr,
                                          password.empty() ? nullptr : const_cast<char*>(password.c_str()));
  BIO_free(bio);
  if (key == nullptr) return fail("private key (ssl.key.password?): " + openssl_error());
  const int ok = SSL_CTX_use_PrivateKey(ctx, key);
  EVP_PKEY_free(key);
  if (ok != 1 || SSL_CTX_check_private_key(ctx) != 1) {
    return fail("the private key does not match the certificate: " + openssl_error());
  }
  return {};
}

Result<void, std::string> use_pem_trust_store(SSL_CTX* ctx, const std::string& pem) {
  X509_STORE* store = SSL_CTX_get_cert_store(ctx);
  BIO* bio = BIO_new_mem_buf(pem.data(), int(pem.size()));
  STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
  int count = 0;
  while (X509* ca = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
    X509_STORE_add_cert(store, ca);
    sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(ca)));
    X509_free(ca);
    ++count;
  }
  ERR_clear_error();
  BIO_free(bio);
  SSL_CTX_set_client_CA_list(ctx, names);  // takes ownership
  if (count == 0) return fail(std::string("no certificate in the trust store"));
  return {};
}

}  // namespace strata::security
