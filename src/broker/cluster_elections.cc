// Elections asked for (issue 15, item 5): ElectLeaders in a cluster, and the controller's
// automatic leader rebalance. The states come from cluster/elections.h; each is written
// as a compare-and-swap on the partition's state key, as the controller's own changes
// are, so a concurrent change wins and the election is tried again from the newer view.
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "broker/poll_until.h"
#include "cluster/elections.h"
#include "cluster/node.h"
#include "common/log_limit.h"

namespace strata::broker {

namespace {

using namespace std::chrono_literals;

// Every partition of every topic of the view (ElectLeaders with a null list).
std::vector<storage::TopicPartition> all_partitions(const cluster::ClusterView& v) {
  std::vector<storage::TopicPartition> out;
  for (const auto& [topic, entry] : v.topics) {
    for (size_t p = 0; p < entry.assignment.replicas.size(); ++p) out.push_back({topic, PartitionId(int32_t(p))});
  }
  return out;
}

}  // namespace

asio::awaitable<std::vector<ElectionResult>> Broker::elect_leaders(
    cluster::ElectionType type, const std::optional<std::vector<storage::TopicPartition>>& which,
    int32_t timeout_ms) {
  static LogLimit failures("election write failed");
  std::shared_ptr<const cluster::ClusterView> view = cluster_->view();
  const std::vector<storage::TopicPartition> asked = which ? *which : all_partitions(*view);
  std::vector<ElectionResult> out;
  std::vector<std::pair<storage::TopicPartition, int32_t>> elected;  // (partition, its new leader epoch)
  for (const storage::TopicPartition& tp : asked) {
    ElectionResult r{tp, KafkaError::kNone};
    const int32_t p = tp.partition.value();
    // A write that loses to a concurrent change is tried again from the newer view.
    for (int attempt = 0; attempt < 3; ++attempt) {
      auto topic = view->topics.find(tp.topic);
      const cluster::StateEntry* s = view->state(tp.topic, p);
      if (topic == view->topics.end() || p < 0 || size_t(p) >= topic->second.assignment.replicas.size()) {
        r.error = KafkaError::kUnknownTopicOrPartition;
        break;
      }
      if (s == nullptr) {
        r.error = KafkaError::kLeaderNotAvailable;
        break;
      }
      auto next = cluster::elect(*view, s->state, topic->second.assignment.replicas[size_t(p)], type);
      if (!next) {
        r.error = next.error();
        break;
      }
      cluster::TxnRequest t;
      const std::string key = cluster_->keys().partition_state(tp.topic, p);
      t.compare.push_back({key, cluster::Compare::Target::kMod, cluster::Compare::Result::kEqual, s->mod_revision, ""});
      t.success.push_back({cluster::Op::Kind::kPut, key, "", cluster::encode_partition_state(*next), 0});
      auto written = co_await blocking([this, &t] { return cluster_->etcd().txn(t); });
      if (!written) {
        failures.warn("election of {}-{}: {}", tp.topic, p, written.error().message);
        r.error = KafkaError::kRequestTimedOut;
        r.message = "the cluster's metadata store is unavailable: " + written.error().message;
        break;
      }
      if (written->succeeded) {
        spdlog::info("{}-{}: {} election: broker {} leads at epoch {}", tp.topic, p,
                     type == cluster::ElectionType::kPreferred ? "preferred" : "unclean", next->leader,
                     next->leader_epoch);
        elected.emplace_back(tp, next->leader_epoch);
        r.error = KafkaError::kNone;
        break;
      }
      r.error = KafkaError::kRequestTimedOut;  // lost three times to concurrent changes
      asio::steady_timer pause(co_await asio::this_coro::executor, 20ms);
      co_await pause.async_wait(asio::use_awaitable);
      view = cluster_->view();
    }
    // Kafka's answer to "every partition" leaves out those that needed no election.
    if (!which && r.error == KafkaError::kElectionNotNeeded) continue;
    out.push_back(std::move(r));
  }
  // Answered once this broker's metadata shows every new leader (at most timeout_ms).
  co_await poll_until(
      [this, &elected] {
        auto snapshot = metadata();
        for (const auto& [tp, epoch] : elected) {
          const PartitionMeta* m = snapshot->partition(tp.topic, tp.partition.value());
          if (m == nullptr || m->leader_epoch < epoch) return false;
        }
        return true;
      },
      std::chrono::milliseconds(std::max(timeout_ms, 0)));
  co_return out;
}

// The controller's rebalance round (leader.imbalance.check.interval.seconds): preferred
// elections where a broker's share of partitions it prefers but does not lead is above
// leader.imbalance.per.broker.percentage, written fenced by the controller epoch.
void Broker::rebalance_leaders() {
  const int64_t epoch = cluster_->controller_epoch();
  if (epoch == 0) return;
  auto view = cluster_->view();
  const auto plan = cluster::plan_preferred_elections(*view, epoch, config_.leader_imbalance_per_broker_percentage);
  if (plan.empty()) return;
  spdlog::info("controller: leader rebalance moves {} partitions to their preferred replicas", plan.size());
  cluster::write_state_changes(cluster_->etcd(), cluster_->keys(), plan, epoch);
}

}  // namespace strata::broker
