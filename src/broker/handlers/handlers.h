// One handler per API; each file states its Kafka error mapping beside its code.
#pragma once

#include "broker/broker.h"
#include "protocol/apis/add_offsets_to_txn.h"
#include "protocol/apis/add_partitions_to_txn.h"
#include "protocol/apis/alter_configs.h"
#include "protocol/apis/api_versions.h"
#include "protocol/apis/consumer_group_describe.h"
#include "protocol/apis/consumer_group_heartbeat.h"
#include "protocol/apis/create_partitions.h"
#include "protocol/apis/create_topics.h"
#include "protocol/apis/delete_groups.h"
#include "protocol/apis/delete_records.h"
#include "protocol/apis/delete_topics.h"
#include "protocol/apis/describe_cluster.h"
#include "protocol/apis/describe_configs.h"
#include "protocol/apis/describe_groups.h"
#include "protocol/apis/describe_log_dirs.h"
#include "protocol/apis/describe_producers.h"
#include "protocol/apis/describe_transactions.h"
#include "protocol/apis/elect_leaders.h"
#include "protocol/apis/alter_partition_reassignments.h"
#include "protocol/apis/list_partition_reassignments.h"
#include "protocol/apis/end_txn.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/heartbeat.h"
#include "protocol/apis/incremental_alter_configs.h"
#include "protocol/apis/init_producer_id.h"
#include "protocol/apis/join_group.h"
#include "protocol/apis/leave_group.h"
#include "protocol/apis/list_groups.h"
#include "protocol/apis/list_offsets.h"
#include "protocol/apis/list_transactions.h"
#include "protocol/apis/metadata.h"
#include "protocol/apis/offset_commit.h"
#include "protocol/apis/offset_delete.h"
#include "protocol/apis/offset_fetch.h"
#include "protocol/apis/offset_for_leader_epoch.h"
#include "protocol/apis/produce.h"
#include "protocol/apis/sasl_authenticate.h"
#include "protocol/apis/create_acls.h"
#include "protocol/apis/delete_acls.h"
#include "protocol/apis/describe_acls.h"
#include "protocol/apis/sasl_handshake.h"
#include "protocol/apis/alter_user_scram_credentials.h"
#include "protocol/apis/describe_user_scram_credentials.h"
#include "protocol/apis/sync_group.h"
#include "protocol/apis/txn_offset_commit.h"
#include "protocol/apis/write_txn_markers.h"

namespace strata::broker {

#define STRATA_HANDLER(fn, Api)                                                    \
  asio::awaitable<protocol::Api##Response> fn(Broker& broker, RequestContext& ctx, \
                                              protocol::Api##Request& request)

STRATA_HANDLER(handle_api_versions, ApiVersions);
STRATA_HANDLER(handle_metadata, Metadata);
STRATA_HANDLER(handle_produce, Produce);
STRATA_HANDLER(handle_fetch, Fetch);
STRATA_HANDLER(handle_list_offsets, ListOffsets);
STRATA_HANDLER(handle_create_topics, CreateTopics);
STRATA_HANDLER(handle_delete_topics, DeleteTopics);
STRATA_HANDLER(handle_delete_records, DeleteRecords);
STRATA_HANDLER(handle_elect_leaders, ElectLeaders);
STRATA_HANDLER(handle_alter_partition_reassignments, AlterPartitionReassignments);
STRATA_HANDLER(handle_list_partition_reassignments, ListPartitionReassignments);
STRATA_HANDLER(handle_create_partitions, CreatePartitions);
STRATA_HANDLER(handle_describe_configs, DescribeConfigs);
STRATA_HANDLER(handle_alter_configs, AlterConfigs);
STRATA_HANDLER(handle_incremental_alter_configs, IncrementalAlterConfigs);
STRATA_HANDLER(handle_describe_cluster, DescribeCluster);
STRATA_HANDLER(handle_describe_log_dirs, DescribeLogDirs);
STRATA_HANDLER(handle_offset_for_leader_epoch, OffsetForLeaderEpoch);
STRATA_HANDLER(handle_find_coordinator, FindCoordinator);
STRATA_HANDLER(handle_init_producer_id, InitProducerId);
STRATA_HANDLER(handle_join_group, JoinGroup);
STRATA_HANDLER(handle_sync_group, SyncGroup);
STRATA_HANDLER(handle_heartbeat, Heartbeat);
STRATA_HANDLER(handle_leave_group, LeaveGroup);
STRATA_HANDLER(handle_offset_commit, OffsetCommit);
STRATA_HANDLER(handle_offset_fetch, OffsetFetch);
STRATA_HANDLER(handle_offset_delete, OffsetDelete);
STRATA_HANDLER(handle_list_groups, ListGroups);
STRATA_HANDLER(handle_describe_groups, DescribeGroups);
STRATA_HANDLER(handle_consumer_group_heartbeat, ConsumerGroupHeartbeat);
STRATA_HANDLER(handle_consumer_group_describe, ConsumerGroupDescribe);
STRATA_HANDLER(handle_delete_groups, DeleteGroups);
STRATA_HANDLER(handle_add_partitions_to_txn, AddPartitionsToTxn);
STRATA_HANDLER(handle_add_offsets_to_txn, AddOffsetsToTxn);
STRATA_HANDLER(handle_end_txn, EndTxn);
STRATA_HANDLER(handle_write_txn_markers, WriteTxnMarkers);
STRATA_HANDLER(handle_txn_offset_commit, TxnOffsetCommit);
STRATA_HANDLER(handle_describe_producers, DescribeProducers);
STRATA_HANDLER(handle_describe_transactions, DescribeTransactions);
STRATA_HANDLER(handle_list_transactions, ListTransactions);
STRATA_HANDLER(handle_sasl_handshake, SaslHandshake);
STRATA_HANDLER(handle_create_acls, CreateAcls);
STRATA_HANDLER(handle_describe_acls, DescribeAcls);
STRATA_HANDLER(handle_delete_acls, DeleteAcls);
STRATA_HANDLER(handle_sasl_authenticate, SaslAuthenticate);
STRATA_HANDLER(handle_describe_user_scram_credentials, DescribeUserScramCredentials);
STRATA_HANDLER(handle_alter_user_scram_credentials, AlterUserScramCredentials);

#undef STRATA_HANDLER

// A raw SASL token after SaslHandshake v0 (no request header): the answer, sent as a bare
// size-prefixed frame; null closes the connection (a failed authentication).
asio::awaitable<std::optional<protocol::Output>> handle_raw_sasl_token(Broker& broker, net::Frame& frame);

}  // namespace strata::broker
