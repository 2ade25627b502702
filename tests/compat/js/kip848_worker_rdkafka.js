// One consumer-group member on node-rdkafka (its bundled librdkafka 2.12) speaking the
// consumer group protocol of KIP-848 (group.protocol=consumer), for
// tests/compat/kip848_scenario.py.
//   node kip848_worker_rdkafka.js BOOTSTRAP GROUP TOPIC EVENTS_FILE [INSTANCE_ID]
// Appends JSON lines: {"ev":"assign","parts":[...]} and {"ev":"revoke","parts":[...]} with
// the partitions added or removed (the protocol hands them over incrementally),
// {"ev":"rec",...} per record (logged, then its offset committed synchronously: commit
// after processing), {"ev":"commit_failed",...} when a commit is refused, and
// {"ev":"closed"} after an orderly leave on SIGTERM.
const fs = require('fs');
const Kafka = require('node-rdkafka');

const [bootstrap, group, topic, eventsPath, instance] = process.argv.slice(2);
const emit = (e) => fs.appendFileSync(eventsPath, JSON.stringify({ ...e, t: Date.now() / 1000 }) + '\n');
const parts = (list) => list.filter((tp) => tp.topic === topic).map((tp) => tp.partition).sort((a, b) => a - b);

const consumer = new Kafka.KafkaConsumer({
  'bootstrap.servers': bootstrap,
  'group.id': group,
  'group.protocol': 'consumer',
  ...(instance ? { 'group.instance.id': instance } : {}),
  'client.id': 'kip848-rdkafka',
  'enable.auto.commit': false,
  'max.poll.interval.ms': 10000,
  rebalance_cb(err, assignment) {
    const list = parts(assignment);
    try {
      if (err.code === Kafka.CODES.ERRORS.ERR__ASSIGN_PARTITIONS) {
        if (closing) return;  // leaving: take nothing new
        if (list.length) emit({ ev: 'assign', parts: list });
        this.incrementalAssign(assignment);
      } else if (err.code === Kafka.CODES.ERRORS.ERR__REVOKE_PARTITIONS) {
        if (list.length) emit({ ev: 'revoke', parts: list });
        this.incrementalUnassign(assignment);
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
