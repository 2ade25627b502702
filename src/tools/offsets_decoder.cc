#include "tools/offsets_decoder.h"

#include <fmt/format.h>

#include <variant>

#include "group/records.h"
#include "storage/partition_metadata.h"
#include "tools/consumer_protocol.h"
#include "tools/json_text.h"

namespace strata::tools {

namespace {

// Key versions Kafka 4.0's group coordinator defines: 0-1 offset commit, 2 group
// metadata, 3-8 and 16 KIP-848 consumer groups, 9-15 share groups.
constexpr int16_t kKeyVersionMax = 16;

using json::array;
using json::binary;
using json::Object;
using json::quote;

std::string nullable_binary(const std::optional<std::vector<uint8_t>>& b) {
  return b ? binary(*b) : "null";
}
std::string nullable_string(const std::optional<std::string>& s) {
  return s ? quote(*s) : "null";
}

std::string topic_partitions(const std::vector<ConsumerTopicPartitions>& list) {
  return array(list, [](const ConsumerTopicPartitions& tp) {
    return Object()
        .str("topic", tp.topic)
        .raw("partitions", array(tp.partitions, [](int32_t p) { return std::to_string(p); }))
        .done();
  });
}

std::string subscription(const std::vector<uint8_t>& bytes) {
  const auto s = decode_consumer_subscription(bytes);
  if (!s) return binary(bytes);
  Object o;
  o.raw("topics", array(s->message.topics, [](const std::string& t) { return quote(t); }))
      .raw("userData", nullable_binary(s->message.user_data));
  if (s->version >= 1) o.raw("ownedPartitions", topic_partitions(s->message.owned_partitions));
  if (s->version >= 2) o.num("generationId", s->message.generation_id);
  if (s->version >= 3) o.raw("rackId", nullable_string(s->message.rack_id));
  return o.done();
}

std::string assignment(const std::vector<uint8_t>& bytes) {
  const auto a = decode_consumer_assignment(bytes);
  if (!a) return binary(bytes);
  return Object()
      .raw("assignedPartitions", topic_partitions(a->message.assigned_partitions))
      .raw("userData", nullable_binary(a->message.user_data))
      .done();
}

std::string member(const group::MemberRecord& m, int16_t version, bool consumer) {
  Object o;
  o.str("memberId", m.member_id);
  if (version >= 3) o.raw("groupInstanceId", nullable_string(m.group_instance_id));
  o.str("clientId", m.client_id).str("clientHost", m.client_host);
  if (version >= 1) o.num("rebalanceTimeout", m.rebalance_timeout_ms);
  o.num("sessionTimeout", m.session_timeout_ms)
      .raw("subscription", consumer ? subscription(m.subscription) : binary(m.subscription))
      .raw("assignment", consumer ? assignment(m.assignment) : binary(m.assignment));
  return o.done();
}

std::string group_value(const group::GroupValue& g, int16_t version) {
  const bool consumer = g.protocol_type == "consumer";
  Object o;
  o.str("protocolType", g.protocol_type)
      .num("generation", g.generation)
      .raw("protocol", nullable_string(g.protocol))
      .raw("leader", nullable_string(g.leader));
  if (version >= 2) o.num("currentStateTimestamp", g.current_state_timestamp);
  o.raw("members", array(g.members, [&](const group::MemberRecord& m) {
          return member(m, version, consumer);
        }));
  return o.done();
}

std::string offset_value(const group::OffsetValue& v, int16_t version) {
  Object o;
  o.num("offset", v.offset);
  if (version >= 3) o.num("leaderEpoch", v.leader_epoch);
  o.str("metadata", v.metadata).num("commitTimestamp", v.commit_timestamp);
  if (version == 1) o.num("expireTimestamp", v.expire_timestamp);
  return o.done();
}

std::string versioned(const char* label, int16_t version, const std::string& data) {
  return fmt::format("{{\"{}\":\"{}\",\"data\":{}}}", label, version, data);
}

DecodedOffsetsRecord skipped(int64_t offset, const std::string& reason) {
  return {fmt::format("Error at offset {}, skipping. {}", offset, reason), std::nullopt};
}

// KIP-848 records, with Kafka's JSON field names (camelCase of the schema's fields).
std::string string_list(const std::vector<std::string>& list) {
  return array(list, [](const std::string& s) { return quote(s); });
}

std::string consumer_partitions(const std::vector<group::TopicPartitionsValue>& list) {
  return array(list, [](const group::TopicPartitionsValue& tp) {
    return Object()
        .str("topicId", storage::uuid_to_base64(tp.topic_id))
        .raw("partitions", array(tp.partitions, [](int32_t p) { return std::to_string(p); }))
        .done();
  });
}

// The value of a consumer-group record as JSON, or the decoding error.
Result<std::string, std::string> consumer_value(group::ConsumerRecord type, Bytes value) {
  using group::ConsumerRecord;
  switch (type) {
    case ConsumerRecord::kGroupMetadata: {
      auto v = group::decode_group_metadata_value(value);
      if (!v) return fail(v.error());
      Object o;
      o.num("epoch", v->epoch);
      if (v->metadata_hash != 0) o.num("metadataHash", v->metadata_hash);
      return o.done();
    }
    case ConsumerRecord::kPartitionMetadata: {
      auto v = group::decode_partition_metadata_value(value);
      if (!v) return fail(v.error());
      return Object()
          .raw("topics", array(v->topics, [](const group::PartitionMetadataValue::Topic& t) {
                 return Object()
                     .str("topicId", storage::uuid_to_base64(t.topic_id))
                     .str("topicName", t.topic_name)
                     .num("numPartitions", t.num_partitions)
                     .raw("partitionMetadata", array(t.racks, [](const auto& pr) {
                            return Object().num("partition", pr.first).raw("racks", string_list(pr.second)).done();
                          }))
                     .done();
               }))
          .done();
    }
    case ConsumerRecord::kMemberMetadata: {
      auto v = group::decode_member_value(value);
      if (!v) return fail(v.error());
      Object o;
      o.raw("instanceId", nullable_string(v->instance_id))
          .raw("rackId", nullable_string(v->rack_id))
          .str("clientId", v->client_id)
          .str("clientHost", v->client_host)
          .raw("subscribedTopicNames", string_list(v->subscribed_topic_names))
          .raw("subscribedTopicRegex", nullable_string(v->subscribed_topic_regex))
          .num("rebalanceTimeoutMs", v->rebalance_timeout_ms)
          .raw("serverAssignor", nullable_string(v->server_assignor));
      if (v->classic) {
        o.raw("classicMemberMetadata",
              Object()
                  .num("sessionTimeoutMs", v->classic->session_timeout_ms)
                  .raw("supportedProtocols", array(v->classic->supported_protocols, [](const auto& p) {
                         return Object().str("name", p.first).raw("metadata", binary(p.second)).done();
                       }))
                  .done());
      }
      return o.done();
    }
    case ConsumerRecord::kTargetMetadata: {
      auto v = group::decode_target_metadata_value(value);
      if (!v) return fail(v.error());
      return Object().num("assignmentEpoch", v->assignment_epoch).done();
    }
    case ConsumerRecord::kTargetMember: {
      auto v = group::decode_target_member_value(value);
      if (!v) return fail(v.error());
      return Object().raw("topicPartitions", consumer_partitions(v->topic_partitions)).done();
    }
    case ConsumerRecord::kCurrentAssignment: {
      auto v = group::decode_current_assignment_value(value);
      if (!v) return fail(v.error());
      return Object()
          .num("memberEpoch", v->member_epoch)
          .num("previousMemberEpoch", v->previous_member_epoch)
          .num("state", v->state)
          .raw("assignedPartitions", consumer_partitions(v->assigned))
          .raw("partitionsPendingRevocation", consumer_partitions(v->pending_revocation))
          .done();
    }
    case ConsumerRecord::kRegularExpression: {
      auto v = group::decode_regex_value(value);
      if (!v) return fail(v.error());
      return Object()
          .raw("topics", string_list(v->topics))
          .num("version", v->version)
          .num("timestamp", v->timestamp)
          .done();
    }
  }
  return fail(std::string("unknown consumer-group record"));
}

std::string consumer_key(const group::ConsumerKey& k) {
  using group::ConsumerRecord;
  Object o;
  o.str("groupId", k.group);
  if (k.type == ConsumerRecord::kRegularExpression) {
    o.str("regularExpression", k.sub);
  } else if (k.type == ConsumerRecord::kMemberMetadata || k.type == ConsumerRecord::kTargetMember ||
             k.type == ConsumerRecord::kCurrentAssignment) {
    o.str("memberId", k.sub);
  }
  return o.done();
}

}  // namespace

std::string offsets_missing_key_message(int64_t offset) {
  return fmt::format(
      "Failed to decode message at offset {} using offset topic decoder (message had a "
      "missing key)",
      offset);
}

DecodedOffsetsRecord decode_offsets_record(Bytes key, const std::optional<Bytes>& value,
                                           int64_t offset) {
  if (key.size() < 2) return skipped(offset, "Could not read version from key's buffer.");
  const int16_t type = int16_t(load_be16(key.data()));
  if (type < 0 || type > kKeyVersionMax) {
    return {fmt::format("Unknown record type {} at offset {}, skipping.", type, offset),
            std::nullopt};
  }
  auto k = group::decode_key(key);
  if (!k) return skipped(offset, k.error());
  std::string key_json;
  if (const auto* o = std::get_if<group::OffsetKey>(&*k)) {
    key_json = Object()
                   .str("group", o->group)
                   .str("topic", o->topic)
                   .num("partition", o->partition)
                   .done();
  } else if (const auto* c = std::get_if<group::ConsumerKey>(&*k)) {
    key_json = consumer_key(*c);
  } else {
    key_json = Object().str("group", std::get<group::GroupKey>(*k).group).done();
  }
  DecodedOffsetsRecord out{versioned("type", type, key_json), "<DELETE>"};
  if (!value) return out;
  if (value->size() < 2) return skipped(offset, "Could not read version from value's buffer.");
  const int16_t version = int16_t(load_be16(value->data()));
  if (const auto* c = std::get_if<group::ConsumerKey>(&*k)) {
    auto v = consumer_value(c->type, *value);
    if (!v) return skipped(offset, v.error());
    out.payload = versioned("version", version, *v);
  } else if (std::holds_alternative<group::OffsetKey>(*k)) {
    auto v = group::decode_offset_value(*value);
    if (!v) return skipped(offset, v.error());
    out.payload = versioned("version", version, offset_value(*v, version));
  } else {
    auto v = group::decode_group_value(*value);
    if (!v) return skipped(offset, v.error());
    out.payload = versioned("version", version, group_value(*v, version));
  }
  return out;
}

}  // namespace strata::tools
