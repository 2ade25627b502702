// One consumer-group member on node-rdkafka (its bundled librdkafka 2.12) speaking the
// consumer group protocol of KIP-848 (group.protocol=consumer), for
// tests/compat/kip848_clients.py; bench/kip848_rebalance.py also runs it with the classic
// protocol, to compare the two with one client library.
//   node kip848_worker_rdkafka.js BOOTSTRAP GROUP TOPIC EVENTS_FILE [INSTANCE_ID]
// Environment: STRATA_GROUP_PROTOCOL = consumer (default), classic-eager (the range
// assignor) or classic-cooperative (cooperative-sticky), with a 6 s session and 500 ms
// heartbeats as the tests' brokers use for the consumer protocol; STRATA_AUTO_COMMIT=1
// commits every 100 ms instead of after each record (the benchmark's load).
// Appends JSON lines: {"ev":"assign","parts":[...]} and {"ev":"revoke","parts":[...]} with
// the partitions added or removed (the protocol hands them over incrementally; an eager
// rebalance revokes everything first), {"ev":"rec",...} per record (logged, then its offset
// committed synchronously: commit after processing), {"ev":"commit_failed",...} when a
// commit is refused, and {"ev":"closed"} after an orderly leave on SIGTERM.
const fs = require('fs');
const Kafka = require('node-rdkafka');

const [bootstrap, group, topic, eventsPath, instance] = process.argv.slice(2);
const emit = (e) => fs.appendFileSync(eventsPath, JSON.stringify({ ...e, t: Date.now() / 1000 }) + '\n');
const parts = (list) => list.filter((tp) => tp.topic === topic).map((tp) => tp.partition).sort((a, b) => a - b);

const protocol = process.env.STRATA_GROUP_PROTOCOL || 'consumer';
const autoCommit = process.env.STRATA_AUTO_COMMIT === '1';
const classic = {
  'classic-eager': 'range',
  'classic-cooperative': 'cooperative-sticky',
}[protocol];
let held = [];

const consumer = new Kafka.KafkaConsumer({
  'bootstrap.servers': bootstrap,
  'group.id': group,
  'group.protocol': classic ? 'classic' : 'consumer',
  ...(classic ? { 'partition.assignment.strategy': classic, 'session.timeout.ms': 6000,
                  'heartbeat.interval.ms': 500 } : {}),
  ...(instance ? { 'group.instance.id': instance } : {}),
  'client.id': 'kip848-rdkafka',
  'enable.auto.commit': autoCommit,
  ...(autoCommit ? { 'auto.commit.interval.ms': 100 } : {}),
  'max.poll.interval.ms': 10000,
  rebalance_cb(err, assignment) {
    const list = parts(assignment);
    const incremental = this.rebalanceProtocol() === 'COOPERATIVE';
    try {
      if (err.code === Kafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) {
        if (closing) return;  // leaving: take nothing new
        const added = list.filter((p) => !held.includes(p));
        if (added.length) emit({ ev: 'assign', parts: added });
        held = incremental ? held.concat(added) : list;
        if (incremental) this.incrementalAssign(assignment);
        else this.assign(assignment);
      } else if (err.code === Kafka.CODES.ERRORS.ERR__REVOKE_PARTITIONS) {
        if (list.length) emit({ ev: 'revoke', parts: list });
        held = held.filter((p) => !list.includes(p));
        if (incremental) this.incrementalUnassign(assignment);
        else this.unassign();
      } else {
        console.error('rebalance error', err);
      }
    } catch (e) {
      console.error('rebalance callback', e.message || e);
    }
  },
}, { 'auto.offset.reset': 'earliest' });

consumer.on('event.error', (e) => console.error('error', e.message));

let closing = false;
function poll() {
  if (closing) return;
  consumer.consume(50, (err, messages) => {
    if (err) console.error('consume', err.message);
    for (const m of messages || []) {
      emit({ ev: 'rec', p: m.partition, o: m.offset, v: m.value.toString() });
      if (autoCommit) continue;
      try {
        consumer.commitMessageSync(m);
      } catch (e) {
        emit({ ev: 'commit_failed', p: m.partition, o: m.offset, err: String(e.message || e) });
      }
    }
    setImmediate(poll);
  });
}

consumer.on('ready', () => {
  consumer.subscribe([topic]);
  poll();
});
consumer.connect();

process.on('SIGTERM', () => {
  closing = true;
  consumer.disconnect(() => {
    emit({ ev: 'closed' });
    process.exit(0);
  });
});
