// fetch_sessions BOOTSTRAP SLOTS: incremental fetch sessions (KIP-227) spoken directly
// (KafkaClient on the protocol definitions) to a running broker whose
// max.incremental.fetch.session.cache.slots is SLOTS. The Java consumer and replica
// fetchers use sessions; librdkafka, kafka-python and kafkajs do not, so this program
// plays the Java client's FetchSessionHandler. Creates its own topics. Each check
// prints "ok   ..." or "FAIL ..."; the exit status is 1 if any failed. Expectations are
// Kafka's (FetchSession.scala):
//   - a full fetch (epoch 0) opens a session; incremental fetches (epoch 1, 2, ...) read
//     every session partition at its cached offset and list only partitions with
//     records, a new high watermark or log start offset, or an error;
//   - a long poll in a session is woken by an append to any session partition;
//     forgotten partitions are no longer read; partitions that returned records go to
//     the back, so a small response limit serves each in turn;
//   - wrong epoch: INVALID_FETCH_SESSION_EPOCH; unknown id: FETCH_SESSION_ID_NOT_FOUND;
//     v13 (topic ids) on a v12 session: FETCH_SESSION_TOPIC_ID_ERROR; epoch -1 closes;
//   - topic-id sessions (v13+); when SLOTS sessions exist, a new one gets session id 0
//     and full fetches still work.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "protocol/apis/create_topics.h"
#include "protocol/apis/fetch.h"
#include "protocol/apis/metadata.h"
#include "protocol/apis/produce.h"
#include "record/batch_builder.h"
#include "client/kafka_client.h"
#include "protocol_checks.h"

using namespace strata;
using namespace strata::protocol;
using strata::client::KafkaClient;
using namespace strata::compat;

namespace {

const std::string kTopic = "sessions";
const std::string kOther = "sessions-ids";

KafkaClient connect(const client::HostPort& at) {
  auto c = KafkaClient::connect(at, 30000, "fetch-sessions");
  if (!c) die(c.error().message);
  return std::move(*c);
}

void create_topic(KafkaClient& c, const std::string& name, int32_t partitions) {
  CreateTopicsRequest r;
  CreateTopicsRequest::Topic t;
  t.name = name;
  t.num_partitions = partitions;
  t.replication_factor = 1;
  r.topics.push_back(t);
  r.timeout_ms = 10000;
  auto a = must<CreateTopicsResponse>(c, r);
  if (a.topics.size() != 1 || a.topics[0].error_code != 0) die("CreateTopics " + name);
}

Uuid topic_id(KafkaClient& c, const std::string& name) {
  MetadataRequest r;
  r.topics = std::vector<MetadataRequest::Topic>{{}};
  (*r.topics)[0].name = name;
  auto a = must<MetadataResponse>(c, r);
  if (a.topics.size() != 1 || a.topics[0].topic_id.is_zero()) die("Metadata: no id for " + name);
  return a.topics[0].topic_id;
}

// Appends `n` records of `value_bytes` to `partition` of `topic` in one batch; dies
// unless acknowledged. Returns the batch's size.
size_t produce(KafkaClient& c, const std::string& topic, int32_t partition, int n,
               size_t value_bytes = 100) {
  record::BatchBuilder b(record::BatchOptions{});
  const std::string value(value_bytes, 'v');
  for (int i = 0; i < n; ++i) b.append(0, std::nullopt, as_bytes(value));
  auto batch = b.finish();
  if (!batch) die("BatchBuilder failed");
  ProduceRequest r;
  r.acks = -1;
  r.timeout_ms = 10000;
  ProduceRequest::PartitionData d;
  d.index = partition;
  d.records.data = MutableBytes(*batch);
  r.topic_data.push_back({topic, {d}});
  auto a = must<ProduceResponse>(c, r);
  if (a.responses.size() != 1 || a.responses[0].partition_responses.size() != 1 ||
      a.responses[0].partition_responses[0].error_code != 0) {
    die("Produce to " + topic + "-" + std::to_string(partition));
  }
  return batch->size();
}

// What a fetch answered, flattened: (partition, error, high watermark, record bytes).
struct Part {
  int32_t partition;
  int16_t error;
  int64_t high_watermark;
  uint64_t bytes;
};
struct Answer {
  int16_t error = 0;
  int32_t session_id = 0;
  std::vector<Part> parts;
  std::vector<std::string> topics;  // one per response topic entry
  std::vector<Uuid> topic_ids;
  double seconds = 0;
  std::string show() const {
    std::string s = "error " + std::to_string(error) + " session " + std::to_string(session_id) + " [";
    for (const auto& p : parts) {
      s += " p" + std::to_string(p.partition) + " e" + std::to_string(p.error) + " hw" +
           std::to_string(p.high_watermark) + " " + std::to_string(p.bytes) + "B";
    }
    return s + " ]";
  }
  const Part* find(int32_t partition) const {
    for (const auto& p : parts) {
      if (p.partition == partition) return &p;
    }
    return nullptr;
  }
};

// A fetch request in version V: `partitions` (partition, fetch offset) of one topic,
// `forget` partitions of it to drop from the session.
template <int16_t V>
struct Fetch {
  int32_t session_id = 0;
  int32_t epoch = 0;
  std::string topic = kTopic;
  Uuid id;
  std::vector<std::pair<int32_t, int64_t>> partitions;
  std::vector<int32_t> forget;
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 50 << 20;
  int32_t partition_max_bytes = 1 << 20;

  Answer send(KafkaClient& c) const {
    At<FetchRequest, V> r;
    r.session_id = session_id;
    r.session_epoch = epoch;
    r.max_wait_ms = max_wait_ms;
    r.min_bytes = min_bytes;
    r.max_bytes = max_bytes;
    if (!partitions.empty()) {
      FetchRequest::FetchTopic t;
      t.topic = topic;
      t.topic_id = id;
      for (auto [p, offset] : partitions) {
        FetchRequest::FetchPartition fp;
        fp.partition = p;
        fp.fetch_offset = offset;
        fp.partition_max_bytes = partition_max_bytes;
        t.partitions.push_back(fp);
      }
      r.topics.push_back(t);
    }
    if (!forget.empty()) r.forgotten_topics_data.push_back({topic, id, forget});
    const auto start = std::chrono::steady_clock::now();
    auto a = must<FetchResponse>(c, r);
    Answer out;
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out.error = a.error_code;
    out.session_id = a.session_id;
    for (const auto& t : a.responses) {
      out.topics.push_back(t.topic);
      out.topic_ids.push_back(t.topic_id);
      for (const auto& p : t.partitions) {
        out.parts.push_back({p.partition_index, p.error_code, p.high_watermark, p.records.size()});
      }
    }
    return out;
  }
};

std::vector<int32_t> partitions_of(const Answer& a) {
  std::vector<int32_t> out;
  for (const auto& p : a.parts) out.push_back(p.partition);
  return out;
}

// The main walk through one consumer's session on kTopic (3 partitions, empty).
void session_walk(KafkaClient& c, const client::HostPort& at) {
  produce(c, kTopic, 0, 10);
  Fetch<12> full;
  full.partitions = {{0, 0}, {1, 0}, {2, 0}};
  Answer a = full.send(c);
  check(a.error == 0 && a.session_id != 0 && a.parts.size() == 3 && a.parts[0].bytes > 0 &&
            a.parts[0].high_watermark == 10 && a.parts[1].bytes == 0,
        "full fetch (epoch 0) opens a session and answers all 3 partitions: " + a.show());
  const int32_t id = a.session_id;

  Fetch<12> inc;
  inc.session_id = id;
  inc.epoch = 1;
  inc.partitions = {{0, 10}};  // the consumer advanced partition 0 only
  inc.max_wait_ms = 200;
  inc.min_bytes = 1;
  a = inc.send(c);
  check(a.error == 0 && a.session_id == id && a.parts.empty() && a.seconds >= 0.15,
        "incremental fetch with nothing new lists no partition, after max.wait.ms: " + a.show());

  produce(c, kTopic, 2, 5);
  inc.epoch = 2;
  inc.partitions = {};
  a = inc.send(c);
  check(a.error == 0 && partitions_of(a) == std::vector<int32_t>{2} && a.parts[0].bytes > 0 &&
            a.parts[0].high_watermark == 5,
        "an append to partition 2 (not listed in the request): only partition 2 answered: " +
            a.show());

  // Long poll woken by an append on partition 1 from another connection.
  inc.epoch = 3;
  inc.partitions = {{2, 5}};
  inc.max_wait_ms = 10000;
  std::thread producer([&at] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    KafkaClient other = connect(at);
    produce(other, kTopic, 1, 3);
  });
  a = inc.send(c);
  producer.join();
  check(a.error == 0 && partitions_of(a) == std::vector<int32_t>{1} && a.parts[0].bytes > 0 &&
            a.seconds < 5,
        "a long poll (max.wait.ms 10 s) is woken by an append to a session partition: " +
            a.show() + " in " + std::to_string(a.seconds) + " s");

  inc.epoch = 4;
  inc.partitions = {{1, 3}};
  inc.forget = {0};
  inc.max_wait_ms = 0;
  inc.min_bytes = 0;
  a = inc.send(c);
  check(a.error == 0 && a.parts.empty(), "forgetting partition 0: " + a.show());
  produce(c, kTopic, 0, 4);
  inc.epoch = 5;
  inc.partitions = {};
  inc.forget = {};
  a = inc.send(c);
  check(a.error == 0 && a.parts.empty(),
        "records appended to the forgotten partition 0 are not answered: " + a.show());

  inc.epoch = 9;
  a = inc.send(c);
  check(a.error == kafka_error::kInvalidFetchSessionEpoch && a.parts.empty(),
        "epoch 9 where 6 is due: INVALID_FETCH_SESSION_EPOCH: " + a.show());
  inc.epoch = 6;
  inc.partitions = {{0, 0}, {7, 0}};  // partition 0 again, and one that does not exist
  a = inc.send(c);
  check(a.error == 0 && a.session_id == id && partitions_of(a) == std::vector<int32_t>{0, 7} &&
            a.parts[0].high_watermark == 14 &&
            a.parts[1].error == kafka_error::kUnknownTopicOrPartition,
        "the right epoch still works after the refused one; re-added partition 0 and an "
        "unknown partition 7 answered: " + a.show());
  inc.epoch = 7;
  inc.partitions = {};
  a = inc.send(c);
  check(a.error == 0 && partitions_of(a) == std::vector<int32_t>{7, 0} &&
            a.parts[0].error == kafka_error::kUnknownTopicOrPartition,
        "an erroring partition is answered every time; partition 0 (cached offset 0) again, "
        "now last, as it returned records: " +
            a.show());

  // Rotation: partitions that returned records go to the back (the session's order
  // is now 2, 1, 7, 0). Partitions 0 and 2 both have records at their cached offsets;
  // a 1-byte response limit gives one batch (KIP-74) to the first of them only.
  inc.epoch = 8;
  inc.partitions = {{2, 0}, {1, 3}, {7, 0}};
  inc.forget = {};
  inc.max_bytes = 1;
  std::vector<int32_t> served;
  for (int i = 0; i < 4; ++i, ++inc.epoch) {
    a = inc.send(c);
    if (i > 0) inc.partitions = {};
    for (const auto& p : a.parts) {
      if (p.bytes > 0) served.push_back(p.partition);
    }
  }
  check(served == std::vector<int32_t>{2, 0, 2, 0},
        "with a 1-byte response limit, partitions 0 and 2 take turns (served: " +
            [&] {
              std::string s;
              for (int32_t p : served) s += std::to_string(p) + " ";
              return s;
            }() + ")");

  Fetch<13> wrong;
  wrong.session_id = id;
  wrong.epoch = inc.epoch;
  a = wrong.send(c);
  check(a.error == kafka_error::kFetchSessionTopicIdError,
        "v13 (topic ids) on a session opened in v12: FETCH_SESSION_TOPIC_ID_ERROR: " + a.show());

  Fetch<12> close;
  close.session_id = id;
  close.epoch = -1;
  close.partitions = {{0, 14}};
  a = close.send(c);
  check(a.error == 0 && a.session_id == 0 && partitions_of(a) == std::vector<int32_t>{0},
        "epoch -1 closes the session and fetches without one: " + a.show());
  inc.max_bytes = 50 << 20;
  a = inc.send(c);
  check(a.error == kafka_error::kFetchSessionIdNotFound && a.session_id == 0,
        "the closed session is gone: FETCH_SESSION_ID_NOT_FOUND: " + a.show());

  Fetch<12> twice;
  twice.epoch = -1;
  twice.partitions = {{0, 0}, {2, 0}, {0, 14}};
  a = twice.send(c);
  check(a.error == 0 && partitions_of(a) == std::vector<int32_t>{0, 2} && a.parts[0].bytes == 0,
        "a partition listed twice is answered once, at its first place with its last "
        "fetch offset (14: nothing to read): " + a.show());
}

// A response larger than the broker's 1 MiB copy buffer: the test broker runs with
// strata.fetch.sendfile=false, so this is the pread + write path's multi-chunk loop.
void large_response(KafkaClient& c) {
  const std::string topic = "sessions-large";
  create_topic(c, topic, 1);
  size_t sent = 0;
  for (int i = 0; i < 3; ++i) sent += produce(c, topic, 0, 1000, 600);
  Fetch<12> f;
  f.topic = topic;
  f.epoch = -1;
  f.partitions = {{0, 0}};
  f.partition_max_bytes = 8 << 20;
  Answer a = f.send(c);
  check(a.error == 0 && a.parts.size() == 1 && a.parts[0].bytes == sent && sent > (1u << 20),
        "a " + std::to_string(sent) + "-byte fetch (3 batches, over the 1 MiB copy buffer) "
        "returns every byte: " + a.show());
}

void topic_id_session(KafkaClient& c) {
  const Uuid id = topic_id(c, kOther);
  produce(c, kOther, 1, 2);
  Fetch<16> full;
  full.topic = "";
  full.id = id;
  full.partitions = {{0, 0}, {1, 0}};
  Answer a = full.send(c);
  check(a.error == 0 && a.session_id != 0 && a.parts.size() == 2 && a.topic_ids.size() == 1 &&
            a.topic_ids[0] == id,
        "v16 full fetch by topic id opens a session: " + a.show());
  produce(c, kOther, 0, 1);
  Fetch<16> inc = full;
  inc.session_id = a.session_id;
  inc.epoch = 1;
  inc.partitions = {{1, 2}};
  Answer b = inc.send(c);
  check(b.error == 0 && b.session_id == a.session_id && partitions_of(b) == std::vector<int32_t>{0} &&
            b.topic_ids.size() == 1 && b.topic_ids[0] == id,
        "v16 incremental fetch answers by topic id, only the partition with new records: " +
            b.show());
  Fetch<12> by_name;
  by_name.session_id = a.session_id;
  by_name.epoch = 2;
  b = by_name.send(c);
  check(b.error == kafka_error::kFetchSessionTopicIdError,
        "v12 (names) on a topic-id session: FETCH_SESSION_TOPIC_ID_ERROR: " + b.show());
}

// Opens sessions up to `slots` (topic_id_session's is open; the walk closed its own);
// the next full fetch gets session id 0.
void cache_limit(KafkaClient& c, int slots) {
  int opened = 1;  // topic_id_session's
  for (; opened < slots; ++opened) {
    Fetch<12> full;
    full.partitions = {{0, 0}};
    Answer a = full.send(c);
    if (!check(a.session_id != 0, "session " + std::to_string(opened + 1) + " of " +
                                       std::to_string(slots) + " opens: " + a.show())) {
      return;
    }
  }
  Fetch<12> full;
  full.partitions = {{0, 0}, {2, 0}};
  Answer a = full.send(c);
  check(a.error == 0 && a.session_id == 0 && a.parts.size() == 2 && a.parts[0].bytes > 0,
        "with max.incremental.fetch.session.cache.slots=" + std::to_string(slots) +
            " sessions in use (all younger than 2 minutes), a new consumer's full fetch gets no "
            "session but its data: " + a.show());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fetch_sessions BOOTSTRAP SLOTS\n";
    return 2;
  }
  auto at = client::parse_host_port(argv[1]);
  if (!at) die(at.error());
  KafkaClient c = connect(*at);
  if (!c.pick_version(FetchRequest::kApiKey, {16, 16})) die("Fetch v16 is not served");
  create_topic(c, kTopic, 3);
  create_topic(c, kOther, 2);
  session_walk(c, *at);
  large_response(c);
  topic_id_session(c);
  cache_limit(c, std::atoi(argv[2]));
  return exit_status("fetch_sessions");
}
