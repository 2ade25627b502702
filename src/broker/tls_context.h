// A TLS listener's server context, built from its ssl.* settings in PEM form
// (ssl.keystore.type=PEM, as Kafka supports since KIP-651), and rebuilt when its files
// change: certificate reload without a restart. New connections take the context of the
// moment; open connections keep theirs.
#pragma once

#include <asio/ssl.hpp>

#include <chrono>
#include <ctime>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "broker/security_config.h"
#include "common/result.h"

namespace strata::broker {

class TlsContextSource {
 public:
  // Fails with a clear message when the settings cannot make a context (no key store,
  // an unreadable file, a key that does not match its certificate, a bad protocol name).
  static Result<std::shared_ptr<TlsContextSource>, std::string> create(const SecurityConfig& config,
                                                                       const std::string& listener);

  // The current context. Checks the files' modification times at most once a second
  // (any thread); a changed file is loaded, and a load that fails keeps the old context
  // (with a warning) so a half-written certificate never stops the listener.
  std::shared_ptr<asio::ssl::context> current();
  size_t reloads() const;

 private:
  TlsContextSource(const SecurityConfig& config, std::string listener);
  Result<std::shared_ptr<asio::ssl::context>, std::string> build() const;
  std::vector<std::timespec> stamps() const;

  const SecurityConfig& config_;
  std::string listener_;
  std::vector<std::string> files_;  // watched for changes
  mutable std::mutex mu_;
  std::shared_ptr<asio::ssl::context> context_;
  std::vector<std::timespec> stamps_;
  std::chrono::steady_clock::time_point next_check_;
  size_t reloads_ = 0;
};

}  // namespace strata::broker
