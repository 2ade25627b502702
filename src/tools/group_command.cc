#include "tools/group_command.h"

#include <CLI/CLI.hpp>
#include <ostream>

#include "tools/cli.h"
#include "tools/group_admin.h"

namespace strata::tools {

namespace {

using Action = GroupArgs::Action;

void add_list(CLI::App& group, GroupArgs& args) {
  CLI::App* cmd = add_client_action(group, args, Action::kList, "list",
                                    "List consumer groups (kafka-consumer-groups.sh --list)");
  CLI::Option* state =
      cmd->add_option("--state", args.list_states,
                      "Add a STATE column; with S[,S...] list only groups in those states")
          ->expected(0, 1);
  cmd->callback([&args, state] {
    args.action = Action::kList;
    args.list_state = state->count() > 0;
  });
}

void add_describe(CLI::App& group, GroupArgs& args) {
  CLI::App* cmd = add_client_action(group, args, Action::kDescribe, "describe",
                                    "Offsets and lag (default), --members or --state of groups");
  cmd->add_option("groups", args.groups, "Group ids");
  cmd->add_flag("--all-groups", args.all_groups, "Every consumer group");
  cmd->add_flag("--state", args.state_view,
                "GROUP COORDINATOR (ID) ASSIGNMENT-STRATEGY STATE #MEMBERS");
  cmd->add_flag("--members", args.members_view,
                "GROUP CONSUMER-ID HOST CLIENT-ID #PARTITIONS, one row per member");
  cmd->add_flag("--verbose", args.verbose,
                "With --state: GROUP-EPOCH and TARGET-ASSIGNMENT-EPOCH; with --members: the assignment, "
                "and for a consumer-protocol group (KIP-848) CURRENT-EPOCH, TARGET-EPOCH and TARGET-ASSIGNMENT");
}

void add_reset_offsets(CLI::App& group, GroupArgs& args) {
  CLI::App* cmd =
      add_client_action(group, args, Action::kResetOffsets, "reset-offsets",
                        "Plan (dry run, the default) or --execute new committed offsets "
                        "of inactive groups");
  cmd->add_option("groups", args.groups, "Group ids")->required();
  cmd->add_option("--topic", args.topics, "T (all partitions) or T:p,p (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("--all-topics", args.all_topics, "Every partition the group has committed");
  cmd->add_flag("--to-earliest", args.to_earliest, "The log start offset");
  cmd->add_flag("--to-latest", args.to_latest, "The log end offset");
  cmd->add_option("--to-offset", args.to_offset, "This offset (clamped to the log)");
  cmd->add_option("--to-datetime", args.to_datetime,
                  "The first offset at or after YYYY-MM-DDTHH:mm:SS.sss (UTC unless a zone "
                  "follows: Z, +HH, +HHMM, +HH:MM)");
  cmd->add_option("--shift-by", args.shift_by,
                  "The committed offset plus N (N may be negative; clamped to the log)");
  cmd->add_flag("--dry-run", args.dry_run, "Only print the new offsets (the default)");
  cmd->add_flag("--execute", args.execute, "Commit the new offsets");
}

void add_delete(CLI::App& group, GroupArgs& args) {
  CLI::App* cmd = add_client_action(group, args, Action::kDelete, "delete",
                                    "Delete groups without members, and their offsets");
  cmd->add_option("groups", args.groups, "Group ids");
  cmd->add_flag("--all-groups", args.all_groups, "Every consumer group");
}

Status run(const GroupArgs& args, std::ostream& out, std::ostream& err) {
  if (args.action == Action::kDescribe && args.groups.empty() && !args.all_groups) {
    return fail(CommandError{"describe needs group ids or --all-groups"});
  }
  auto admin = GroupAdmin::connect(args);
  if (!admin) return fail(admin.error());
  switch (args.action) {
    case Action::kList:
      return list_groups(*admin, out);
    case Action::kDescribe:
      return describe_groups(*admin, out, err);
    case Action::kResetOffsets:
      return reset_offsets(*admin, out, err);
    case Action::kDelete:
      return delete_groups(*admin, out, err);
    case Action::kNone:
      break;
  }
  return fail(CommandError{"a group subcommand is required"});
}

}  // namespace

void add_group_command(CLI::App& app, GroupArgs& args) {
  CLI::App* group = app.add_subcommand(
      "group",
      "List, describe, reset the offsets of and delete consumer groups on any Kafka-protocol "
      "broker (kafka-consumer-groups.sh)");
  group->require_subcommand(1);
  add_list(*group, args);
  add_describe(*group, args);
  add_reset_offsets(*group, args);
  add_delete(*group, args);
}

int run_group(const GroupArgs& args, std::ostream& out, std::ostream& err) {
  const Status r = run(args, out, err);
  out.flush();
  if (r) return 0;
  // Subcommands that report each group themselves fail with an empty message.
  if (!r.error().message.empty()) err << "Error: " << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools
