#include "broker/tls_context.h"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>

#include "security/tls_stores.h"

namespace strata::broker {

using security::read_text_file;

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
  auto range = security::tls_protocol_range(v("ssl.enabled.protocols", "TLSv1.2,TLSv1.3"));
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
    auto text = read_text_file(*location);
    if (!text) return fail("ssl.keystore.location: " + text.error());
    chain = key = *text;
  }
  if (chain.empty() || key.empty()) {
    return fail(std::string("no key store (ssl.keystore.location, or ssl.keystore.certificate.chain and ssl.keystore.key)"));
  }
  const std::string password = v("ssl.key.password", v("ssl.keystore.password"));
  if (auto r = security::use_pem_key_store(native, chain, key, password); !r) return fail(r.error());
  std::string trust = v("ssl.truststore.certificates");
  if (auto location = config_.value(listener_, "ssl.truststore.location")) {
    auto text = read_text_file(*location);
    if (!text) return fail("ssl.truststore.location: " + text.error());
    trust = *text;
  }
  if (!trust.empty()) {
    if (auto r = security::use_pem_trust_store(native, trust); !r) return fail(r.error());
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
