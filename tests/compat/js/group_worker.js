// One consumer-group member on kafkajs, for the group tests (tests/compat/group_scenario.py).
//   node group_worker.js BOOTSTRAP GROUP TOPIC EVENTS_FILE
// Appends JSON lines: {"ev":"assign","parts":[...]} on every group join, {"ev":"rec",...}
// per record (written, then its offset committed: commit after processing), and
// {"ev":"closed"} after an orderly disconnect (LeaveGroup) on SIGTERM.
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, group, topic, eventsPath] = process.argv.slice(2);
const emit = (e) => fs.appendFileSync(eventsPath, JSON.stringify({ ...e, t: Date.now() / 1000 }) + '\n');
const kafka = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, clientId: 'group-worker' });
const consumer = kafka.consumer({ groupId: group, sessionTimeout: 6000, heartbeatInterval: 500,
                                  rebalanceTimeout: 10000 });

// kafkajs rebalances eagerly and reports only the new assignment: log it as a revoke of
// the previous one followed by an assign.
let held = [];
consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
  emit({ ev: 'revoke', parts: held });
  held = (payload.memberAssignment[topic] || []).slice().sort((a, b) => a - b);
  emit({ ev: 'assign', parts: held });
});

async function main() {
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ partition, message }) => {
      emit({ ev: 'rec', p: partition, o: Number(message.offset), v: message.value.toString() });
      await consumer.commitOffsets([{ topic, partition, offset: String(Number(message.offset) + 1) }]);
    },
  });
}

process.on('SIGTERM', async () => {
  await consumer.disconnect();
  emit({ ev: 'closed' });
  process.exit(0);
});

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
