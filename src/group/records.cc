#include "group/records.h"

#include "common/java_hash.h"
#include "protocol/message.h"

namespace strata::group {

namespace {

using protocol::F;

// Wire declarations of the key and value schemas (versions as in Kafka 4.0's
// group-coordinator message definitions); the public structs above stay plain.
struct OffsetKeyWire {
  std::string group, topic;
  int32_t partition = 0;
  template <class V>
  void visit(V& v) {
    v(group, F{{0, 1}});
    v(topic, F{{0, 1}});
    v(partition, F{{0, 1}});
  }
};

struct GroupKeyWire {
  std::string group;
  template <class V>
  void visit(V& v) {
    v(group, F{{2, 2}});
  }
};

struct OffsetValueWire {
  OffsetValue& o;
  template <class V>
  void visit(V& v) {
    v(o.offset, F{{0}});
    v(o.leader_epoch, F{{3}});
    v(o.metadata, F{{0}});
    v(o.commit_timestamp, F{{0}});
    v(o.expire_timestamp, F{{1, 1}});
  }
};

struct MemberWire {
  MemberRecord m;
  template <class V>
  void visit(V& v) {
    v(m.member_id, F{{0}});
    v(m.group_instance_id, F{{3}, {3}});
    v(m.client_id, F{{0}});
    v(m.client_host, F{{0}});
    v(m.rebalance_timeout_ms, F{{1}});
    v(m.session_timeout_ms, F{{0}});
    v(m.subscription, F{{0}});
    v(m.assignment, F{{0}});
  }
};

struct GroupValueWire {
  GroupValue& g;
  std::vector<MemberWire> members;
  template <class V>
  void visit(V& v) {
    v(g.protocol_type, F{{0}});
    v(g.generation, F{{0}});
    v(g.protocol, F{{0}, {0}});
    v(g.leader, F{{0}, {0}});
    v(g.current_state_timestamp, F{{2}});
    v(members, F{{0}});
  }
};

constexpr int16_t kOffsetValueVersion = 3;
constexpr int16_t kOffsetValueWithExpiryVersion = 1;
constexpr int16_t kGroupValueVersion = 3;
constexpr int16_t kMaxValueVersion = 4;  // 4 is the first flexible version of both values

template <class T>
std::vector<uint8_t> encode(int16_t version, T& wire) {
  protocol::Output out;
  ByteWriter w(out.bytes);
  w.i16(version);
  protocol::Encoder e(out, version, version >= 4);
  e.encode(wire);
  return std::move(out.bytes);
}

// Reads the version prefix, then the body in that version; the body must fill the rest.
template <class T>
Result<void, std::string> decode(Bytes in, int16_t min, int16_t max, T& wire, const char* what) {
  if (in.size() < 2) return fail(std::string(what) + ": shorter than its version");
  const int16_t version = int16_t(load_be16(in.data()));
  if (version < min || version > max) {
    return fail(std::string(what) + ": unknown version " + std::to_string(version));
  }
  std::vector<uint8_t> copy(in.begin(), in.end());
  protocol::Decoder d(MutableBytes(copy), 2, version, version >= 4);
  d.decode(wire);
  if (!d.ok()) return fail(std::string(what) + " v" + std::to_string(version) + ": truncated");
  if (d.remaining() != 0) {
    return fail(std::string(what) + " v" + std::to_string(version) + ": trailing bytes");
  }
  return {};
}

}  // namespace

std::vector<uint8_t> encode_key(const OffsetKey& key) {
  OffsetKeyWire w{key.group, key.topic, key.partition};
  return encode(1, w);
}

std::vector<uint8_t> encode_key(const GroupKey& key) {
  GroupKeyWire w{key.group};
  return encode(2, w);
}

std::vector<uint8_t> encode_value(const OffsetValue& value) {
  OffsetValue copy = value;
  OffsetValueWire w{copy};
  return encode(value.expire_timestamp >= 0 ? kOffsetValueWithExpiryVersion : kOffsetValueVersion,
                w);
}

std::vector<uint8_t> encode_value(const GroupValue& value) {
  GroupValue copy = value;
  GroupValueWire w{copy, {}};
  for (const MemberRecord& m : value.members) w.members.push_back(MemberWire{m});
  return encode(kGroupValueVersion, w);
}

Result<RecordKey, std::string> decode_key(Bytes key) {
  if (key.size() < 2) return fail(std::string("key: shorter than its version"));
  const int16_t version = int16_t(load_be16(key.data()));
  if (version <= 1) {
    OffsetKeyWire w;
    if (auto r = decode(key, 0, 1, w, "offset commit key"); !r) return fail(r.error());
    return RecordKey{OffsetKey{std::move(w.group), std::move(w.topic), w.partition}};
  }
  if (version == 2) {
    GroupKeyWire w;
    if (auto r = decode(key, 2, 2, w, "group metadata key"); !r) return fail(r.error());
    return RecordKey{GroupKey{std::move(w.group)}};
  }
  if (is_consumer_record(version)) {
    auto c = decode_consumer_key(key);
    if (!c) return fail(c.error());
    return RecordKey{std::move(*c)};
  }
  return fail("key version " + std::to_string(version) +
              " (a share-group or streams-group record, which this coordinator does not run)");
}

Result<OffsetValue, std::string> decode_offset_value(Bytes value) {
  OffsetValue o;
  OffsetValueWire w{o};
  if (auto r = decode(value, 0, kMaxValueVersion, w, "offset commit value"); !r) {
    return fail(r.error());
  }
  return o;
}

Result<GroupValue, std::string> decode_group_value(Bytes value) {
  GroupValue g;
  GroupValueWire w{g, {}};
  if (auto r = decode(value, 0, kMaxValueVersion, w, "group metadata value"); !r) {
    return fail(r.error());
  }
  for (MemberWire& m : w.members) g.members.push_back(std::move(m.m));
  return g;
}

int32_t partition_for_group(const std::string& group, int32_t partitions) {
  return coordinator_partition(group, partitions);
}

}  // namespace strata::group
