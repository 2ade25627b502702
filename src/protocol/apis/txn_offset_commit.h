// TxnOffsetCommit (key 28): a transactional producer commits consumer offsets to the
// group coordinator as part of its transaction; they become visible when it commits.
//
// Follows Kafka 4.0's schema: versions 0-5, flexible from 3. v1 is v0; v2 adds the
// leader epoch the offset was read under; v3 adds the member's generation, member id
// and group_instance_id (KIP-447), so a fenced member's commit can be refused; v4 may
// answer TRANSACTION_ABORTABLE; v5 is v4 on the wire, but under transaction version 2
// (KIP-890 part 2) it also adds the offsets partition to the transaction, as
// AddOffsetsToTxn would.
//
// Defaults are Kafka's: -1 for the generation and leader epoch; a nullable string with
// no stated default starts as "".
#pragma once

#include "protocol/message.h"

namespace strata::protocol {

struct TxnOffsetCommitRequest {
  static constexpr int16_t kApiKey = 28;
  static constexpr Versions kVersions{0, 5};
  static constexpr int16_t kFlexibleFrom = 3;

  struct Partition {
    int32_t partition_index = 0;
    int64_t committed_offset = 0;
    int32_t committed_leader_epoch = -1;  // v2+
    std::optional<std::string> committed_metadata = "";
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(committed_offset, F{{0}});
      v(committed_leader_epoch, F{{2}});
      v(committed_metadata, F{{0}, {0}});
    }
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partitions, F{{0}});
    }
  };

  std::string transactional_id;
  std::string group_id;
  int64_t producer_id = 0;
  int16_t producer_epoch = 0;
  int32_t generation_id = -1;                    // v3+; -1: not checked
  std::string member_id;                         // v3+
  std::optional<std::string> group_instance_id;  // v3+; null: a dynamic member
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(transactional_id, F{{0}});
    v(group_id, F{{0}});
    v(producer_id, F{{0}});
    v(producer_epoch, F{{0}});
    v(generation_id, F{{3}});
    v(member_id, F{{3}});
    v(group_instance_id, F{{3}, {3}});
    v(topics, F{{0}});
  }
};

struct TxnOffsetCommitResponse {
  static constexpr int16_t kApiKey = TxnOffsetCommitRequest::kApiKey;
  static constexpr Versions kVersions = TxnOffsetCommitRequest::kVersions;
  static constexpr int16_t kFlexibleFrom = TxnOffsetCommitRequest::kFlexibleFrom;

  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    template <class V>
    void visit(V& v) {
      v(partition_index, F{{0}});
      v(error_code, F{{0}});
    }
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
    template <class V>
    void visit(V& v) {
      v(name, F{{0}});
      v(partitions, F{{0}});
    }
  };

  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;

  template <class V>
  void visit(V& v) {
    v(throttle_time_ms, F{{0}});
    v(topics, F{{0}});
  }
};

}  // namespace strata::protocol
