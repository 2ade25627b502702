// Every API declared in protocol/apis/, as one list: STRATA_PROTOCOL_APIS(X) calls
// X(Name) for each, where NameRequest and NameResponse are the declarations. What
// walks every API (the fuzz target, decode_bounds_test) takes the list from here;
// decode_bounds_test fails when a header in apis/ or an API the broker dispatches is
// missing from it.
#pragma once

#include "protocol/apis/add_offsets_to_txn.h"
#include "protocol/apis/add_partitions_to_txn.h"
#include "protocol/apis/alter_configs.h"
#include "protocol/apis/alter_partition_reassignments.h"
#include "protocol/apis/alter_user_scram_credentials.h"
#include "protocol/apis/api_versions.h"
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
#include "protocol/apis/describe_user_scram_credentials.h"
#include "protocol/apis/elect_leaders.h"
#include "protocol/apis/end_txn.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/heartbeat.h"
#include "protocol/apis/incremental_alter_configs.h"
#include "protocol/apis/init_producer_id.h"
#include "protocol/apis/join_group.h"
#include "protocol/apis/leave_group.h"
#include "protocol/apis/list_partition_reassignments.h"
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
#include "protocol/apis/sasl_handshake.h"
#include "protocol/apis/sync_group.h"
#include "protocol/apis/txn_offset_commit.h"
#include "protocol/apis/write_txn_markers.h"

#define STRATA_PROTOCOL_APIS(X) \
  X(Produce)                    \
  X(Fetch)                      \
  X(ListOffsets)                \
  X(Metadata)                   \
  X(OffsetCommit)               \
  X(OffsetFetch)                \
  X(FindCoordinator)            \
  X(JoinGroup)                  \
  X(Heartbeat)                  \
  X(LeaveGroup)                 \
  X(SyncGroup)                  \
  X(DescribeGroups)             \
  X(ListGroups)                 \
  X(ApiVersions)                \
  X(CreateTopics)               \
  X(DeleteTopics)               \
  X(DeleteRecords)              \
  X(InitProducerId)             \
  X(OffsetForLeaderEpoch)       \
  X(AddPartitionsToTxn)         \
  X(AddOffsetsToTxn)            \
  X(EndTxn)                     \
  X(WriteTxnMarkers)            \
  X(TxnOffsetCommit)            \
  X(DescribeConfigs)            \
  X(AlterConfigs)               \
  X(DescribeLogDirs)            \
  X(CreatePartitions)           \
  X(DeleteGroups)               \
  X(IncrementalAlterConfigs)    \
  X(OffsetDelete)               \
  X(DescribeCluster)            \
  X(DescribeProducers)          \
  X(DescribeTransactions)       \
  X(ListTransactions)            \
  X(ElectLeaders)                \
  X(AlterPartitionReassignments) \
  X(ListPartitionReassignments) \
  X(SaslHandshake)               \
  X(SaslAuthenticate)            \
  X(DescribeUserScramCredentials) \
  X(AlterUserScramCredentials)
