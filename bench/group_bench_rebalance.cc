// Subscribed members of one group, and the time from one member's end (killed without
// leaving, or an orderly close) to the survivors holding every partition again.
#include <cstdio>
#include <cstring>

#include "group_bench.h"

namespace group_bench {

namespace {

constexpr int kPollMs = 20;  // how soon a member's thread sees that it must end

}  // namespace

struct SubscribedGroup::Member {
  SubscribedGroup* group = nullptr;
  int index = 0;
  rd_kafka_t* rk = nullptr;
  std::atomic<int> exit{0};  // 0 run, else 1 + int(Exit), set by end_member
  std::thread thread;
  bool ended = false;
  Clock::time_point ended_at;     // written by the thread before it finishes
  std::vector<int32_t> held;      // under group->mu_
  Clock::time_point assigned_at;  // under group->mu_: when `held` last changed
};

void SubscribedGroup::on_rebalance(rd_kafka_t* rk, rd_kafka_resp_err_t err,
                                   rd_kafka_topic_partition_list_t* partitions, void* opaque) {
  auto* m = static_cast<Member*>(opaque);
  std::vector<int32_t> held;
  rd_kafka_resp_err_t e;
  if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
    e = rd_kafka_assign(rk, partitions);
    for (int i = 0; i < partitions->cnt; ++i) held.push_back(partitions->elems[i].partition);
  } else {
    e = rd_kafka_assign(rk, nullptr);  // revoke, and any other error: give everything up
  }
  if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
    std::fprintf(stderr, "group_bench: member %d: assign: %s\n", m->index, rd_kafka_err2str(e));
  }
  m->group->on_assignment(m->index, std::move(held));
}

SubscribedGroup::SubscribedGroup(const Target& target, const Options& o,
                                 const std::string& group_id, const std::string& topic,
                                 int members) {
  for (int i = 0; i < members; ++i) {
    auto m = std::make_unique<Member>();
    m->group = this;
    m->index = i;
    rd_kafka_conf_t* conf = consumer_conf(target, group_id);
    set(conf, "session.timeout.ms", std::to_string(o.session_timeout_ms));
    set(conf, "heartbeat.interval.ms", std::to_string(o.heartbeat_interval_ms));
    set(conf, "partition.assignment.strategy", "range");  // eager: revoke all, then assign
    rd_kafka_conf_set_rebalance_cb(conf, on_rebalance);
    rd_kafka_conf_set_opaque(conf, m.get());
    m->rk = new_consumer(conf);
    rd_kafka_topic_partition_list_t* list = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(list, topic.c_str(), RD_KAFKA_PARTITION_UA);
    const rd_kafka_resp_err_t err = rd_kafka_subscribe(m->rk, list);
    rd_kafka_topic_partition_list_destroy(list);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) die("subscribe: " + std::string(rd_kafka_err2str(err)));
    m->thread = std::thread(run, m.get());
    members_.push_back(std::move(m));
  }
}

SubscribedGroup::~SubscribedGroup() {
  for (auto& m : members_) {
    if (!m->ended) m->exit = 1 + int(Exit::kLeave);
  }
  for (auto& m : members_) {
    if (m->thread.joinable()) m->thread.join();
  }
}

void SubscribedGroup::run(Member* m) {
  int64_t errors = 0;
  while (m->exit.load() == 0) {
    rd_kafka_message_t* msg = rd_kafka_consumer_poll(m->rk, kPollMs);
    if (msg == nullptr) continue;
    if (msg->err != RD_KAFKA_RESP_ERR_NO_ERROR && msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF &&
        errors++ == 0) {
      std::fprintf(stderr, "group_bench: member %d: %s\n", m->index, rd_kafka_message_errstr(msg));
    }
    rd_kafka_message_destroy(msg);
  }
  m->ended_at = Clock::now();
  if (m->exit.load() == 1 + int(Exit::kCrash)) {
    rd_kafka_destroy_flags(m->rk, RD_KAFKA_DESTROY_F_NO_CONSUMER_CLOSE);
  } else {
    const rd_kafka_resp_err_t err = rd_kafka_consumer_close(m->rk);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      std::fprintf(stderr, "group_bench: member %d: close: %s\n", m->index, rd_kafka_err2str(err));
    }
    rd_kafka_destroy(m->rk);
  }
  m->rk = nullptr;
}

void SubscribedGroup::on_assignment(int i, std::vector<int32_t> partitions) {
  {
    std::lock_guard lock(mu_);
    members_[size_t(i)]->held = std::move(partitions);
    members_[size_t(i)]->assigned_at = Clock::now();
  }
  changed_.notify_all();
}

std::optional<Clock::time_point> SubscribedGroup::wait_held(const std::vector<int>& who,
                                                            int partitions, Clock::time_point since,
                                                            int timeout_ms) {
  std::optional<Clock::time_point> last;
  auto ready = [&] {
    size_t total = 0;
    Clock::time_point latest = since;
    for (int i : who) {
      const Member& m = *members_[size_t(i)];
      if (m.held.empty() || m.assigned_at < since) return false;
      total += m.held.size();
      latest = std::max(latest, m.assigned_at);
    }
    if (total != size_t(partitions)) return false;
    last = latest;
    return true;
  };
  std::unique_lock lock(mu_);
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  if (!changed_.wait_until(lock, deadline, ready)) return std::nullopt;
  return last;
}

Clock::time_point SubscribedGroup::end_member(int i, Exit how) {
  Member& m = *members_[size_t(i)];
  m.exit = 1 + int(how);
  m.thread.join();
  m.ended = true;
  std::lock_guard lock(mu_);
  m.held.clear();
  return m.ended_at;
}

rd_kafka_t* SubscribedGroup::handle(int i) const {
  return members_[size_t(i)]->rk;
}

std::vector<int32_t> SubscribedGroup::held(int i) {
  std::lock_guard lock(mu_);
  return members_[size_t(i)]->held;
}

double run_rebalance(Target& target, const Options& o, Exit how, double phase,
                     const std::string& tag) {
  const std::string topic = "gb-" + tag;
  target.create_topic(topic, o.rebalance_partitions);
  SubscribedGroup group(target, o, "gb-" + tag, topic, o.rebalance_members);
  std::vector<int> all, survivors;
  for (int i = 0; i < o.rebalance_members; ++i) {
    all.push_back(i);
    if (i > 0) survivors.push_back(i);
  }
  if (!group.wait_held(all, o.rebalance_partitions, Clock::time_point{}, o.stable_wait_ms_max)) {
    die(std::string(target.name()) + ": group " + tag + " not stable at the start");
  }
  // The members' heartbeats all restart when the group becomes stable, so they tick
  // together; a member that ended right then would be found at the survivors' next
  // heartbeat, exactly one interval later. Ending it `phase` of an interval further
  // (after one whole interval to settle) samples where in the cycle a failure falls.
  std::this_thread::sleep_for(
      std::chrono::duration<double, std::milli>((1 + phase) * o.heartbeat_interval_ms));
  // Member 0 may or may not be the leader: that is whoever's JoinGroup came first, and
  // the coordinator elects a new one as the rebalance completes either way.
  const Clock::time_point ended = group.end_member(0, how);
  const auto stable =
      group.wait_held(survivors, o.rebalance_partitions, ended, o.stable_wait_ms_max);
  if (!stable) die(std::string(target.name()) + ": survivors of " + tag + " never held all");
  return ms_between(ended, *stable);
}

}  // namespace group_bench
