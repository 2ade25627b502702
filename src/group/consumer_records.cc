#include "group/consumer_records.h"

#include "protocol/message.h"

namespace strata::group {

namespace {

using protocol::F;

// Keys: the type, then GroupId and (types 5, 7, 8, 16) a second string; not flexible.
struct KeyWire {
  std::string group;
  std::string sub;
  bool has_sub = false;
  template <class V>
  void visit(V& v) {
    v(group, F{{0}});
    if (has_sub) v(sub, F{{0}});
  }
};

bool has_sub(ConsumerRecord t) {
  return t == ConsumerRecord::kMemberMetadata || t == ConsumerRecord::kTargetMember ||
         t == ConsumerRecord::kCurrentAssignment || t == ConsumerRecord::kRegularExpression;
}

struct TopicPartitionsWire {
  TopicPartitionsValue t;
  template <class V>
  void visit(V& v) {
    v(t.topic_id, F{{0}});
    v(t.partitions, F{{0}});
  }
};

std::vector<TopicPartitionsWire> wires(const std::vector<TopicPartitionsValue>& list) {
  std::vector<TopicPartitionsWire> out;
  for (const auto& t : list) out.push_back({t});
  return out;
}
std::vector<TopicPartitionsValue> values(std::vector<TopicPartitionsWire>& list) {
  std::vector<TopicPartitionsValue> out;
  for (auto& w : list) out.push_back(std::move(w.t));
  return out;
}

struct GroupMetadataWire {
  ConsumerGroupMetadataValue& g;
  template <class V>
  void visit(V& v) {
    v(g.epoch, F{{0}});
    v(g.metadata_hash, F{.versions = {0}, .tag = 0, .tagged = {0}});
  }
};

struct ProtocolWire {
  std::string name;
  std::vector<uint8_t> metadata;
  template <class V>
  void visit(V& v) {
    v(name, F{{0}});
    v(metadata, F{{0}});
  }
};

struct ClassicWire {
  int32_t session_timeout_ms = 0;
  std::vector<ProtocolWire> protocols;
  template <class V>
  void visit(V& v) {
    v(session_timeout_ms, F{{0}});
    v(protocols, F{{0}});
  }
};

struct MemberWire {
  ConsumerMemberValue& m;
  std::optional<ClassicWire> classic;
  template <class V>
  void visit(V& v) {
    v(m.instance_id, F{{0}, {0}});
    v(m.rack_id, F{{0}, {0}});
    v(m.client_id, F{{0}});
    v(m.client_host, F{{0}});
    v(m.subscribed_topic_names, F{{0}});
    v(m.subscribed_topic_regex, F{{0}, {0}});
    v(m.rebalance_timeout_ms, F{{0}});
    v(m.server_assignor, F{{0}, {0}});
    v(classic, F{.versions = {0}, .nullable = {0}, .tag = 0, .tagged = {0}});
  }
};

struct TargetMetadataWire {
  TargetMetadataValue& t;
  template <class V>
  void visit(V& v) {
    v(t.assignment_epoch, F{{0}});
  }
};

struct TargetMemberWire {
  std::vector<TopicPartitionsWire> topics;
  template <class V>
  void visit(V& v) {
    v(topics, F{{0}});
  }
};

struct CurrentWire {
  CurrentAssignmentValue& c;
  std::vector<TopicPartitionsWire> assigned, revoking;
  template <class V>
  void visit(V& v) {
    v(c.member_epoch, F{{0}});
    v(c.previous_member_epoch, F{{0}});
    v(c.state, F{{0}});
    v(assigned, F{{0}});
    v(revoking, F{{0}});
  }
};

struct RegexWire {
  RegexValue& r;
  template <class V>
  void visit(V& v) {
    v(r.topics, F{{0}});
    v(r.version, F{{0}});
    v(r.timestamp, F{{0}});
  }
};

struct PartitionRacksWire {
  int32_t partition = 0;
  std::vector<std::string> racks;
  template <class V>
  void visit(V& v) {
    v(partition, F{{0}});
    v(racks, F{{0}});
  }
};

struct TopicMetadataWire {
  Uuid id;
  std::string name;
  int32_t partitions = 0;
  std::vector<PartitionRacksWire> racks;
  template <class V>
  void visit(V& v) {
    v(id, F{{0}});
    v(name, F{{0}});
    v(partitions, F{{0}});
    v(racks, F{{0}});
  }
};

struct PartitionMetadataWire {
  std::vector<TopicMetadataWire> topics;
  template <class V>
  void visit(V& v) {
    v(topics, F{{0}});
  }
};

template <class T>
std::vector<uint8_t> encode(int16_t version, bool flexible, T& wire) {
  protocol::Output out;
  ByteWriter w(out.bytes);
  w.i16(version);
  protocol::Encoder e(out, version, flexible);
  e.encode(wire);
  return std::move(out.bytes);
}

// Values: version 0, flexible; the body must fill the rest.
template <class T>
Result<void, std::string> decode_value(Bytes in, T& wire, const char* what) {
  if (in.size() < 2) return fail(std::string(what) + ": shorter than its version");
  const int16_t version = int16_t(load_be16(in.data()));
  if (version != 0) return fail(std::string(what) + ": unknown version " + std::to_string(version));
  std::vector<uint8_t> copy(in.begin(), in.end());
  protocol::Decoder d(MutableBytes(copy), 2, 0, true);
  d.decode(wire);
  if (!d.ok()) return fail(std::string(what) + " v0: truncated");
  if (d.remaining() != 0) return fail(std::string(what) + " v0: trailing bytes");
  return {};
}

}  // namespace

bool is_consumer_record(int16_t type) {
  return (type >= 3 && type <= 8) || type == int16_t(ConsumerRecord::kRegularExpression);
}

std::vector<uint8_t> encode_key(const ConsumerKey& key) {
  KeyWire w{key.group, key.sub, has_sub(key.type)};
  return encode(int16_t(key.type), false, w);
}

std::vector<uint8_t> encode_value(const ConsumerGroupMetadataValue& v) {
  ConsumerGroupMetadataValue copy = v;
  GroupMetadataWire w{copy};
  return encode(0, true, w);
}

std::vector<uint8_t> encode_value(const ConsumerMemberValue& v) {
  ConsumerMemberValue copy = v;
  MemberWire w{copy, std::nullopt};
  if (v.classic) {
    ClassicWire c{v.classic->session_timeout_ms, {}};
    for (const auto& [name, meta] : v.classic->supported_protocols) c.protocols.push_back({name, meta});
    w.classic = std::move(c);
  }
  return encode(0, true, w);
}

std::vector<uint8_t> encode_value(const TargetMetadataValue& v) {
  TargetMetadataValue copy = v;
  TargetMetadataWire w{copy};
  return encode(0, true, w);
}

std::vector<uint8_t> encode_value(const TargetMemberValue& v) {
  TargetMemberWire w{wires(v.topic_partitions)};
  return encode(0, true, w);
}

std::vector<uint8_t> encode_value(const CurrentAssignmentValue& v) {
  CurrentAssignmentValue copy = v;
  CurrentWire w{copy, wires(v.assigned), wires(v.pending_revocation)};
  return encode(0, true, w);
}

std::vector<uint8_t> encode_value(const RegexValue& v) {
  RegexValue copy = v;
  RegexWire w{copy};
  return encode(0, true, w);
}

Result<ConsumerKey, std::string> decode_consumer_key(Bytes key) {
  if (key.size() < 2) return fail(std::string("key: shorter than its type"));
  const int16_t type = int16_t(load_be16(key.data()));
  if (!is_consumer_record(type)) return fail("key type " + std::to_string(type) + " is not a consumer-group record");
  ConsumerKey out;
  out.type = ConsumerRecord(type);
  KeyWire w;
  w.has_sub = has_sub(out.type);
  std::vector<uint8_t> copy(key.begin(), key.end());
  protocol::Decoder d(MutableBytes(copy), 2, type, false);
  d.decode(w);
  if (!d.ok()) return fail("consumer-group key type " + std::to_string(type) + ": truncated");
  if (d.remaining() != 0) return fail("consumer-group key type " + std::to_string(type) + ": trailing bytes");
  out.group = std::move(w.group);
  out.sub = std::move(w.sub);
  return out;
}

Result<ConsumerGroupMetadataValue, std::string> decode_group_metadata_value(Bytes v) {
  ConsumerGroupMetadataValue out;
  GroupMetadataWire w{out};
  if (auto r = decode_value(v, w, "consumer group metadata value"); !r) return fail(r.error());
  return out;
}

Result<PartitionMetadataValue, std::string> decode_partition_metadata_value(Bytes v) {
  PartitionMetadataWire w;
  if (auto r = decode_value(v, w, "consumer group partition metadata value"); !r) return fail(r.error());
  PartitionMetadataValue out;
  for (auto& t : w.topics) {
    PartitionMetadataValue::Topic topic{t.id, std::move(t.name), t.partitions, {}};
    for (auto& p : t.racks) topic.racks.emplace_back(p.partition, std::move(p.racks));
    out.topics.push_back(std::move(topic));
  }
  return out;
}

Result<ConsumerMemberValue, std::string> decode_member_value(Bytes v) {
  ConsumerMemberValue out;
  MemberWire w{out, std::nullopt};
  if (auto r = decode_value(v, w, "consumer group member metadata value"); !r) return fail(r.error());
  if (w.classic) {
    ClassicMemberMetadata c{w.classic->session_timeout_ms, {}};
    for (auto& p : w.classic->protocols) c.supported_protocols.emplace_back(std::move(p.name), std::move(p.metadata));
    out.classic = std::move(c);
  }
  return out;
}

Result<TargetMetadataValue, std::string> decode_target_metadata_value(Bytes v) {
  TargetMetadataValue out;
  TargetMetadataWire w{out};
  if (auto r = decode_value(v, w, "consumer group target assignment metadata value"); !r) return fail(r.error());
  return out;
}

Result<TargetMemberValue, std::string> decode_target_member_value(Bytes v) {
  TargetMemberWire w;
  if (auto r = decode_value(v, w, "consumer group target assignment member value"); !r) return fail(r.error());
  return TargetMemberValue{values(w.topics)};
}

Result<CurrentAssignmentValue, std::string> decode_current_assignment_value(Bytes v) {
  CurrentAssignmentValue out;
  CurrentWire w{out, {}, {}};
  if (auto r = decode_value(v, w, "consumer group current member assignment value"); !r) return fail(r.error());
  out.assigned = values(w.assigned);
  out.pending_revocation = values(w.revoking);
  return out;
}

Result<RegexValue, std::string> decode_regex_value(Bytes v) {
  RegexValue out;
  RegexWire w{out};
  if (auto r = decode_value(v, w, "consumer group regular expression value"); !r) return fail(r.error());
  return out;
}

}  // namespace strata::group
