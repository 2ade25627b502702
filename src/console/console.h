// The web console (issue 18): a page and its JSON API (docs/formats/console-api.md) on
// the broker's admin listener. The API reads the cluster as a Kafka client
// (cluster_reader.h), so it shows every broker's partitions and what any client would
// see; the page (web/, compiled into the binary) is the project's own plain JavaScript.
//
// Handlers run on the admin listener's worker threads: each opens its own connections,
// bounded by the target's timeouts, and closes them when it answers.
#pragma once

#include <string>

#include "client/kafka_client.h"

namespace httplib {
class Server;
}

namespace strata::console {

struct ConsoleTarget {
  std::string bootstrap;  // "host:port" of a broker of the cluster
  client::ConnectOptions options;
};

struct ConsoleSettings {
  bool read_only = true;  // strata.console.read.only: POST and DELETE answer 403
  // The admin listener's host as configured (metrics.listener): with IP addresses and
  // localhost, the names a request's Host may carry (any other is refused: DNS rebinding).
  std::string listener_host;
};

// Adds `/` (the page, its script and style) and `/api/...` to `server`.
void install_console(httplib::Server& server, ConsoleTarget target, ConsoleSettings settings);

}  // namespace strata::console
