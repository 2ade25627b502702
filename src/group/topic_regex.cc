#include "group/topic_regex.h"

#include <re2/re2.h>

namespace strata::group {

namespace {

// Bounds the compiled program (RE2's default is 8 MiB); an expression needing more is
// refused as invalid.
constexpr int64_t kMaxRegexMemory = 1 << 20;

RE2::Options options() {
  RE2::Options o;
  o.set_log_errors(false);
  o.set_max_mem(kMaxRegexMemory);
  return o;
}

bool is_internal(const std::string& topic) {
  return topic == "__consumer_offsets" || topic == "__transaction_state" || topic == "__share_group_state";
}

}  // namespace

Result<void, std::string> check_regex(const std::string& regex) {
  RE2 re(regex, options());
  if (!re.ok()) {
    return fail("SubscribedTopicRegex `" + regex + "` is not a valid regular expression: " + re.error() + ".");
  }
  return {};
}

std::set<std::string> resolve_regex(const std::string& regex, const TopicView& topics) {
  std::set<std::string> out;
  RE2 re(regex, options());
  if (!re.ok()) return out;
  topics.each([&](const TopicInfo& t) {
    if (!is_internal(t.name) && RE2::FullMatch(t.name, re)) out.insert(t.name);
  });
  return out;
}

}  // namespace strata::group
