// Kafka's error codes, declared once: number, name, whether Kafka's clients retry it, and
// Kafka's default message. Handlers, coordinators, tools and tests take their numbers from
// here (enum KafkaError, the kafka_error::kXxx constants) and tools their names and
// messages (kafka_error_info, kafka_error_name).
//
// The facts are Kafka's: numbers, names and messages as in Errors.java (trunk of Oct 2024,
// Kafka 4.0-SNAPSHOT; 129-133 from Kafka 4.1), "retriable" as the protocol guide's error
// table has it (the code's exception is a RetriableException, Kafka 4.1). Codes are listed
// in ascending order, every one from -1 to the last; a code is never renumbered or reused,
// so the table only grows. The C++ name is the Kafka name in CamelCase, except
// INVALID_TOPIC_EXCEPTION (kInvalidTopic).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string_view>

// X(NAME, CamelName, code, retriable, "message")
// clang-format off
#define STRATA_KAFKA_ERRORS(X)                                                                     \
  X(UNKNOWN_SERVER_ERROR, UnknownServerError, -1, false,                                           \
    "The server experienced an unexpected error when processing the request.")                     \
  X(NONE, None, 0, false, "")                                                                      \
  X(OFFSET_OUT_OF_RANGE, OffsetOutOfRange, 1, false,                                               \
    "The requested offset is not within the range of offsets maintained by the server.")           \
  X(CORRUPT_MESSAGE, CorruptMessage, 2, true,                                                      \
    "This message has failed its CRC checksum, exceeds the valid size, has a null key for a "      \
    "compacted topic, or is otherwise corrupt.")                                                   \
  X(UNKNOWN_TOPIC_OR_PARTITION, UnknownTopicOrPartition, 3, true,                                  \
    "This server does not host this topic-partition.")                                             \
  X(INVALID_FETCH_SIZE, InvalidFetchSize, 4, false, "The requested fetch size is invalid.")        \
  X(LEADER_NOT_AVAILABLE, LeaderNotAvailable, 5, true,                                             \
    "There is no leader for this topic-partition as we are in the middle of a leadership "         \
    "election.")                                                                                   \
  X(NOT_LEADER_OR_FOLLOWER, NotLeaderOrFollower, 6, true,                                          \
    "For requests intended only for the leader, this error indicates that the broker is not the"   \
    " current leader. For requests intended for any replica, this error indicates that the "       \
    "broker is not a replica of the topic partition.")                                             \
  X(REQUEST_TIMED_OUT, RequestTimedOut, 7, true, "The request timed out.")                         \
  X(BROKER_NOT_AVAILABLE, BrokerNotAvailable, 8, false, "The broker is not available.")            \
  X(REPLICA_NOT_AVAILABLE, ReplicaNotAvailable, 9, true,                                           \
    "The replica is not available for the requested topic-partition. Produce/Fetch requests and"   \
    " other requests intended only for the leader or follower return NOT_LEADER_OR_FOLLOWER if "   \
    "the broker is not a replica of the topic-partition.")                                         \
  X(MESSAGE_TOO_LARGE, MessageTooLarge, 10, false,                                                 \
    "The request included a message larger than the max message size the server will accept.")     \
  X(STALE_CONTROLLER_EPOCH, StaleControllerEpoch, 11, false,                                       \
    "The controller moved to another broker.")                                                     \
  X(OFFSET_METADATA_TOO_LARGE, OffsetMetadataTooLarge, 12, false,                                  \
    "The metadata field of the offset request was too large.")                                     \
  X(NETWORK_EXCEPTION, NetworkException, 13, true,                                                 \
    "The server disconnected before a response was received.")                                     \
  X(COORDINATOR_LOAD_IN_PROGRESS, CoordinatorLoadInProgress, 14, true,                             \
    "The coordinator is loading and hence can't process requests.")                                \
  X(COORDINATOR_NOT_AVAILABLE, CoordinatorNotAvailable, 15, true,                                  \
    "The coordinator is not available.")                                                           \
  X(NOT_COORDINATOR, NotCoordinator, 16, true, "This is not the correct coordinator.")             \
  X(INVALID_TOPIC_EXCEPTION, InvalidTopic, 17, false,                                              \
    "The request attempted to perform an operation on an invalid topic.")                          \
  X(RECORD_LIST_TOO_LARGE, RecordListTooLarge, 18, false,                                          \
    "The request included message batch larger than the configured segment size on the server.")   \
  X(NOT_ENOUGH_REPLICAS, NotEnoughReplicas, 19, true,                                              \
    "Messages are rejected since there are fewer in-sync replicas than required.")                 \
  X(NOT_ENOUGH_REPLICAS_AFTER_APPEND, NotEnoughReplicasAfterAppend, 20, true,                      \
    "Messages are written to the log, but to fewer in-sync replicas than required.")               \
  X(INVALID_REQUIRED_ACKS, InvalidRequiredAcks, 21, false,                                         \
    "Produce request specified an invalid value for required acks.")                               \
  X(ILLEGAL_GENERATION, IllegalGeneration, 22, false,                                              \
    "Specified group generation id is not valid.")                                                 \
  X(INCONSISTENT_GROUP_PROTOCOL, InconsistentGroupProtocol, 23, false,                             \
    "The group member's supported protocols are incompatible with those of existing members or "   \
    "first group member tried to join with empty protocol type or empty protocol list.")           \
  X(INVALID_GROUP_ID, InvalidGroupId, 24, false, "The configured groupId is invalid.")             \
  X(UNKNOWN_MEMBER_ID, UnknownMemberId, 25, false, "The coordinator is not aware of this member.") \
  X(INVALID_SESSION_TIMEOUT, InvalidSessionTimeout, 26, false,                                     \
    "The session timeout is not within the range allowed by the broker (as configured by "         \
    "group.min.session.timeout.ms and group.max.session.timeout.ms).")                             \
  X(REBALANCE_IN_PROGRESS, RebalanceInProgress, 27, false,                                         \
    "The group is rebalancing, so a rejoin is needed.")                                            \
  X(INVALID_COMMIT_OFFSET_SIZE, InvalidCommitOffsetSize, 28, false,                                \
    "The committing offset data size is not valid.")                                               \
  X(TOPIC_AUTHORIZATION_FAILED, TopicAuthorizationFailed, 29, false,                               \
    "Topic authorization failed.")                                                                 \
  X(GROUP_AUTHORIZATION_FAILED, GroupAuthorizationFailed, 30, false,                               \
    "Group authorization failed.")                                                                 \
  X(CLUSTER_AUTHORIZATION_FAILED, ClusterAuthorizationFailed, 31, false,                           \
    "Cluster authorization failed.")                                                               \
  X(INVALID_TIMESTAMP, InvalidTimestamp, 32, false,                                                \
    "The timestamp of the message is out of acceptable range.")                                    \
  X(UNSUPPORTED_SASL_MECHANISM, UnsupportedSaslMechanism, 33, false,                               \
    "The broker does not support the requested SASL mechanism.")                                   \
  X(ILLEGAL_SASL_STATE, IllegalSaslState, 34, false,                                               \
    "Request is not valid given the current SASL state.")                                          \
  X(UNSUPPORTED_VERSION, UnsupportedVersion, 35, false, "The version of API is not supported.")    \
  X(TOPIC_ALREADY_EXISTS, TopicAlreadyExists, 36, false, "Topic with this name already exists.")   \
  X(INVALID_PARTITIONS, InvalidPartitions, 37, false, "Number of partitions is below 1.")          \
  X(INVALID_REPLICATION_FACTOR, InvalidReplicationFactor, 38, false,                               \
    "Replication factor is below 1 or larger than the number of available brokers.")               \
  X(INVALID_REPLICA_ASSIGNMENT, InvalidReplicaAssignment, 39, false,                               \
    "Replica assignment is invalid.")                                                              \
  X(INVALID_CONFIG, InvalidConfig, 40, false, "Configuration is invalid.")                         \
  X(NOT_CONTROLLER, NotController, 41, true,                                                       \
    "This is not the correct controller for this cluster.")                                        \
  X(INVALID_REQUEST, InvalidRequest, 42, false,                                                    \
    "This most likely occurs because of a request being malformed by the client library or the "   \
    "message was sent to an incompatible broker. See the broker logs for more details.")           \
  X(UNSUPPORTED_FOR_MESSAGE_FORMAT, UnsupportedForMessageFormat, 43, false,                        \
    "The message format version on the broker does not support the request.")                      \
  X(POLICY_VIOLATION, PolicyViolation, 44, false,                                                  \
    "Request parameters do not satisfy the configured policy.")                                    \
  X(OUT_OF_ORDER_SEQUENCE_NUMBER, OutOfOrderSequenceNumber, 45, false,                             \
    "The broker received an out of order sequence number.")                                        \
  X(DUPLICATE_SEQUENCE_NUMBER, DuplicateSequenceNumber, 46, false,                                 \
    "The broker received a duplicate sequence number.")                                            \
  X(INVALID_PRODUCER_EPOCH, InvalidProducerEpoch, 47, false,                                       \
    "Producer attempted to produce with an old epoch.")                                            \
  X(INVALID_TXN_STATE, InvalidTxnState, 48, false,                                                 \
    "The producer attempted a transactional operation in an invalid state.")                       \
  X(INVALID_PRODUCER_ID_MAPPING, InvalidProducerIdMapping, 49, false,                              \
    "The producer attempted to use a producer id which is not currently assigned to its "          \
    "transactional id.")                                                                           \
  X(INVALID_TRANSACTION_TIMEOUT, InvalidTransactionTimeout, 50, false,                             \
    "The transaction timeout is larger than the maximum value allowed by the broker (as "          \
    "configured by transaction.max.timeout.ms).")                                                  \
  X(CONCURRENT_TRANSACTIONS, ConcurrentTransactions, 51, true,                                     \
    "The producer attempted to update a transaction while another concurrent operation on the "    \
    "same transaction was ongoing.")                                                               \
  X(TRANSACTION_COORDINATOR_FENCED, TransactionCoordinatorFenced, 52, false,                       \
    "Indicates that the transaction coordinator sending a WriteTxnMarker is no longer the "        \
    "current coordinator for a given producer.")                                                   \
  X(TRANSACTIONAL_ID_AUTHORIZATION_FAILED, TransactionalIdAuthorizationFailed, 53, false,          \
    "Transactional Id authorization failed.")                                                      \
  X(SECURITY_DISABLED, SecurityDisabled, 54, false, "Security features are disabled.")             \
  X(OPERATION_NOT_ATTEMPTED, OperationNotAttempted, 55, false,                                     \
    "The broker did not attempt to execute this operation. This may happen for batched RPCs "      \
    "where some operations in the batch failed, causing the broker to respond without trying "     \
    "the rest.")                                                                                   \
  X(KAFKA_STORAGE_ERROR, KafkaStorageError, 56, true,                                              \
    "Disk error when trying to access log file on the disk.")                                      \
  X(LOG_DIR_NOT_FOUND, LogDirNotFound, 57, false,                                                  \
    "The user-specified log directory is not found in the broker config.")                         \
  X(SASL_AUTHENTICATION_FAILED, SaslAuthenticationFailed, 58, false,                               \
    "SASL Authentication failed.")                                                                 \
  X(UNKNOWN_PRODUCER_ID, UnknownProducerId, 59, false,                                             \
    "This exception is raised by the broker if it could not locate the producer metadata "         \
    "associated with the producerId in question. This could happen if, for instance, the "         \
    "producer's records were deleted because their retention time had elapsed. Once the last "     \
    "records of the producerId are removed, the producer's metadata is removed from the broker,"   \
    " and future appends by the producer will return this exception.")                             \
  X(REASSIGNMENT_IN_PROGRESS, ReassignmentInProgress, 60, false,                                   \
    "A partition reassignment is in progress.")                                                    \
  X(DELEGATION_TOKEN_AUTH_DISABLED, DelegationTokenAuthDisabled, 61, false,                        \
    "Delegation Token feature is not enabled.")                                                    \
  X(DELEGATION_TOKEN_NOT_FOUND, DelegationTokenNotFound, 62, false,                                \
    "Delegation Token is not found on server.")                                                    \
  X(DELEGATION_TOKEN_OWNER_MISMATCH, DelegationTokenOwnerMismatch, 63, false,                      \
    "Specified Principal is not valid Owner/Renewer.")                                             \
  X(DELEGATION_TOKEN_REQUEST_NOT_ALLOWED, DelegationTokenRequestNotAllowed, 64, false,             \
    "Delegation Token requests are not allowed on PLAINTEXT/1-way SSL channels and on "            \
    "delegation token authenticated channels.")                                                    \
  X(DELEGATION_TOKEN_AUTHORIZATION_FAILED, DelegationTokenAuthorizationFailed, 65, false,          \
    "Delegation Token authorization failed.")                                                      \
  X(DELEGATION_TOKEN_EXPIRED, DelegationTokenExpired, 66, false, "Delegation Token is expired.")   \
  X(INVALID_PRINCIPAL_TYPE, InvalidPrincipalType, 67, false,                                       \
    "Supplied principalType is not supported.")                                                    \
  X(NON_EMPTY_GROUP, NonEmptyGroup, 68, false, "The group is not empty.")                          \
  X(GROUP_ID_NOT_FOUND, GroupIdNotFound, 69, false, "The group id does not exist.")                \
  X(FETCH_SESSION_ID_NOT_FOUND, FetchSessionIdNotFound, 70, true,                                  \
    "The fetch session ID was not found.")                                                         \
  X(INVALID_FETCH_SESSION_EPOCH, InvalidFetchSessionEpoch, 71, true,                               \
    "The fetch session epoch is invalid.")                                                         \
  X(LISTENER_NOT_FOUND, ListenerNotFound, 72, true,                                                \
    "There is no listener on the leader broker that matches the listener on which metadata "       \
    "request was processed.")                                                                      \
  X(TOPIC_DELETION_DISABLED, TopicDeletionDisabled, 73, false, "Topic deletion is disabled.")      \
  X(FENCED_LEADER_EPOCH, FencedLeaderEpoch, 74, true,                                              \
    "The leader epoch in the request is older than the epoch on the broker.")                      \
  X(UNKNOWN_LEADER_EPOCH, UnknownLeaderEpoch, 75, true,                                            \
    "The leader epoch in the request is newer than the epoch on the broker.")                      \
  X(UNSUPPORTED_COMPRESSION_TYPE, UnsupportedCompressionType, 76, false,                           \
    "The requesting client does not support the compression type of given partition.")             \
  X(STALE_BROKER_EPOCH, StaleBrokerEpoch, 77, false, "Broker epoch has changed.")                  \
  X(OFFSET_NOT_AVAILABLE, OffsetNotAvailable, 78, true,                                            \
    "The leader high watermark has not caught up from a recent leader election so the offsets "    \
    "cannot be guaranteed to be monotonically increasing.")                                        \
  X(MEMBER_ID_REQUIRED, MemberIdRequired, 79, false,                                               \
    "The group member needs to have a valid member id before actually entering a consumer "        \
    "group.")                                                                                      \
  X(PREFERRED_LEADER_NOT_AVAILABLE, PreferredLeaderNotAvailable, 80, true,                         \
    "The preferred leader was not available.")                                                     \
  X(GROUP_MAX_SIZE_REACHED, GroupMaxSizeReached, 81, false,                                        \
    "The consumer group has reached its max size.")                                                \
  X(FENCED_INSTANCE_ID, FencedInstanceId, 82, false,                                               \
    "The broker rejected this static consumer since another consumer with the same "               \
    "group.instance.id has registered with a different member.id.")                                \
  X(ELIGIBLE_LEADERS_NOT_AVAILABLE, EligibleLeadersNotAvailable, 83, true,                         \
    "Eligible topic partition leaders are not available.")                                         \
  X(ELECTION_NOT_NEEDED, ElectionNotNeeded, 84, true,                                              \
    "Leader election not needed for topic partition.")                                             \
  X(NO_REASSIGNMENT_IN_PROGRESS, NoReassignmentInProgress, 85, false,                              \
    "No partition reassignment is in progress.")                                                   \
  X(GROUP_SUBSCRIBED_TO_TOPIC, GroupSubscribedToTopic, 86, false,                                  \
    "Deleting offsets of a topic is forbidden while the consumer group is actively subscribed "    \
    "to it.")                                                                                      \
  X(INVALID_RECORD, InvalidRecord, 87, false,                                                      \
    "This record has failed the validation on broker and hence will be rejected.")                 \
  X(UNSTABLE_OFFSET_COMMIT, UnstableOffsetCommit, 88, true,                                        \
    "There are unstable offsets that need to be cleared.")                                         \
  X(THROTTLING_QUOTA_EXCEEDED, ThrottlingQuotaExceeded, 89, true,                                  \
    "The throttling quota has been exceeded.")                                                     \
  X(PRODUCER_FENCED, ProducerFenced, 90, false,                                                    \
    "There is a newer producer with the same transactionalId which fences the current one.")       \
  X(RESOURCE_NOT_FOUND, ResourceNotFound, 91, false,                                               \
    "A request illegally referred to a resource that does not exist.")                             \
  X(DUPLICATE_RESOURCE, DuplicateResource, 92, false,                                              \
    "A request illegally referred to the same resource twice.")                                    \
  X(UNACCEPTABLE_CREDENTIAL, UnacceptableCredential, 93, false,                                    \
    "Requested credential would not meet criteria for acceptability.")                             \
  X(INCONSISTENT_VOTER_SET, InconsistentVoterSet, 94, false,                                       \
    "Indicates that the either the sender or recipient of a voter-only request is not one of "     \
    "the expected voters.")                                                                        \
  X(INVALID_UPDATE_VERSION, InvalidUpdateVersion, 95, false,                                       \
    "The given update version was invalid.")                                                       \
  X(FEATURE_UPDATE_FAILED, FeatureUpdateFailed, 96, false,                                         \
    "Unable to update finalized features due to an unexpected server error.")                      \
  X(PRINCIPAL_DESERIALIZATION_FAILURE, PrincipalDeserializationFailure, 97, false,                 \
    "Request principal deserialization failed during forwarding. This indicates an internal "      \
    "error on the broker cluster security setup.")                                                 \
  X(SNAPSHOT_NOT_FOUND, SnapshotNotFound, 98, false, "Requested snapshot was not found.")          \
  X(POSITION_OUT_OF_RANGE, PositionOutOfRange, 99, false,                                          \
    "Requested position is not greater than or equal to zero, and less than the size of the "      \
    "snapshot.")                                                                                   \
  X(UNKNOWN_TOPIC_ID, UnknownTopicId, 100, true, "This server does not host this topic ID.")       \
  X(DUPLICATE_BROKER_REGISTRATION, DuplicateBrokerRegistration, 101, false,                        \
    "This broker ID is already in use.")                                                           \
  X(BROKER_ID_NOT_REGISTERED, BrokerIdNotRegistered, 102, false,                                   \
    "The given broker ID was not registered.")                                                     \
  X(INCONSISTENT_TOPIC_ID, InconsistentTopicId, 103, true,                                         \
    "The log's topic ID did not match the topic ID in the request.")                               \
  X(INCONSISTENT_CLUSTER_ID, InconsistentClusterId, 104, false,                                    \
    "The clusterId in the request does not match that found on the server.")                       \
  X(TRANSACTIONAL_ID_NOT_FOUND, TransactionalIdNotFound, 105, false,                               \
    "The transactionalId could not be found.")                                                     \
  X(FETCH_SESSION_TOPIC_ID_ERROR, FetchSessionTopicIdError, 106, true,                             \
    "The fetch session encountered inconsistent topic ID usage.")                                  \
  X(INELIGIBLE_REPLICA, IneligibleReplica, 107, false,                                             \
    "The new ISR contains at least one ineligible replica.")                                       \
  X(NEW_LEADER_ELECTED, NewLeaderElected, 108, false,                                              \
    "The AlterPartition request successfully updated the partition state but the leader has "      \
    "changed.")                                                                                    \
  X(OFFSET_MOVED_TO_TIERED_STORAGE, OffsetMovedToTieredStorage, 109, false,                        \
    "The requested offset is moved to tiered storage.")                                            \
  X(FENCED_MEMBER_EPOCH, FencedMemberEpoch, 110, false,                                            \
    "The member epoch is fenced by the group coordinator. The member must abandon all its "        \
    "partitions and rejoin.")                                                                      \
  X(UNRELEASED_INSTANCE_ID, UnreleasedInstanceId, 111, false,                                      \
    "The instance ID is still used by another member in the consumer group. That member must "     \
    "leave first.")                                                                                \
  X(UNSUPPORTED_ASSIGNOR, UnsupportedAssignor, 112, false,                                         \
    "The assignor or its version range is not supported by the consumer group.")                   \
  X(STALE_MEMBER_EPOCH, StaleMemberEpoch, 113, false,                                              \
    "The member epoch is stale. The member must retry after receiving its updated member epoch "   \
    "via the ConsumerGroupHeartbeat API.")                                                         \
  X(MISMATCHED_ENDPOINT_TYPE, MismatchedEndpointType, 114, false,                                  \
    "The request was sent to an endpoint of the wrong type.")                                      \
  X(UNSUPPORTED_ENDPOINT_TYPE, UnsupportedEndpointType, 115, false,                                \
    "This endpoint type is not supported yet.")                                                    \
  X(UNKNOWN_CONTROLLER_ID, UnknownControllerId, 116, false, "This controller ID is not known.")    \
  X(UNKNOWN_SUBSCRIPTION_ID, UnknownSubscriptionId, 117, false,                                    \
    "Client sent a push telemetry request with an invalid or outdated subscription ID.")           \
  X(TELEMETRY_TOO_LARGE, TelemetryTooLarge, 118, false,                                            \
    "Client sent a push telemetry request larger than the maximum size the broker will accept.")   \
  X(INVALID_REGISTRATION, InvalidRegistration, 119, false,                                         \
    "The controller has considered the broker registration to be invalid.")                        \
  X(TRANSACTION_ABORTABLE, TransactionAbortable, 120, false,                                       \
    "The server encountered an error with the transaction. The client can abort the transaction"   \
    " to continue using this transactional ID.")                                                   \
  X(INVALID_RECORD_STATE, InvalidRecordState, 121, false,                                          \
    "The record state is invalid. The acknowledgement of delivery could not be completed.")        \
  X(SHARE_SESSION_NOT_FOUND, ShareSessionNotFound, 122, true, "The share session was not found.")  \
  X(INVALID_SHARE_SESSION_EPOCH, InvalidShareSessionEpoch, 123, true,                              \
    "The share session epoch is invalid.")                                                         \
  X(FENCED_STATE_EPOCH, FencedStateEpoch, 124, false,                                              \
    "The share coordinator rejected the request because the share-group state epoch did not "      \
    "match.")                                                                                      \
  X(INVALID_VOTER_KEY, InvalidVoterKey, 125, false,                                                \
    "The voter key doesn't match the receiving replica's key.")                                    \
  X(DUPLICATE_VOTER, DuplicateVoter, 126, false,                                                   \
    "The voter is already part of the set of voters.")                                             \
  X(VOTER_NOT_FOUND, VoterNotFound, 127, false, "The voter is not part of the set of voters.")     \
  X(INVALID_REGULAR_EXPRESSION, InvalidRegularExpression, 128, false,                              \
    "The regular expression is not valid.")                                                        \
  X(REBOOTSTRAP_REQUIRED, RebootstrapRequired, 129, false,                                         \
    "Client metadata is stale. The client should rebootstrap to obtain new metadata.")             \
  X(STREAMS_INVALID_TOPOLOGY, StreamsInvalidTopology, 130, false,                                  \
    "The supplied topology is invalid.")                                                           \
  X(STREAMS_INVALID_TOPOLOGY_EPOCH, StreamsInvalidTopologyEpoch, 131, false,                       \
    "The supplied topology epoch is invalid.")                                                     \
  X(STREAMS_TOPOLOGY_FENCED, StreamsTopologyFenced, 132, false,                                    \
    "The supplied topology epoch is outdated.")                                                    \
  X(SHARE_SESSION_LIMIT_REACHED, ShareSessionLimitReached, 133, true,                              \
    "The limit of share sessions has been reached.")
// clang-format on

namespace strata {

enum class KafkaError : int16_t {
#define STRATA_KAFKA_ERROR_ENUM(NAME, Id, code, retriable, message) k##Id = code,
  STRATA_KAFKA_ERRORS(STRATA_KAFKA_ERROR_ENUM)
#undef STRATA_KAFKA_ERROR_ENUM
};

// The protocol's int16 fields take these (`r.error_code = kafka_error::kNotCoordinator`).
namespace kafka_error {
#define STRATA_KAFKA_ERROR_CONSTANT(NAME, Id, code, retriable, message) \
  inline constexpr int16_t k##Id = code;
STRATA_KAFKA_ERRORS(STRATA_KAFKA_ERROR_CONSTANT)
#undef STRATA_KAFKA_ERROR_CONSTANT
}  // namespace kafka_error

constexpr int16_t code_of(KafkaError e) {
  return static_cast<int16_t>(e);
}

struct KafkaErrorInfo {
  int16_t code;
  std::string_view name;     // "UNKNOWN_TOPIC_OR_PARTITION"
  bool retriable;            // Kafka's clients retry the request
  std::string_view message;  // Kafka's default text ("" for NONE)
};

// Every code, ascending.
inline constexpr KafkaErrorInfo kKafkaErrors[] = {
#define STRATA_KAFKA_ERROR_INFO(NAME, Id, code, retriable, message) \
  {code, #NAME, retriable, message},
    STRATA_KAFKA_ERRORS(STRATA_KAFKA_ERROR_INFO)
#undef STRATA_KAFKA_ERROR_INFO
};

namespace detail {
constexpr bool kafka_errors_ascending() {
  for (size_t i = 1; i < std::size(kKafkaErrors); ++i) {
    if (kKafkaErrors[i].code <= kKafkaErrors[i - 1].code) return false;
  }
  return true;
}
}  // namespace detail
// Ascending (so also unique), which the lookup below relies on.
static_assert(detail::kafka_errors_ascending(), "STRATA_KAFKA_ERRORS: codes must ascend");

// The table's entry for `code`; null for a code the table does not list (a newer Kafka's).
constexpr const KafkaErrorInfo* kafka_error_info(int16_t code) {
  const auto* end = std::end(kKafkaErrors);
  const auto* it = std::lower_bound(std::begin(kKafkaErrors), end, code,
                                    [](const KafkaErrorInfo& e, int16_t c) { return e.code < c; });
  return it != end && it->code == code ? it : nullptr;
}
constexpr const KafkaErrorInfo& kafka_error_info(KafkaError e) {
  return *kafka_error_info(code_of(e));
}

// Kafka's name of `code` ("TOPIC_ALREADY_EXISTS"); empty for a code the table does not list.
constexpr std::string_view kafka_error_name(int16_t code) {
  const KafkaErrorInfo* e = kafka_error_info(code);
  return e ? e->name : std::string_view();
}

constexpr std::string_view kafka_error_name(KafkaError e) {
  return kafka_error_info(e).name;
}

constexpr bool kafka_error_retriable(int16_t code) {
  const KafkaErrorInfo* e = kafka_error_info(code);
  return e && e->retriable;
}

}  // namespace strata
