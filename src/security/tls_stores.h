// PEM key and trust stores into an OpenSSL context, shared by the broker's TLS listeners
// (broker/tls_context.h) and Strata's clients (client/security.h): Kafka's
// ssl.keystore.type=PEM and ssl.truststore.type=PEM (KIP-651), in their file or inline
// forms. Only PEM text in, no file access: the callers read the files they watch.
#pragma once

#include <openssl/types.h>

#include <string>
#include <utility>

#include "common/result.h"

namespace strata::security {

// The oldest error on OpenSSL's thread-local queue as text, and the queue cleared.
std::string openssl_error();

// ssl.enabled.protocols ("TLSv1.2,TLSv1.3"): the lowest and highest version named, as
// OpenSSL's TLS1_2_VERSION / TLS1_3_VERSION. Other versions are refused.
Result<std::pair<int, int>, std::string> tls_protocol_range(const std::string& text);

// Installs a private key and its certificate chain (leaf first; the key may be in the
// same text as the chain) as the context's own identity. `password` decrypts the key
// when it is encrypted (ssl.key.password).
Result<void, std::string> use_pem_key_store(SSL_CTX* ctx, const std::string& chain_pem,
                                            const std::string& key_pem, const std::string& password);

// Adds every certificate in `pem` to the context's trust store (and, for a server, to
// the CA names it sends when asking for a client certificate). Fails when there is none.
Result<void, std::string> use_pem_trust_store(SSL_CTX* ctx, const std::string& pem);

// Reads a whole file (a store) as text.
Result<std::string, std::string> read_text_file(const std::string& path);

}  // namespace strata::security
