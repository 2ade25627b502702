// txn_protocol BOOTSTRAP TOPIC MAX_TIMEOUT_MS: the transaction protocol spoken directly
// (KafkaClient on the protocol definitions) to a running broker, for what no client
// library sends. TOPIC must exist with 2 partitions and be empty; MAX_TIMEOUT_MS is
// the broker's transaction.max.timeout.ms. Starts nothing (txn_protocol.py starts the
// broker and runs this). Each check prints "ok   ..." or "FAIL ..."; the exit status
// is 1 if any failed. Kafka's behaviour is the expectation throughout:
//   - TV2 (EndTxn v5, KIP-890): a commit answers epoch+1 and its marker carries it; a
//     retry with the old epoch answers the same new epoch; once the next transaction
//     has begun, a delayed EndTxn with the old epoch is PRODUCER_FENCED and leaves it
//     Ongoing;
//   - TV1 (EndTxn v1/v3): a stale epoch is PRODUCER_FENCED from v2, INVALID_PRODUCER_EPOCH
//     before;
//   - AddPartitionsToTxn v4 verify_only; WriteTxnMarkers v1 ending a transaction on a
//     partition, and refusing older producer or coordinator epochs; a control batch in
//     Produce is INVALID_RECORD; a timeout above
//     transaction.max.timeout.ms is INVALID_TRANSACTION_TIMEOUT.
// Last, it leaves a hanging transaction (a transactional batch on partition 1 that its
// coordinator never heard of, last timestamp 20 minutes ago) and prints
// "HANGING <partition> <start offset> <producer id> <epoch>" for the wrapper to find
// and abort with `strata txn`; or "NO-HANGING <error>" if the broker refused the batch
// (Kafka's partition verification, KIP-890 part 1, refuses it).
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "protocol/apis/add_partitions_to_txn.h"
#include "protocol/apis/describe_producers.h"
#include "protocol/apis/describe_transactions.h"
#include "protocol/apis/end_txn.h"
#include "protocol/apis/find_coordinator.h"
#include "protocol/apis/init_producer_id.h"
#include "protocol/apis/list_offsets.h"
#include "protocol/apis/produce.h"
#include "protocol/apis/write_txn_markers.h"
#include "record/batch_builder.h"
#include "record/control.h"
#include "client/kafka_client.h"
#include "protocol_checks.h"

using namespace strata;
using namespace strata::protocol;
using strata::client::KafkaClient;
using namespace strata::compat;

namespace {

constexpr int32_t kTxnTimeoutMs = 60000;
constexpr int64_t kMinuteMs = 60 * 1000;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string err(int16_t code) {
  return client::kafka_error_name(code);
}

struct Pid {
  int64_t id = -1;
  int16_t epoch = -1;
};

class Session {
 public:
  Session(KafkaClient& client, std::string topic) : c_(client), topic_(std::move(topic)) {}

  InitProducerIdResponse init(const std::string& id, int32_t timeout_ms) {
    InitProducerIdRequest r;
    r.transactional_id = id;
    r.transaction_timeout_ms = timeout_ms;
    return must<InitProducerIdResponse>(c_, r);
  }

  // AddPartitionsToTxn v3 (what clients send): the partition's error code.
  int16_t add(const std::string& id, Pid p, int32_t partition) {
    At<AddPartitionsToTxnRequest, 3> r;
    r.v3_and_below_transactional_id = id;
    r.v3_and_below_producer_id = p.id;
    r.v3_and_below_producer_epoch = p.epoch;
    r.v3_and_below_topics = {{topic_, {partition}}};
    auto a = must<AddPartitionsToTxnResponse>(c_, r);
    if (a.results_by_topic_v3_and_below.size() != 1 ||
        a.results_by_topic_v3_and_below[0].results_by_partition.size() != 1) {
      die("AddPartitionsToTxn v3: no result for the partition");
    }
    return a.results_by_topic_v3_and_below[0].results_by_partition[0].partition_error_code;
  }

  // EndTxn in version V.
  template <int16_t V>
  EndTxnResponse end(const std::string& id, Pid p, bool commit) {
    At<EndTxnRequest, V> r;
    r.transactional_id = id;
    r.producer_id = p.id;
    r.producer_epoch = p.epoch;
    r.committed = commit;
    return must<EndTxnResponse>(c_, r);
  }

  // Produces one batch to `partition`: its error code and base offset.
  std::pair<int16_t, int64_t> produce(const std::optional<std::string>& txn_id, int32_t partition,
                                      std::vector<uint8_t> batch) {
    ProduceRequest r;
    r.transactional_id = txn_id;
    r.acks = -1;
    r.timeout_ms = 10000;
    ProduceRequest::PartitionData d;
    d.index = partition;
    d.records.data = MutableBytes(batch);
    r.topic_data.push_back({topic_, {d}});
    auto a = must<ProduceResponse>(c_, r);
    if (a.responses.size() != 1 || a.responses[0].partition_responses.size() != 1) {
      die("Produce: no answer for the partition");
    }
    const auto& pr = a.responses[0].partition_responses[0];
    return {pr.error_code, pr.base_offset};
  }

  // A transactional batch of `values` at sequence 0 for producer `p`.
  static std::vector<uint8_t> txn_batch(Pid p, int64_t timestamp_ms,
                                        const std::vector<std::string>& values) {
    record::BatchOptions o;
    o.transactional = true;
    o.producer_id = ProducerId(p.id);
    o.producer_epoch = ProducerEpoch(p.epoch);
    o.base_sequence = Sequence(0);
    record::BatchBuilder b(o);
    for (const std::string& v : values) b.append(timestamp_ms, std::nullopt, as_bytes(v));
    auto batch = b.finish();
    if (!batch) die("BatchBuilder failed");
    return std::move(*batch);
  }

  DescribeTransactionsResponse::TransactionState describe(const std::string& id) {
    DescribeTransactionsRequest r;
    r.transactional_ids = {id};
    auto a = must<DescribeTransactionsResponse>(c_, r);
    if (a.transaction_states.size() != 1) die("DescribeTransactions: no answer for " + id);
    return a.transaction_states[0];
  }

  // Waits (up to 10 s) until the transaction leaves PrepareCommit/PrepareAbort: the
  // coordinator answers EndTxn before its markers are written.
  DescribeTransactionsResponse::TransactionState settled(const std::string& id) {
    for (int i = 0; i < 100; ++i) {
      auto s = describe(id);
      if (s.transaction_state.rfind("Prepare", 0) != 0) return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return describe(id);
  }

  // The partition's DescribeProducers entry for producer `pid` (nullopt: not listed).
  std::optional<DescribeProducersResponse::ProducerState> producer(int32_t partition, int64_t pid) {
    DescribeProducersRequest r;
    r.topics = {{topic_, {partition}}};
    auto a = must<DescribeProducersResponse>(c_, r);
    if (a.topics.size() != 1 || a.topics[0].partitions.size() != 1) {
      die("DescribeProducers: no answer for the partition");
    }
    for (const auto& s : a.topics[0].partitions[0].active_producers) {
      if (s.producer_id == pid) return s;
    }
    return std::nullopt;
  }

  // ListOffsets latest: the high watermark (read_uncommitted) or the last stable offset.
  int64_t latest(int32_t partition, bool read_committed) {
    ListOffsetsRequest r;
    r.replica_id = -1;
    r.isolation_level = read_committed ? 1 : 0;
    r.topics = {{topic_, {{partition, -1, -1, 1}}}};
    auto a = must<ListOffsetsResponse>(c_, r);
    if (a.topics.size() != 1 || a.topics[0].partitions.size() != 1) die("ListOffsets: no answer");
    return a.topics[0].partitions[0].offset;
  }

  // WriteTxnMarkers v1 (Kafka 4.0's only version) for one partition: its error code.
  int16_t marker(int32_t partition, Pid p, int32_t coordinator_epoch, bool commit) {
    At<WriteTxnMarkersRequest, 1> r;
    r.markers.push_back({p.id, p.epoch, commit, {{topic_, {partition}}}, coordinator_epoch, 0});
    auto a = must<WriteTxnMarkersResponse>(c_, r);
    if (a.markers.size() != 1 || a.markers[0].producer_id != p.id ||
        a.markers[0].topics.size() != 1 || a.markers[0].topics[0].partitions.size() != 1) {
      die("WriteTxnMarkers: no answer for the partition");
    }
    return a.markers[0].topics[0].partitions[0].error_code;
  }

  const std::string& topic() const { return topic_; }
  KafkaClient& client() { return c_; }

 private:
  KafkaClient& c_;
  std::string topic_;
};

Pid init_ok(Session& s, const std::string& id) {
  auto r = s.init(id, kTxnTimeoutMs);
  check(r.error_code == kafka_error::kNone && r.producer_id >= 0,
        "InitProducerId '" + id + "': producer " + std::to_string(r.producer_id) + " epoch " +
            std::to_string(r.producer_epoch) + " (" + err(r.error_code) + ")");
  return {r.producer_id, r.producer_epoch};
}

// TV2: EndTxn v5 bumps the epoch at every end; stale epochs are fenced, retries are not.
void transaction_v2(Session& s) {
  const std::string id = "proto-tv2";
  const Pid p = init_ok(s, id);
  check(s.add(id, p, 0) == kafka_error::kNone,
        "AddPartitionsToTxn v3: partition 0 joins the transaction");
  auto [error, base] = s.produce(id, 0, Session::txn_batch(p, now_ms(), {"a", "b"}));
  check(error == kafka_error::kNone && base == 0,
        "Produce: a transactional batch (sequence 0) at offset 0 (" + err(error) + ")");
  auto open = s.producer(0, p.id);
  check(open && open->current_txn_start_offset == 0,
        "DescribeProducers: the producer's transaction is open at offset 0");
  check(s.latest(0, true) == 0, "the last stable offset is held at 0 by the open transaction");

  auto end = s.end<5>(id, p, true);
  const Pid next{p.id, int16_t(p.epoch + 1)};
  check(end.error_code == kafka_error::kNone && end.producer_id == p.id &&
            end.producer_epoch == next.epoch,
        "EndTxn v5 commit: answers the same producer id at epoch+1 (" + err(end.error_code) +
            ", epoch " + std::to_string(end.producer_epoch) + ")");
  auto d = s.settled(id);
  check(d.transaction_state == "CompleteCommit" && d.producer_epoch == next.epoch,
        "DescribeTransactions: CompleteCommit at epoch+1 (" + d.transaction_state + ", epoch " +
            std::to_string(d.producer_epoch) + ")");
  open = s.producer(0, p.id);
  check(open && open->current_txn_start_offset == -1 && open->producer_epoch == next.epoch,
        "the COMMIT marker ended the transaction on partition 0, carrying epoch+1");
  check(s.latest(0, true) == s.latest(0, false),
        "the last stable offset is the high watermark again");

  end = s.end<5>(id, p, true);
  check(end.error_code == kafka_error::kNone && end.producer_id == p.id &&
            end.producer_epoch == next.epoch,
        "a retried EndTxn v5 commit with the old epoch: success, the same new epoch (" +
            err(end.error_code) + ", epoch " + std::to_string(end.producer_epoch) + ")");
  end = s.end<5>(id, p, false);
  check(end.error_code == kafka_error::kInvalidTxnState,
        "a retried EndTxn v5 with the old epoch asking to abort: INVALID_TXN_STATE (" +
            err(end.error_code) + ")");

  check(s.add(id, next, 0) == kafka_error::kNone,
        "AddPartitionsToTxn v3 with epoch+1: the next transaction");
  end = s.end<5>(id, p, true);
  check(end.error_code == kafka_error::kProducerFenced,
        "a delayed EndTxn v5 with the old epoch: PRODUCER_FENCED (" + err(end.error_code) + ")");
  d = s.describe(id);
  check(d.transaction_state == "Ongoing" && d.producer_epoch == next.epoch,
        "and the new transaction is still Ongoing at epoch+1 (" + d.transaction_state + ")");

  At<AddPartitionsToTxnRequest, 4> verify;
  verify.transactions.push_back({id, next.id, next.epoch, true, {{s.topic(), {0, 1}}}});
  auto v = must<AddPartitionsToTxnResponse>(s.client(), verify);
  int16_t in = -1, out = -1;
  for (const auto& t : v.results_by_transaction) {
    for (const auto& tr : t.topic_results) {
      for (const auto& pr : tr.results_by_partition) {
        (pr.partition_index == 0 ? in : out) = pr.partition_error_code;
      }
    }
  }
  check(v.error_code == kafka_error::kNone && in == kafka_error::kNone &&
            out == kafka_error::kInvalidTxnState,
        "AddPartitionsToTxn v4 verify_only: 0 for partition 0 (in the transaction), "
        "INVALID_TXN_STATE for partition 1 (" +
            err(in) + ", " + err(out) + ")");
  d = s.describe(id);
  check(d.topics.size() == 1 && d.topics[0].partitions == std::vector<int32_t>{0},
        "verify_only added nothing to the transaction");

  end = s.end<5>(id, next, false);
  check(end.error_code == kafka_error::kNone && end.producer_epoch == next.epoch + 1,
        "EndTxn v5 abort of the next transaction: epoch+2 (" + err(end.error_code) + ")");
  s.settled(id);
}

// TV1 (EndTxn v0-4): the epoch stays; a stale one is fenced, named by version.
// Returns the producer, with an open transaction on partition 1, for the marker checks.
Pid transaction_v1(Session& s) {
  const std::string id = "proto-tv1";
  const Pid old = init_ok(s, id);
  const Pid p = init_ok(s, id);
  check(p.id == old.id && p.epoch == old.epoch + 1, "a second InitProducerId bumps the epoch");
  auto end = s.end<3>(id, old, true);
  check(end.error_code == kafka_error::kProducerFenced,
        "EndTxn v3 with the stale epoch: PRODUCER_FENCED (" + err(end.error_code) + ")");
  end = s.end<1>(id, old, true);
  check(end.error_code == kafka_error::kInvalidProducerEpoch,
        "EndTxn v1 with the stale epoch: INVALID_PRODUCER_EPOCH (" + err(end.error_code) + ")");
  return p;
}

// WriteTxnMarkers v1 from "a coordinator" ends the producer's transaction on a
// partition; the transaction then ends at the coordinator as usual.
void markers(Session& s, Pid p) {
  const std::string id = "proto-tv1";
  check(s.add(id, p, 1) == kafka_error::kNone, "AddPartitionsToTxn v3: partition 1");
  auto [error, base] = s.produce(id, 1, Session::txn_batch(p, now_ms(), {"x"}));
  check(error == kafka_error::kNone,
        "Produce: a transactional batch to partition 1 (" + err(error) + ")");
  auto open = s.producer(1, p.id);
  check(open && open->current_txn_start_offset == base,
        "DescribeProducers: the transaction is open at offset " + std::to_string(base));

  int16_t e = s.marker(1, p, 0, true);
  check(e == kafka_error::kNone,
        "WriteTxnMarkers v1 COMMIT for partition 1: written (" + err(e) + ")");
  open = s.producer(1, p.id);
  check(open && open->current_txn_start_offset == -1 && open->coordinator_epoch == 0,
        "the partition's transaction is over; the marker's coordinator epoch 0 is recorded");
  check(s.latest(1, true) == s.latest(1, false) && s.latest(1, false) == base + 2,
        "the last stable offset is the high watermark, past the marker");
  e = s.marker(1, {p.id, int16_t(p.epoch - 1)}, 0, false);
  check(e == kafka_error::kInvalidProducerEpoch,
        "WriteTxnMarkers with an older producer epoch: INVALID_PRODUCER_EPOCH (" + err(e) + ")");
  e = s.marker(1, p, -1, false);
  check(e == kafka_error::kTransactionCoordinatorFenced,
        "WriteTxnMarkers with an older coordinator epoch: TRANSACTION_COORDINATOR_FENCED (" +
            err(e) + ")");
  check(s.latest(1, false) == base + 2, "neither wrote anything");

  auto end = s.end<3>(id, p, true);
  check(end.error_code == kafka_error::kNone,
        "EndTxn v3 commits the transaction at the coordinator (" + err(end.error_code) + ")");
  check(s.settled(id).transaction_state == "CompleteCommit", "CompleteCommit");

  record::EndTxnMarker marker{record::ControlType::kCommit, 0};
  record::ControlBatchOptions o;
  o.producer_id = ProducerId(p.id);
  o.producer_epoch = ProducerEpoch(p.epoch);
  o.timestamp_ms = now_ms();
  const int64_t high = s.latest(1, false);
  auto [control_error, control_base] = s.produce(id, 1, record::build_end_txn_batch(marker, o));
  check(control_error == kafka_error::kInvalidRecord && s.latest(1, false) == high,
        "Produce of a control batch (a COMMIT marker): INVALID_RECORD, nothing written (" +
            err(control_error) + ")");
}

void timeouts(Session& s, int32_t max_timeout_ms) {
  auto r = s.init("proto-timeout", max_timeout_ms + 1);
  check(r.error_code == kafka_error::kInvalidTransactionTimeout,
        "InitProducerId with a timeout over transaction.max.timeout.ms: "
        "INVALID_TRANSACTION_TIMEOUT (" +
            err(r.error_code) + ")");
  r = s.init("proto-timeout", max_timeout_ms);
  check(r.error_code == kafka_error::kNone,
        "InitProducerId with transaction.max.timeout.ms itself: accepted");
}

// A transaction its coordinator never heard of (no AddPartitionsToTxn): how hanging
// transactions arose before KIP-890.
void leave_hanging(Session& s) {
  const std::string id = "proto-hang";
  const Pid p = init_ok(s, id);
  auto [error, base] =
      s.produce(id, 1, Session::txn_batch(p, now_ms() - 20 * kMinuteMs, {"hanging"}));
  if (error != kafka_error::kNone) {
    std::cout << "NO-HANGING " << err(error) << std::endl;
    return;
  }
  std::cout << "HANGING 1 " << base << " " << p.id << " " << p.epoch << std::endl;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: txn_protocol BOOTSTRAP TOPIC MAX_TIMEOUT_MS\n";
    return 2;
  }
  auto at = client::parse_host_port(argv[1]);
  if (!at) die(at.error());
  auto client = KafkaClient::connect(*at, 30000, "txn-protocol");
  if (!client) die(client.error().message);
  for (auto [key, version] : {std::pair<int16_t, int16_t>{EndTxnRequest::kApiKey, 5},
                              {AddPartitionsToTxnRequest::kApiKey, 4},
                              {WriteTxnMarkersRequest::kApiKey, 1}}) {
    if (!client->pick_version(key, {version, version})) {
      die(client::api_name(key) + " v" + std::to_string(version) + " is not served");
    }
  }
  FindCoordinatorRequest find;
  find.key = "proto-tv2";
  find.key_type = 1;
  find.coordinator_keys = {"proto-tv2"};
  must<FindCoordinatorResponse>(*client, find);  // creates __transaction_state if needed
  Session s(*client, argv[2]);
  transaction_v2(s);
  markers(s, transaction_v1(s));
  timeouts(s, std::atoi(argv[3]));
  leave_hanging(s);
  return exit_status("txn_protocol");
}
