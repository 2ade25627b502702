// `strata group delete G... | --all-groups`: kafka-consumer-groups.sh --delete
// (DeleteGroups to each group's coordinator). When every group is deleted, stdout has
//   Deletion of requested consumer groups ('a', 'b') was successful.
// (Kafka quotes the joined list once, ('a, b'); each id is quoted here). Otherwise
// stderr has "Error: Deletion of some consumer groups failed:" and one line per failed
// group, stdout names the groups that were deleted, and the exit code is 1.
#include <algorithm>
#include <ostream>

#include "tools/group_admin.h"

namespace strata::tools {

namespace {

// The errors DeleteGroups answers whose text Kafka's tool shows: the exception's (Kafka's
// default) message.
constexpr int16_t kDeleteErrors[] = {
    kafka_error::kCoordinatorNotAvailable,  kafka_error::kInvalidGroupId,
    kafka_error::kGroupAuthorizationFailed, kafka_error::kNonEmptyGroup,
    kafka_error::kGroupIdNotFound,
};

std::string delete_error(int16_t code) {
  for (const int16_t known : kDeleteErrors) {
    if (known == code) {
      return kafka_error(code, std::string(kafka_error_info(code)->message)).message;
    }
  }
  return kafka_error(code).message;
}

std::string quoted_list(const std::vector<std::string>& ids) {
  std::string s;
  for (const std::string& id : ids) s += (s.empty() ? "'" : ", '") + id + "'";
  return s;
}

}  // namespace

Status delete_groups(GroupAdmin& admin, std::ostream& out, std::ostream& err) {
  const GroupArgs& args = admin.args();
  std::vector<std::string> groups = args.groups;
  if (args.all_groups) {
    auto all = consumer_group_ids(admin);
    if (!all) return fail(all.error());
    groups = std::move(*all);
  }
  if (groups.empty()) return fail(CommandError{"delete needs group ids or --all-groups"});
  std::sort(groups.begin(), groups.end());
  groups.erase(std::unique(groups.begin(), groups.end()), groups.end());
  std::vector<std::string> deleted;
  std::vector<std::pair<std::string, std::string>> failed;  // group, reason
  for (const std::string& group : groups) {
    auto code = admin.remove(group);
    if (!code) {
      failed.emplace_back(group, code.error().message);
    } else if (*code != 0) {
      failed.emplace_back(group, delete_error(*code));
    } else {
      deleted.push_back(group);
    }
  }
  if (failed.empty()) {
    out << "Deletion of requested consumer groups (" << quoted_list(deleted)
        << ") was successful.\n";
    return {};
  }
  err << "Error: Deletion of some consumer groups failed:\n";
  for (const auto& [group, reason] : failed) {
    err << "* Group '" << group << "' could not be deleted due to: " << reason << "\n";
  }
  if (!deleted.empty()) {
    out << "These consumer groups were deleted successfully: " << quoted_list(deleted) << "\n";
  }
  return fail(CommandError{});
}

}  // namespace strata::tools
