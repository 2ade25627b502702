// Regular-expression subscriptions of consumer-protocol groups (KIP-848), evaluated on
// the broker as Kafka does: RE2 syntax (Kafka uses RE2/J), matched against the whole
// topic name. RE2 runs in time linear in the name and bounded memory, so a member's
// expression cannot make the coordinator spin. Kafka's internal topics never match.
#pragma once

#include <set>
#include <string>

#include "common/result.h"
#include "group/consumer_api.h"

namespace strata::group {

// Kafka's INVALID_REGULAR_EXPRESSION message when `regex` does not compile.
Result<void, std::string> check_regex(const std::string& regex);
// The topics `regex` matches in full (the expression must compile).
std::set<std::string> resolve_regex(const std::string& regex, const TopicView& topics);

}  // namespace strata::group
