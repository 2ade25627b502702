#include "cluster/node.h"

#include <spdlog/spdlog.h>

#include <utility>

#include "cluster/controller.h"
#include "common/log_limit.h"
#include "common/thread_name.h"

namespace strata::cluster {

namespace {

using namespace std::chrono_literals;

constexpr auto kRetryBackoff = 500ms;

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string text(const EtcdError& e) { return e.message; }

TxnRequest create_if_absent(const std::string& key, std::string value, int64_t lease) {
  TxnRequest t;
  t.compare.push_back({key, Compare::Target::kCreate, Compare::Result::kEqual, 0, ""});
  t.success.push_back({Op::Kind::kPut, key, "", std::move(value), lease});
  t.failure.push_back({Op::Kind::kRange, key, "", "", 0});
  return t;
}

}  // namespace

ClusterNode::ClusterNode(NodeOptions options)
    : options_(std::move(options)),
      keys_(options_.connect.chroot),
      builder_(keys_),
      etcd_({options_.connect.endpoints, std::min(options_.request_timeout, std::chrono::milliseconds(2000)),
             options_.request_timeout}) {}

ClusterNode::~ClusterNode() { leave(); }

Result<std::string, std::string> fetch_cluster_id(EtcdClient& etcd, const Keys& keys,
                                                  const std::string& proposed) {
  auto r = etcd.txn(create_if_absent(keys.cluster_id(), encode_cluster_id(proposed), 0));
  if (!r) return fail("etcd: cannot read the cluster id: " + text(r.error()));
  if (r->succeeded) {
    spdlog::info("cluster {}: created in etcd under '{}'", proposed, keys.all());
    return proposed;
  }
  if (r->ranges.empty() || r->ranges[0].kvs.empty()) return fail(std::string("etcd: the cluster id vanished"));
  auto id = decode_cluster_id(r->ranges[0].kvs[0].value);
  if (!id) return fail(keys.cluster_id() + " in etcd: " + id.error());
  return std::move(*id);
}

Result<int64_t, std::string> allocate_producer_ids(EtcdClient& etcd, const Keys& keys, int32_t node_id,
                                                   int64_t size) {
  const std::string key = keys.producer_id_block();
  for (int attempt = 0; attempt < 100; ++attempt) {
    auto r = etcd.range(key);
    if (!r) return fail("etcd: cannot allocate producer ids: " + text(r.error()));
    ProducerIdBlock next{node_id, 0, size - 1};
    TxnRequest t;
    if (r->kvs.empty()) {
      t.compare.push_back({key, Compare::Target::kCreate, Compare::Result::kEqual, 0, ""});
    } else {
      auto last = decode_producer_id_block(r->kvs[0].value);
      if (!last) return fail(key + " in etcd: " + last.error());
      if (last->end > INT64_MAX - size) return fail(std::string("producer ids exhausted"));
      next.start = last->end + 1;
      next.end = last->end + size;
      t.compare.push_back({key, Compare::Target::kMod, Compare::Result::kEqual, r->kvs[0].mod_revision, ""});
    }
    t.success.push_back({Op::Kind::kPut, key, "", encode_producer_id_block(next), 0});
    auto w = etcd.txn(t);
    if (!w) return fail("etcd: cannot allocate producer ids: " + text(w.error()));
    if (w->succeeded) return next.start;
  }
  return fail(std::string("etcd: producer id blocks contended 100 times in a row"));
}

// A lease, then the registration key if absent. An existing key with this log dir's
// directory.id is this broker's own earlier incarnation (killed before its lease ran
// out): its lease is revoked and the key taken at once. Any other holder is a live
// broker with the same node.id, unless its lease runs out within one session timeout.
Result<void, std::string> ClusterNode::register_broker() {
  const int64_t ttl_s = std::max<int64_t>(2, (options_.session_timeout.count() + 999) / 1000);
  const auto sent = std::chrono::steady_clock::now();
  auto lease = etcd_.grant(ttl_s);
  if (!lease) return fail("etcd: cannot create a session lease: " + text(lease.error()));
  BrokerRegistration reg{options_.node_id, options_.endpoints, options_.rack, wall_ms(), options_.directory_id};
  const std::string key = keys_.broker(options_.node_id);
  const auto deadline = std::chrono::steady_clock::now() + options_.session_timeout + 2s;
  for (;;) {
    auto r = etcd_.txn(create_if_absent(key, encode_registration(reg), lease->id));
    if (!r) return fail("etcd: cannot register: " + text(r.error()));
    if (r->succeeded) {
      lease_ = lease->id;
      broker_epoch_ = r->revision;
      renewed(sent, ttl_s);
      spdlog::info("registered as broker {} in etcd (broker epoch {})", options_.node_id, r->revision);
      return {};
    }
    if (!r->ranges.empty() && !r->ranges[0].kvs.empty()) {
      const KeyValue& held = r->ranges[0].kvs[0];
      auto other = decode_registration(options_.node_id, held.value);
      if (other && other->directory_id == options_.directory_id && !options_.directory_id.empty()) {
        spdlog::info("broker {}: an earlier incarnation is still registered; taking over", options_.node_id);
        if (auto revoked = etcd_.revoke(held.lease); !revoked) {
          spdlog::warn("revoking the earlier incarnation's lease: {}", text(revoked.error()));
        }
        continue;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        (void)etcd_.revoke(lease->id);
        const std::string where = other && !other->endpoints.empty()
                                      ? other->endpoints[0].host + ":" + std::to_string(other->endpoints[0].port)
                                      : std::string("unknown address");
        return fail("node.id " + std::to_string(options_.node_id) +
                    " is already registered by a live broker (" + where + ")");
      }
    }
    if (wait_or_stop(kRetryBackoff)) return fail(std::string("stopped while registering"));
  }
}

Result<void, std::string> ClusterNode::read_all() {
  auto r = etcd_.range(keys_.all(), prefix_end(keys_.all()));
  if (!r) return fail("etcd: cannot read the cluster: " + text(r.error()));
  auto v = std::make_shared<ClusterView>();
  for (const KeyValue& kv : r->kvs) builder_.put(*v, kv);
  v->revision = r->revision;
  publish(std::move(v));
  return {};
}

Result<void, std::string> ClusterNode::join(OnView on_view) {
  on_view_ = std::move(on_view);
  if (auto r = register_broker(); !r) return r;
  if (auto r = read_all(); !r) return r;
  session_thread_ = std::thread([this] { session_loop(); });
  watch_thread_ = std::thread([this] { watch_loop(); });
  return {};
}

void ClusterNode::leave() {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;
    stopping_ = true;
    if (watch_ != nullptr) watch_->stop();
  }
  cv_.notify_all();
  if (watch_thread_.joinable()) watch_thread_.join();
  if (session_thread_.joinable()) session_thread_.join();
  if (const int64_t epoch = controller_epoch_.exchange(0); epoch != 0) resign(etcd_, keys_, epoch);
  if (const int64_t lease = lease_.exchange(0); lease != 0) {
    if (auto r = etcd_.revoke(lease); !r) spdlog::warn("etcd: leaving the cluster: {}", text(r.error()));
  }
}

void ClusterNode::withdraw(std::chrono::milliseconds timeout,
                           const std::function<bool(const ClusterView&)>& done) {
  withdrawing_ = true;
  if (const int64_t epoch = controller_epoch_.exchange(0); epoch != 0) resign(etcd_, keys_, epoch);
  if (const int64_t lease = lease_.exchange(0); lease != 0) {
    if (auto r = etcd_.revoke(lease); !r) spdlog::warn("etcd: withdrawing from the cluster: {}", text(r.error()));
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (done(*view())) {
      spdlog::info("broker {}: controlled shutdown: leaderships moved", options_.node_id);
      return;
    }
    if (wait_or_stop(std::chrono::milliseconds(20))) return;
  }
  spdlog::warn("broker {}: controlled shutdown: leaderships not all moved within {} ms", options_.node_id,
               timeout.count());
}

std::shared_ptr<const ClusterView> ClusterNode::view() const {
  std::lock_guard lock(mu_);
  return view_;
}

void ClusterNode::publish(std::shared_ptr<const ClusterView> v) {
  {
    std::lock_guard lock(mu_);
    view_ = v;
  }
  view_revision_ = v->revision;
  if (on_view_) on_view_(v);
}

// etcd counts the TTL from when it receives the request, so the lease lasts at least
// `ttl_s` from `sent` by etcd's clock; a fifth of it (500 ms at least) is left for the two
// clocks' rates and the controller's reaction, which only make the real expiry later.
void ClusterNode::renewed(std::chrono::steady_clock::time_point sent, int64_t ttl_s) {
  const auto ttl = std::chrono::milliseconds(ttl_s * 1000);
  const auto margin = std::max(std::chrono::milliseconds(500), ttl / 5);
  const auto until = (sent + ttl - margin).time_since_epoch().count();
  auto seen = session_valid_until_.load();
  while (seen < until && !session_valid_until_.compare_exchange_weak(seen, until)) {
  }
}

bool ClusterNode::wait_or_stop(std::chrono::milliseconds d) {
  std::unique_lock lock(mu_);
  return cv_.wait_for(lock, d, [this] { return stopping_; });
}

// Renews the lease every third of its TTL. A lease found gone (this process was paused
// or cut off from etcd for longer than the session timeout) means the registration and
// any controllership went with it: the broker registers again, with a new broker epoch.
void ClusterNode::session_loop() {
  name_thread_once("etcd-session");
  static LogLimit unreachable("etcd session renewal failed");
  const auto interval = options_.session_timeout / 3;
  while (!wait_or_stop(std::chrono::duration_cast<std::chrono::milliseconds>(interval))) {
    if (withdrawing_) continue;  // controlled shutdown: the lease is gone on purpose
    const auto sent = std::chrono::steady_clock::now();
    auto ttl = etcd_.keepalive(lease_.load());
    if (!ttl) {
      unreachable.warn("etcd: session renewal failed: {}", text(ttl.error()));
      continue;
    }
    if (*ttl > 0) {
      renewed(sent, *ttl);
      continue;
    }
    session_valid_until_ = 0;
    spdlog::warn("broker {}: the etcd session expired; registering again", options_.node_id);
    controller_epoch_ = 0;
    if (auto r = register_broker(); !r) spdlog::error("broker {}: {}", options_.node_id, r.error());
  }
}

// Watches the root from the view's revision. On any failure (etcd gone, the revision
// compacted, a bad message) it reads the whole root again and watches from there. A
// watch quiet for a session timeout is opened again from the same revision, without the
// full read: on an idle cluster that is one request per session timeout, and a member
// that went silent without closing the stream is noticed within that time.
void ClusterNode::watch_loop() {
  name_thread_once("etcd-watch");
  static LogLimit failures("etcd watch failed");
  size_t endpoint = 0;
  bool resume = false;  // after a quiet watch: the view is current, only the stream is new
  for (;;) {
    std::shared_ptr<const ClusterView> start = view();
    if (!std::exchange(resume, false)) after_change(*start);
    EtcdWatch watch(options_.connect.endpoints[endpoint % options_.connect.endpoints.size()],
                    std::min(options_.request_timeout, std::chrono::milliseconds(2000)),
                    std::chrono::duration_cast<std::chrono::milliseconds>(options_.session_timeout));
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      watch_ = &watch;
    }
    auto current = std::make_shared<ClusterView>(*start);
    auto r = watch.run(keys_.all(), prefix_end(keys_.all()), start->revision + 1,
                       [&](const WatchMessage& m) {
                         if (m.canceled || m.compact_revision > 0) return false;  // read again
                         if (m.events.empty()) return true;
                         auto next = std::make_shared<ClusterView>(*current);
                         builder_.apply(*next, m);
                         current = next;
                         publish(next);
                         after_change(*next);
                         return true;
                       });
    {
      std::lock_guard lock(mu_);
      watch_ = nullptr;
      if (stopping_) return;
    }
    if (!r && r.error().kind == EtcdError::Kind::kQuiet) {
      resume = true;
      continue;
    }
    if (!r) {
      failures.warn("etcd: watch ended: {}", text(r.error()));
      ++endpoint;
    }
    if (wait_or_stop(kRetryBackoff)) return;
    if (auto read = read_all(); !read) failures.warn("{}", read.error());
  }
}

// Runs after every new view, on the watch thread: an election when there is no
// controller, the controller's duties when this node is it.
void ClusterNode::after_change(const ClusterView& v) {
  if (lease_.load() == 0) return;
  const int64_t mine = controller_epoch_.load();
  if (v.controller && mine != 0 && v.controller->epoch != mine && v.controller->epoch > mine) {
    spdlog::info("broker {}: no longer the controller (broker {} is, epoch {})", options_.node_id,
                 v.controller->broker_id, v.controller->epoch);
    controller_epoch_ = 0;
  }
  // No controller in a view that is not behind this node's own election: elect.
  if (!v.controller && (mine == 0 || v.revision >= mine)) {
    controller_epoch_ = 0;
    try_elect(v);
  }
  // Views older than the controller's own last write would plan it again: skipped.
  if (const int64_t epoch = controller_epoch_.load(); epoch != 0 && v.revision >= controller_written_) {
    const ControllerRun run = run_controller(etcd_, keys_, v, epoch, options_.unclean_election);
    if (run.written != 0) controller_written_ = run.written;
    if (run.fenced) {
      spdlog::info("broker {}: fenced as controller (epoch {})", options_.node_id, epoch);
      controller_epoch_ = 0;
    }
  }
}

void ClusterNode::try_elect(const ClusterView&) {
  ControllerRecord c{options_.node_id, broker_epoch_.load(), wall_ms()};
  auto r = etcd_.txn(create_if_absent(keys_.controller(), encode_controller(c), lease_.load()));
  if (!r) return;
  if (r->succeeded) {
    controller_epoch_ = r->revision;
    spdlog::info("broker {}: elected controller (epoch {})", options_.node_id, r->revision);
  }
}

}  // namespace strata::cluster
