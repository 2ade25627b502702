// The broker as a replicated partition's leader: whether it still leads (at an epoch),
// the high watermark after its own appends, and the ISR changes it writes to etcd
// (broker/replication.h has the rules); and whether its view surely holds.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include "broker/broker.h"
#include "cluster/node.h"
#include "common/log_limit.h"

namespace strata::broker {

int64_t Broker::broker_epoch() const { return cluster_ ? cluster_->broker_epoch() : -1; }

bool Broker::view_current() const { return cluster_ == nullptr || cluster_->session_current(); }

bool Broker::leads(const storage::TopicPartition& tp, int32_t leader_epoch) const {
  auto snapshot = metadata();
  const PartitionMeta* p = snapshot->partition(tp.topic, tp.partition.value());
  return p != nullptr && p->leader == config_.node_id && p->leader_epoch == leader_epoch;
}

void Broker::after_leader_append(const storage::TopicPartition& tp, storage::Log& log) {
  auto snapshot = metadata();
  const PartitionMeta* p = snapshot->partition(tp.topic, tp.partition.value());
  if (p == nullptr || !Replication::replicated(*p)) return;
  if (replication_->after_leader_append(tp, *p, log, now_ms())) fetch_waiters_.notify(tp);
}

// Each change is one transaction: the partition's state as this broker's view has it
// (its mod_revision) and this broker's registration (its broker epoch) must both be
// unchanged, so a deposed leader, or a leader whose view is behind the controller's
// latest write, changes nothing; the leader and its epoch stay, the partition epoch
// grows. A failed compare is dropped: the next maintenance round proposes again from
// the newer view.
asio::awaitable<void> Broker::propose_isr_changes(std::vector<IsrChange> changes) {
  static LogLimit failures("ISR change failed");
  std::shared_ptr<const cluster::ClusterView> view;
  {
    std::lock_guard lock(publish_mu_);
    view = cluster_view_;
  }
  if (!view || !cluster_) co_return;
  const cluster::Keys& keys = cluster_->keys();
  for (const IsrChange& c : changes) {
    const cluster::StateEntry* entry = view->state(c.tp.topic, c.tp.partition.value());
    if (entry == nullptr || entry->state.leader != config_.node_id ||
        entry->state.leader_epoch != c.leader_epoch) {
      continue;
    }
    cluster::PartitionState next = entry->state;
    next.isr = c.isr;
    ++next.partition_epoch;
    cluster::TxnRequest t;
    const std::string key = keys.partition_state(c.tp.topic, c.tp.partition.value());
    t.compare.push_back({key, cluster::Compare::Target::kMod, cluster::Compare::Result::kEqual, entry->mod_revision, ""});
    t.compare.push_back({keys.broker(config_.node_id), cluster::Compare::Target::kCreate,
                         cluster::Compare::Result::kEqual, broker_epoch(), ""});
    t.success.push_back({cluster::Op::Kind::kPut, key, "", cluster::encode_partition_state(next), 0});
    auto written = co_await blocking([this, &t] { return cluster_->etcd().txn(t); });
    if (!written) {
      failures.warn("ISR change of {}-{}: {}", c.tp.topic, c.tp.partition.value(), written.error().message);
      continue;
    }
    if (written->succeeded) {
      spdlog::info("{}-{}: ISR {} -> {} (partition epoch {})", c.tp.topic, c.tp.partition.value(),
                   fmt::join(entry->state.isr, ","), fmt::join(c.isr, ","), next.partition_epoch);
    }
  }
}

}  // namespace strata::broker
