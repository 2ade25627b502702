// strata: the single binary. Subcommands: broker, cluster, dump-log, leader-election,
// reassign-partitions, topic, group, txn, user, acl, produce, consume, perf.
#include <CLI/CLI.hpp>

#include <iostream>

#include "tools/broker_command.h"
#include "tools/cluster_command.h"
#include "tools/console_command.h"
#include "tools/dump_log.h"
#include "tools/group_command.h"
#include "tools/leader_election_command.h"
#include "tools/perf_command.h"
#include "tools/user_command.h"
#include "tools/acl_command.h"
#include "tools/reassign_command.h"
#include "tools/topic_command.h"
#include "tools/txn_command.h"

namespace {

void add_dump_log(CLI::App& app, strata::tools::DumpLogOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "dump-log", "Print log segments as Kafka's kafka-dump-log.sh does (plus --explain)");
  cmd->add_option("--files", o.files, "Comma-separated files to dump (.log, .index, .timeindex, .snapshot, .txnindex)")
      ->required()
      ->delimiter(',');
  cmd->add_flag("--print-data-log", o.print_data_log,
                "Print keys and payloads (implies --deep-iteration)");
  cmd->add_flag("--deep-iteration", o.deep_iteration, "Print every record, not just batches");
  cmd->add_flag("--offsets-decoder", o.offsets_decoder,
                "Decode keys and payloads as __consumer_offsets records, as Kafka's JSON "
                "(implies --print-data-log)");
  cmd->add_flag("--transaction-log-decoder", o.transaction_log_decoder,
                "Decode keys and payloads as __transaction_state records, as Kafka's JSON "
                "(implies --print-data-log)");
  cmd->add_flag("--explain", o.explain,
                "Print an annotated byte map of every batch: each field's position, hex bytes "
                "and value");
  cmd->add_option("--max-bytes", o.max_bytes, "Read at most this many bytes of each log file")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--verify-index-only", o.verify_index_only,
                "Check .index/.timeindex entries against the log without printing them");
  cmd->add_flag("--index-sanity-check", o.index_sanity_check,
                "Run only the broker's start-up sanity check on .index/.timeindex files");
  cmd->add_option("--max-message-size", o.max_message_size,
                  "Size of the largest message (bytes read at each .index entry)")
      ->check(CLI::NonNegativeNumber);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Strata: a Kafka-compatible streaming broker"};
  app.require_subcommand(1);
  strata::tools::DumpLogOptions dump;
  add_dump_log(app, dump);
  strata::tools::BrokerArgs broker;
  strata::tools::add_broker_command(app, broker);
  strata::tools::ClusterArgs cluster;
  strata::tools::add_cluster_command(app, cluster);
  strata::tools::LeaderElectionArgs election;
  strata::tools::add_leader_election_command(app, election);
  strata::tools::ReassignArgs reassign;
  strata::tools::add_reassign_command(app, reassign);
  strata::tools::TopicArgs topic;
  strata::tools::add_topic_command(app, topic);
  strata::tools::GroupArgs group;
  strata::tools::add_group_command(app, group);
  strata::tools::TxnArgs txn;
  strata::tools::add_txn_command(app, txn);
  strata::tools::UserArgs user;
  strata::tools::add_user_command(app, user);
  strata::tools::AclArgs acl;
  strata::tools::add_acl_command(app, acl);
  strata::tools::ProduceArgs produce;
  strata::tools::add_produce_command(app, produce);
  strata::tools::ConsumeArgs consume;
  strata::tools::add_consume_command(app, consume);
  strata::tools::PerfArgs perf;
  strata::tools::add_perf_command(app, perf);
  CLI11_PARSE(app, argc, argv);
  if (app.got_subcommand("perf")) return strata::tools::run_perf(perf, std::cout, std::cerr);
  if (app.got_subcommand("produce")) return strata::tools::run_produce(produce, std::cin, std::cerr);
  if (app.got_subcommand("consume")) return strata::tools::run_consume(consume, std::cout, std::cerr);
  if (app.got_subcommand("broker")) return strata::tools::run_broker(broker);
  if (app.got_subcommand("cluster")) return strata::tools::run_cluster(cluster, std::cout, std::cerr);
  if (app.got_subcommand("leader-election")) {
    return strata::tools::run_leader_election(election, std::cout, std::cerr);
  }
  if (app.got_subcommand("reassign-partitions")) {
    return strata::tools::run_reassign(reassign, std::cout, std::cerr);
  }
  if (app.got_subcommand("topic")) return strata::tools::run_topic(topic, std::cout, std::cerr);
  if (app.got_subcommand("group")) return strata::tools::run_group(group, std::cout, std::cerr);
  if (app.got_subcommand("txn")) return strata::tools::run_txn(txn, std::cout, std::cerr);
  if (app.got_subcommand("user")) return strata::tools::run_user(user, std::cout, std::cerr);
  if (app.got_subcommand("acl")) return strata::tools::run_acl(acl, std::cout, std::cerr);
  if (app.got_subcommand("dump-log")) {
    std::ios::sync_with_stdio(false);
    return strata::tools::run_dump_log(dump, std::cout, std::cerr);
  }
  return 0;
}
