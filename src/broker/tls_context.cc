#include "broker/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

namespace strata::broker {
namespace {

std::string openssl_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

Result<std::string, std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// ssl.enabled.protocols: the lowest and highest of the versions named.
Result<std::pair<int, int>, std::string> protocol_range(const std::string& text) {
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

// Loads PEM text holding a private key and its certificate chain (either may be in a
// separate text) into the context.
Result<void, std::string> use_key_store(SSL_CTX* ctx, const std::string& chain_pem,
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

Result<void, std::string> use_trust_store(SSL_CTX* ctx, const std::string& pem) {
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

}  // namespace

TlsContextSource::TlsContextSource(const SecurityConfig& config, std::string listener)
    : config_(config), listener_(std::move(listener)) {
  for (const char* key : {"ssl.keystore.location", "ssl.truststore.location"}) {
    if (auto v = config_.value(listener_, key)) files_.push_back(*v);
  }
}

Result<std::shared_ptr<TlsContextSource>, std::string> TlsContextSource::create(
    const SecurityConfig& config, const std::string& listener) {
  std::shared_ptr<TlsContextSource> s(new TlsContextSource(config, listener));
  auto ctx = s->build();
  if (!ctx) return fail("listener " + listener + ": " + ctx.error());
  s->context_ = std::move(*ctx);
  s->stamps_ = s->stamps();
  s->next_check_ = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  return s;
}

Result<std::shared_ptr<asio::ssl::context>, std::string> TlsContextSource::build() const {
  auto v = [&](const char* key, const std::string& fallback = "") {
    return config_.value_or(listener_, key, fallback);
  };
  for (const char* key : {"ssl.keystore.type", "ssl.truststore.type"}) {
    const std::string type = v(key, "PEM");
    if (type != "PEM") return fail(std::string(key) + "=" + type + ": Strata reads PEM stores only");
  }
  auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  auto range = protocol_range(v("ssl.enabled.protocols", "TLSv1.2,TLSv1.3"));
  if (!range) return fail(range.error());
  SSL_CTX_set_min_proto_version(native, range->first);
  SSL_CTX_set_max_proto_version(native, range->second);
  if (auto suites = config_.value(listener_, "ssl.cipher.suites"); suites && !suites->empty()) {
    if (SSL_CTX_set_cipher_list(native, suites->c_str()) != 1) {
      return fail("ssl.cipher.suites: none usable: " + *suites);
    }
  }
  // The key store: a file with key and chain, or both inline.
  std::string chain = v("ssl.keystore.certificate.chain");
  std::string key = v("ssl.keystore.key");
  if (auto location = config_.value(listener_, "ssl.keystore.location")) {
    auto text = read_file(*location);
    if (!text) return fail("ssl.keystore.location: " + text.error());
    chain = key = *text;
  }
  if (chain.empty() || key.empty()) {
    return fail(std::string("no key store (ssl.keystore.location, or ssl.keystore.certificate.chain and ssl.keystore.key)"));
  }
  const std::string password = v("ssl.key.password", v("ssl.keystore.password"));
  if (auto r = use_key_store(native, chain, key, password); !r) return fail(r.error());
  std::string trust = v("ssl.truststore.certificates");
  if (auto location = config_.value(listener_, "ssl.truststore.location")) {
    auto text = read_file(*location);
    if (!text) return fail("ssl.truststore.location: " + text.error());
    trust = *text;
  }
  if (!trust.empty()) {
    if (auto r = use_trust_store(native, trust); !r) return fail(r.error());
  }
  const std::string auth = v("ssl.client.auth", "none");
  int mode = SSL_VERIFY_NONE;
  if (auth == "required") mode = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
  else if (auth == "requested") mode = SSL_VERIFY_PEER;
  else if (auth != "none") return fail("ssl.client.auth: expected none, requested or required: " + auth);
  if (mode != SSL_VERIFY_NONE && trust.empty()) {
    return fail("ssl.client.auth=" + auth + " needs a trust store (ssl.truststore.location)");
  }
  SSL_CTX_set_verify(native, mode, nullptr);
  // OpenSSL requires a session id context for session resumption when client
  // certificates are verified; any fixed value scoped to the broker will do.
  static const unsigned char kSessionId[] = "strata";
  SSL_CTX_set_session_id_context(native, kSessionId, sizeof(kSessionId) - 1);
  return ctx;
}

std::vector<std::timespec> TlsContextSource::stamps() const {
  std::vector<std::timespec> out;
  for (const std::string& f : files_) {
    struct stat st {};
    out.push_back(::stat(f.c_str(), &st) == 0 ? st.st_mtim : std::timespec{});
  }
  return out;
}

std::shared_ptr<asio::ssl::context> TlsContextSource::current() {
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now < next_check_) return context_;
  next_check_ = now + std::chrono::seconds(1);
  auto fresh = stamps();
  const bool same = std::equal(fresh.begin(), fresh.end(), stamps_.begin(), stamps_.end(),
                               [](const std::timespec& a, const std::timespec& b) {
                                 return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec;
                               });
  if (same) return context_;
  stamps_ = fresh;
  auto ctx = build();
  if (!ctx) {
    spdlog::warn("listener {}: TLS files changed but cannot be loaded, keeping the old ones: {}",
                 listener_, ctx.error());
    return context_;
  }
  context_ = std::move(*ctx);
  ++reloads_;
  spdlog::info("listener {}: TLS key and trust stores reloaded", listener_);
  return context_;
}

size_t TlsContextSource::reloads() const {
  std::lock_guard lock(mu_);
  return reloads_;
}

}  // namespace strata::broker
