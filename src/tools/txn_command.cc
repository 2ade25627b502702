#include "tools/txn_command.h"

#include <CLI/CLI.hpp>
#include <ostream>

#include "tools/cli.h"
#include "tools/txn_admin.h"

namespace strata::tools {

namespace {

using Action = TxnArgs::Action;

void add_list(CLI::App& txn, TxnArgs& args) {
  CLI::App* cmd = add_client_action(txn, args, Action::kList, "list",
                                    "List transactions, as every broker's coordinator knows them");
  cmd->add_option("--state", args.states,
                  "Only transactions in these states (Ongoing, PrepareCommit, CompleteAbort, ...)")
      ->delimiter(',');
  cmd->add_option("--producer-id", args.producer_ids, "Only transactions of these producer ids")
      ->delimiter(',');
  cmd->add_option("--duration-filter", args.duration_filter_ms,
                  "Only transactions running longer than this many ms (< 0: all)");
}

void add_describe(CLI::App& txn, TxnArgs& args) {
  CLI::App* cmd = add_client_action(txn, args, Action::kDescribe, "describe",
                                    "Describe the state of an active transactional-id");
  cmd->add_option("--transactional-id", args.transactional_id, "Transactional id")->required();
}

void add_describe_producers(CLI::App& txn, TxnArgs& args) {
  CLI::App* cmd =
      add_client_action(txn, args, Action::kDescribeProducers, "describe-producers",
                        "Describe the states of active producers for a topic partition");
  cmd->add_option("--topic", args.topic, "Topic name")->required();
  cmd->add_option("--partition", args.partition, "Partition number")->required();
  cmd->add_option("--broker-id", args.broker_id,
                  "Ask this replica instead of the partition's leader");
}

void add_find_hanging(CLI::App& txn, TxnArgs& args) {
  CLI::App* cmd =
      add_client_action(txn, args, Action::kFindHanging, "find-hanging",
                        "Find hanging transactions (open on a partition, unknown to the "
                        "coordinator's transaction)");
  cmd->add_option("--broker-id", args.broker_id, "Search the partitions this broker hosts");
  cmd->add_option("--topic", args.topic, "Search this topic (required with --partition)");
  cmd->add_option("--partition", args.partition, "Search this partition only");
  cmd->add_option("--max-transaction-timeout", args.max_transaction_timeout_min,
                  "Largest transaction timeout in minutes: only transactions open longer count "
                  "(default 15)")
      ->check(CLI::NonNegativeNumber);
}

void add_abort(CLI::App& txn, TxnArgs& args) {
  CLI::App* cmd = add_client_action(txn, args, Action::kAbort, "abort",
                                    "Abort a hanging transaction (writes an ABORT marker to the "
                                    "partition)");
  cmd->add_option("--topic", args.topic, "Topic name")->required();
  cmd->add_option("--partition", args.partition, "Partition number")->required();
  cmd->add_option("--start-offset", args.start_offset,
                  "Start offset of the transaction to abort (brokers on Kafka 3.0 or later)");
  cmd->add_option("--producer-id", args.producer_id, "Producer id (brokers before Kafka 3.0)");
  cmd->add_option("--producer-epoch", args.producer_epoch,
                  "Producer epoch (brokers before Kafka 3.0)");
  cmd->add_option("--coordinator-epoch", args.coordinator_epoch,
                  "Coordinator epoch (brokers before Kafka 3.0)");
}

Status run(const TxnArgs& args, std::ostream& out) {
  if (args.action == Action::kNone) return fail(CommandError{"a txn subcommand is required"});
  auto admin = TxnAdmin::connect(args);
  if (!admin) return fail(admin.error());
  switch (args.action) {
    case Action::kList:
      return list_txns(*admin, out);
    case Action::kDescribe:
      return describe_txn(*admin, out);
    case Action::kDescribeProducers:
      return describe_producers(*admin, out);
    case Action::kFindHanging:
      return find_hanging(*admin, out);
    case Action::kAbort:
      return abort_txn(*admin);
    case Action::kNone:
      break;
  }
  return fail(CommandError{"a txn subcommand is required"});
}

}  // namespace

void add_txn_command(CLI::App& app, TxnArgs& args) {
  CLI::App* txn = app.add_subcommand(
      "txn",
      "List and describe transactions, describe producers, find and abort hanging "
      "transactions on any Kafka-protocol broker (kafka-transactions.sh)");
  txn->require_subcommand(1);
  add_list(*txn, args);
  add_describe(*txn, args);
  add_describe_producers(*txn, args);
  add_find_hanging(*txn, args);
  add_abort(*txn, args);
}

int run_txn(const TxnArgs& args, std::ostream& out, std::ostream& err) {
  const Status r = run(args, out);
  out.flush();
  if (r) return 0;
  err << r.error().message << "\n";
  return 1;
}

}  // namespace strata::tools
