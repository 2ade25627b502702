"""Issue 14, membership and control: 3 brokers on 1 etcd, as processes.

- every broker's Metadata (v2, asked of each broker by hand) and confluent-kafka's admin
  client list the 3 live brokers, one controller and one cluster id;
- kill -9 of the controller: the others elect another within the session timeout; the
  killed broker restarts and registers again at once (it takes over its own registration);
- a paused (SIGSTOP) controller loses its controllership and, resumed, is an ordinary
  member under a new session;
- a broker with a clashing node.id, a log dir of another cluster, and etcd unreachable at
  start: each refuses to start with a clear message, and nothing is changed on disk;
- a broker shut down cleanly leaves the metadata at once.

    membership.py STRATA_BINARY
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import SESSION_MS, Cluster  # noqa: E402
from strata_broker import check  # noqa: E402

binary = sys.argv[1]


def ids(brokers):
    return [b[0] for b in brokers]


def client_view(bootstrap):
    """What librdkafka (confluent-kafka's admin client) learns of the cluster."""
    from confluent_kafka.admin import AdminClient
    md = AdminClient({"bootstrap.servers": bootstrap}).list_topics(timeout=10)
    return sorted(md.brokers), md.controller_id, md.cluster_id


with Cluster(binary, brokers=3) as c:
    views = [c.wait_for("broker %d lists 3 brokers and a controller" % b.node_id,
                        lambda br, ctl, cid: ids(br) == [1, 2, 3] and ctl in (1, 2, 3),
                        bootstrap=b.bootstrap) for b in c.brokers]
    check(len({v[1] for v in views}) == 1, "all agree on the controller: %s" % views[0][1])
    check(len({v[2] for v in views}) == 1 and views[0][2], "all agree on the cluster id %s" % views[0][2])
    check([b[2] for b in views[0][0]] == [b.port for b in c.brokers], "each broker's advertised port is listed")
    nodes, ctl, cid = client_view(c.bootstrap)
    check(nodes == [1, 2, 3] and ctl == views[0][1] and cid == views[0][2],
          "confluent-kafka's metadata agrees: nodes %s controller %s" % (nodes, ctl))

    # Kill -9 the controller: another takes over within the session timeout.
    old = views[0][1]
    survivor = next(b for b in c.brokers if b.node_id != old)
    t0 = time.time()
    c.broker(old).kill()
    _, new_ctl, _ = c.wait_for("a new controller once broker %d is gone" % old,
                               lambda br, ctl, cid: old not in ids(br) and ctl not in (-1, old),
                               bootstrap=survivor.bootstrap, timeout=SESSION_MS / 1000 + 10)
    took = time.time() - t0
    check(took < SESSION_MS / 1000 + 3, "failover took %.1f s (session %d ms)" % (took, SESSION_MS))
    # The killed broker restarts: its earlier incarnation's lease is taken over, no wait.
    t0 = time.time()
    c.broker(old).start()
    c.wait_for("broker %d is back" % old, lambda br, ctl, cid: ids(br) == [1, 2, 3],
               bootstrap=survivor.bootstrap)
    check(time.time() - t0 < SESSION_MS / 1000, "it rejoined in %.1f s" % (time.time() - t0))

    # Pause the controller: it loses the controllership; resumed, it is a member again.
    paused = c.broker(new_ctl)
    other = next(b for b in c.brokers if b.node_id != new_ctl)
    paused.pause()
    c.wait_for("the paused controller %d is replaced" % new_ctl,
               lambda br, ctl, cid: new_ctl not in ids(br) and ctl not in (-1, new_ctl),
               bootstrap=other.bootstrap, timeout=SESSION_MS / 1000 + 10)
    paused.resume()
    _, third_ctl, _ = c.wait_for("resumed, broker %d registers again" % new_ctl,
                                 lambda br, ctl, cid: ids(br) == [1, 2, 3] and ctl != new_ctl,
                                 bootstrap=other.bootstrap, timeout=SESSION_MS / 1000 + 10)
    c.wait_for("the resumed broker sees the new controller %d" % third_ctl,
               lambda br, ctl, cid: ctl == third_ctl and ids(br) == [1, 2, 3],
               bootstrap=paused.bootstrap)
    check("no longer the controller" in paused.log() or "fenced as controller" in paused.log()
          or "registering again" in paused.log(), "the paused broker noticed it was deposed")

    # A second process on a live broker's log dir: refused at once (Kafka's .lock).
    twin = c.new_broker(2)
    code, out = twin.run_to_exit()
    check(code != 0 and "another process is using this log dir" in out,
          "a second process on broker 2's log dir refuses to start: %s" % out.strip().splitlines()[-1])
    # A clashing node.id: refused once the other's session would have run out.
    clash = c.new_broker(2)
    clash.data = clash.data + "-clash"
    code, out = clash.run_to_exit(timeout=SESSION_MS / 1000 + 20)
    check(code != 0 and "node.id 2 is already registered by a live broker" in out,
          "a second broker 2 refuses to start: %s" % [l for l in out.splitlines() if "cannot start" in l])
    c.wait_for("broker 2 is still listed", lambda br, ctl, cid: 2 in ids(br))

    # A log dir of another cluster (a chroot is another cluster): refused, untouched.
    foreign = c.new_broker(1, etcd_connect=c.etcd[0].endpoint + "/other")
    foreign.data = c.broker(1).data
    c.broker(1).stop()
    meta = open(os.path.join(foreign.data, "meta.properties")).read()
    code, out = foreign.run_to_exit()
    check(code != 0 and "belongs to cluster" in out, "a log dir of another cluster is refused: %s"
          % out.strip().splitlines()[-1])
    check(open(os.path.join(foreign.data, "meta.properties")).read() == meta, "meta.properties unchanged")

    # Broker 1 was stopped cleanly: it left the metadata at once, not after its session.
    c.wait_for("a cleanly stopped broker leaves at once", lambda br, ctl, cid: 1 not in ids(br),
               bootstrap=c.broker(3).bootstrap, timeout=2)

    # etcd unreachable at start: a clear error, not a hang.
    lost = c.new_broker(9, etcd_connect="127.0.0.1:1/strata")
    t0 = time.time()
    code, out = lost.run_to_exit()
    check(code != 0 and "etcd" in out and time.time() - t0 < 15,
          "with etcd unreachable a broker refuses to start: %s" % out.strip().splitlines()[-1])

print("membership: all checks passed")
