// One broker's membership of a cluster on etcd (docs/formats/etcd.md): the cluster id,
// its registration under a session lease, its view of the cluster (read at start, then
// kept by a watch), and, while it holds /controller, the controller's duties
// (controller.h).
//
// Threads: the constructor and join() run on the caller's thread (the broker's start,
// before it serves); then a session thread renews the lease and a watch thread applies
// events, publishes each new view through `on_view` and runs the controller. Neither
// ever touches a shard: `on_view` must hand the view over (the broker publishes a
// metadata snapshot). view() and the epochs may be read from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cluster/controller.h"
#include "cluster/etcd_client.h"
#include "cluster/keys.h"
#include "cluster/view.h"
#include "common/result.h"

namespace strata::cluster {

struct NodeOptions {
  EtcdConnect connect;
  int32_t node_id = -1;
  std::optional<std::string> rack;
  std::vector<Endpoint> endpoints;  // the advertised listeners
  std::string directory_id;         // the log dir's directory.id
  // etcd.session.timeout.ms (as zookeeper.session.timeout.ms): the lease's TTL, renewed
  // every third of it. A broker silent for longer loses its registration.
  std::chrono::milliseconds session_timeout{18000};
  // etcd.connection.timeout.ms: one etcd request, connect included.
  std::chrono::milliseconds request_timeout{5000};
  // unclean.leader.election.enable, as the controller applies it (controller.h).
  UncleanElection unclean_election;
};

// The cluster's id: /cluster/id, created with `proposed` if absent (the first broker of
// a cluster). Blocking; fails if etcd does not answer. Called before the log dir is
// opened, which is formatted with (or checked against) the answer.
Result<std::string, std::string> fetch_cluster_id(EtcdClient& etcd, const Keys& keys,
                                                  const std::string& proposed);

// The next block of `size` producer ids for `node_id` from /latest_producer_id_block
// (compare-and-swap, retried on conflict): unique across the cluster and its restarts.
// Returns the block's first id. Blocking.
Result<int64_t, std::string> allocate_producer_ids(EtcdClient& etcd, const Keys& keys, int32_t node_id,
                                                   int64_t size);

class ClusterNode {
 public:
  using OnView = std::function<void(std::shared_ptr<const ClusterView>)>;

  explicit ClusterNode(NodeOptions options);
  ~ClusterNode();
  ClusterNode(const ClusterNode&) = delete;
  ClusterNode& operator=(const ClusterNode&) = delete;

  // Registers this broker (waiting out an earlier incarnation of itself, refusing a live
  // broker with its node.id), reads the cluster, publishes the first view, and starts the
  // session and watch threads. Blocking, for at most about one session timeout.
  Result<void, std::string> join(OnView on_view);

  // Resigns as controller, revokes the lease (the registration vanishes at once) and
  // stops the threads. Idempotent.
  void leave();
  // Controlled shutdown, before leave(): resigns as controller and revokes the lease, so
  // that the controller moves this broker's leaderships to other ISR members and the
  // leaders drop it from their ISRs, then keeps receiving views until `done(view)`
  // (nothing left to move) or `timeout`. The broker serves meanwhile: its clients learn
  // the new leaders from its NOT_LEADER_OR_FOLLOWER answers instead of a closed socket.
  void withdraw(std::chrono::milliseconds timeout, const std::function<bool(const ClusterView&)>& done);

  std::shared_ptr<const ClusterView> view() const;
  // Whether this node's etcd session is surely alive: its lease was granted or last
  // renewed by a request sent less than the lease's TTL ago (less a margin for the clocks'
  // rates). Past that, etcd may have expired the lease and another broker may lead what
  // this one led while its view still says otherwise (it is cut from etcd), so it must
  // not act as a coordinator until a renewal or a new registration succeeds. After a new
  // registration, the view must also have caught up with it (a view older than the
  // registration may still show leaderships that moved while the session was lost).
  bool session_current() const {
    return std::chrono::steady_clock::now().time_since_epoch().count() < session_valid_until_.load() &&
           view_revision_.load() >= broker_epoch_.load();
  }
  int32_t node_id() const { return options_.node_id; }
  int64_t broker_epoch() const { return broker_epoch_.load(); }
  // This node's controller epoch while it is the controller; 0 otherwise.
  int64_t controller_epoch() const { return controller_epoch_.load(); }
  const Keys& keys() const { return keys_; }
  EtcdClient& etcd() { return etcd_; }

 private:
  Result<void, std::string> register_broker();
  Result<void, std::string> read_all();
  void publish(std::shared_ptr<const ClusterView> v);
  void after_change(const ClusterView& v);
  void try_elect(const ClusterView& v);
  void session_loop();
  // A grant or renewal sent at `sent` succeeded with `ttl_s` seconds left.
  void renewed(std::chrono::steady_clock::time_point sent, int64_t ttl_s);
  void watch_loop();
  bool wait_or_stop(std::chrono::milliseconds d);

  NodeOptions options_;
  Keys keys_;
  ViewBuilder builder_;
  EtcdClient etcd_;
  OnView on_view_;

  std::atomic<int64_t> lease_{0};
  std::atomic<std::chrono::steady_clock::rep> session_valid_until_{0};  // see session_current()
  std::atomic<int64_t> view_revision_{0};                                // the published view's
  std::atomic<bool> withdrawing_{false};  // withdraw(): no renewal, no registering again
  std::atomic<int64_t> broker_epoch_{0};
  std::atomic<int64_t> controller_epoch_{0};
  int64_t controller_written_ = 0;  // watch thread only: the controller's last write

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::shared_ptr<const ClusterView> view_;
  EtcdWatch* watch_ = nullptr;  // the running watch, for leave() to stop
  std::thread session_thread_;
  std::thread watch_thread_;
};

}  // namespace strata::cluster
