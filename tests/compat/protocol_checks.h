// What the protocol-level test programs (txn_protocol, fetch_sessions) share: requests
// pinned to one version, "ok"/"FAIL" check lines, and calls that must be answered.
// Each program prints one line per check and exits 1 if any failed (exit_status()).
#pragma once

#include <cstdlib>
#include <iostream>
#include <string>

#include "client/kafka_client.h"

namespace strata::compat {

// KafkaClient sends the highest version both sides speak. This request type declares
// only version V, so KafkaClient sends exactly V (or answers kUnsupported when the
// broker lacks it).
template <class Req, int16_t V>
struct At : Req {
  static constexpr protocol::Versions kVersions{V, V};
};

inline int& failures() {
  static int n = 0;
  return n;
}

inline bool check(bool ok, const std::string& what) {
  std::cout << (ok ? "ok   " : "FAIL ") << what << std::endl;
  if (!ok) ++failures();
  return ok;
}

[[noreturn]] inline void die(const std::string& what) {
  std::cout << "FAIL " << what << std::endl;
  std::exit(1);
}

// A call that must get an answer: a network or parse failure ends the run.
template <class Resp, class Req>
Resp must(client::KafkaClient& c, Req& request) {
  auto r = c.call<Resp>(request);
  if (!r) die(client::api_name(Req::kApiKey) + ": " + r.error().message);
  return std::move(*r);
}

// Prints the program's verdict line; the exit status.
inline int exit_status(const std::string& program) {
  std::cout << (failures() == 0 ? program + ": all checks passed"
                                : program + ": failures: " + std::to_string(failures()))
            << std::endl;
  return failures() == 0 ? 0 : 1;
}

}  // namespace strata::compat
