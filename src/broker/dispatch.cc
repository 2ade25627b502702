#include "broker/dispatch.h"

#include "broker/handlers/handlers.h"
#include "broker/serve.h"

namespace strata::broker {

namespace {

template <class Req, class Resp, Handler<Req, Resp> handler>
ApiEntry entry(const char* name) {
  return ApiEntry{Req::kApiKey, name, Req::kVersions, Req::kFlexibleFrom,
                  &serve<Req, Resp, handler>};
}

}  // namespace

const std::vector<ApiEntry>& api_table() {
  static const std::vector<ApiEntry> table = {
#define STRATA_API(Api, fn) entry<protocol::Api##Request, protocol::Api##Response, fn>(#Api)
      STRATA_API(Produce, handle_produce),
      STRATA_API(Fetch, handle_fetch),
      STRATA_API(ListOffsets, handle_list_offsets),
      STRATA_API(Metadata, handle_metadata),
      STRATA_API(ApiVersions, handle_api_versions),
      STRATA_API(CreateTopics, handle_create_topics),
      STRATA_API(DeleteTopics, handle_delete_topics),
      STRATA_API(DeleteRecords, handle_delete_records),
      STRATA_API(ElectLeaders, handle_elect_leaders),
      STRATA_API(AlterPartitionReassignments, handle_alter_partition_reassignments),
      STRATA_API(ListPartitionReassignments, handle_list_partition_reassignments),
      STRATA_API(CreatePartitions, handle_create_partitions),
      STRATA_API(DescribeConfigs, handle_describe_configs),
      STRATA_API(AlterConfigs, handle_alter_configs),
      STRATA_API(IncrementalAlterConfigs, handle_incremental_alter_configs),
      STRATA_API(DescribeCluster, handle_describe_cluster),
      STRATA_API(DescribeLogDirs, handle_describe_log_dirs),
      STRATA_API(OffsetForLeaderEpoch, handle_offset_for_leader_epoch),
      STRATA_API(FindCoordinator, handle_find_coordinator),
      STRATA_API(InitProducerId, handle_init_producer_id),
      STRATA_API(JoinGroup, handle_join_group),
      STRATA_API(SyncGroup, handle_sync_group),
      STRATA_API(Heartbeat, handle_heartbeat),
      STRATA_API(LeaveGroup, handle_leave_group),
      STRATA_API(OffsetCommit, handle_offset_commit),
      STRATA_API(OffsetFetch, handle_offset_fetch),
      STRATA_API(OffsetDelete, handle_offset_delete),
      STRATA_API(ListGroups, handle_list_groups),
      STRATA_API(DescribeGroups, handle_describe_groups),
      STRATA_API(ConsumerGroupHeartbeat, handle_consumer_group_heartbeat),
      STRATA_API(ConsumerGroupDescribe, handle_consumer_group_describe),
      STRATA_API(DeleteGroups, handle_delete_groups),
      STRATA_API(AddPartitionsToTxn, handle_add_partitions_to_txn),
      STRATA_API(AddOffsetsToTxn, handle_add_offsets_to_txn),
      STRATA_API(EndTxn, handle_end_txn),
      STRATA_API(WriteTxnMarkers, handle_write_txn_markers),
      STRATA_API(TxnOffsetCommit, handle_txn_offset_commit),
      STRATA_API(DescribeProducers, handle_describe_producers),
      STRATA_API(DescribeTransactions, handle_describe_transactions),
      STRATA_API(ListTransactions, handle_list_transactions),
      STRATA_API(SaslHandshake, handle_sasl_handshake),
      STRATA_API(DescribeAcls, handle_describe_acls),
      STRATA_API(CreateAcls, handle_create_acls),
      STRATA_API(DeleteAcls, handle_delete_acls),
      STRATA_API(SaslAuthenticate, handle_sasl_authenticate),
      STRATA_API(DescribeUserScramCredentials, handle_describe_user_scram_credentials),
      STRATA_API(AlterUserScramCredentials, handle_alter_user_scram_credentials),
#undef STRATA_API
  };
  return table;
}

const ApiEntry* find_api(int16_t key) {
  for (const ApiEntry& e : api_table()) {
    if (e.key == key) return &e;
  }
  return nullptr;
}

}  // namespace strata::broker
