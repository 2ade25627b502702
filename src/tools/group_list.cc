// `strata group list [--state [S,...]]`: kafka-consumer-groups.sh --list. Without
// --state one group id a line; with it a GROUP / STATE table padded as Kafka pads it
// (trailing spaces included), optionally filtered by state.
#include <algorithm>
#include <ostream>

#include "common/ascii.h"
#include "protocol/apis/list_groups.h"
#include "tools/group_admin.h"

namespace strata::tools {

using namespace protocol;

namespace {

constexpr const char* kClientId = "strata-group";
// Kafka's ConsumerGroupState names other than "Unknown", in its order.
constexpr const char* kStates[] = {
    "PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty",
    "Assigning",          "Reconciling"};

// "stable, empty" -> {"Stable", "Empty"}; names match without regard to case.
Result<std::vector<std::string>, CommandError> parse_states(const std::string& text) {
  std::vector<std::string> states;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t comma = std::min(text.find(',', at), text.size());
    const std::string name = ascii_upper(trim_blanks(text.substr(at, comma - at)));
    const auto known = std::find_if(std::begin(kStates), std::end(kStates),
                                    [&](const char* s) { return ascii_upper(s) == name; });
    if (known == std::end(kStates)) {
      std::string valid;
      for (const char* s : kStates) valid += (valid.empty() ? "" : ", ") + std::string(s);
      return fail(CommandError{"Invalid state list '" + text + "'. Valid states are: " + valid});
    }
    states.emplace_back(*known);
    at = comma + 1;
  }
  return states;
}

struct Listing {
  std::string id;
  std::string state;
};

// ListGroups on every broker of the cluster; consumer groups only (protocol type
// "consumer", or empty for groups that only commit offsets), as Kafka's admin client.
Result<std::vector<Listing>, CommandError> list_all(GroupAdmin& admin,
                                                    const std::vector<std::string>& states) {
  auto metadata = admin.metadata();
  if (!metadata) return fail(metadata.error());
  std::vector<Listing> listed;
  for (const auto& broker : (*metadata)->brokers) {
    auto client = KafkaClient::connect({broker.host, uint16_t(broker.port)}, admin.bootstrap().options());
    if (!client) return fail(client_error(client.error()));
    const std::optional<int16_t> v = client->version<ListGroupsRequest>();
    if (v && *v < 4 && !states.empty()) {
      return fail(CommandError{"The broker only supports ListGroups v" + std::to_string(*v) +
                               ", but we need v4 or newer to request groups by states."});
    }
    ListGroupsRequest request;
    request.states_filter = states;
    auto r = client->call<ListGroupsResponse>(request);
    if (!r) return fail(client_error(r.error()));
    if (r->error_code != 0) return fail(kafka_error(r->error_code));
    for (const auto& g : r->groups) {
      if (!g.protocol_type.empty() && g.protocol_type != "consumer") continue;
      listed.push_back({g.group_id, *v >= 4 ? g.group_state : "Unknown"});
    }
  }
  std::sort(listed.begin(), listed.end(), [](auto& a, auto& b) { return a.id < b.id; });
  return listed;
}

}  // namespace

Result<std::vector<std::string>, CommandError> consumer_group_ids(GroupAdmin& admin) {
  auto listed = list_all(admin, {});
  if (!listed) return fail(listed.error());
  std::vector<std::string> ids;
  for (const Listing& l : *listed) ids.push_back(l.id);
  return ids;
}

Status list_groups(GroupAdmin& admin, std::ostream& out) {
  const GroupArgs& args = admin.args();
  std::vector<std::string> states;
  if (!args.list_states.empty()) {
    auto parsed = parse_states(args.list_states);
    if (!parsed) return fail(parsed.error());
    states = std::move(*parsed);
  }
  auto listed = list_all(admin, states);
  if (!listed) return fail(listed.error());
  if (!args.list_state) {
    for (const Listing& l : *listed) out << l.id << "\n";
    return {};
  }
  size_t width = 15;
  for (const Listing& l : *listed) width = std::max(width, l.id.size());
  width += 10;
  out << pad("GROUP", width) << " " << pad("STATE", 20) << "\n";
  for (const Listing& l : *listed) out << pad(l.id, width) << " " << pad(l.state, 20) << "\n";
  return {};
}

}  // namespace strata::tools
