// kafkajs transactions, for transactions_kafkajs.py.
//   node transactions.js produce BOOTSTRAP TOPIC TXNS PARTITIONS GROUP
//     TXNS transactions, each sending one record "<txn>-<partition>" to every partition
//     and committing offset <txn+1> of GROUP on TOPIC partition 0 (sendOffsets); every
//     third transaction (txn % 3 == 2) is aborted. Prints {"ok": true}.
//   node transactions.js consume BOOTSTRAP TOPIC COUNT PARTITIONS
//     A read_committed consumer group reads TOPIC from the start until COUNT records have
//     arrived (or 20 s pass); prints {"0": [values...], "1": [...], ...}.
const { Kafka, logLevel } = require('kafkajs');

const [mode, bootstrap, topic, n, partitions, group] = process.argv.slice(2);
const kafka = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, clientId: 'txn-js',
                          retry: { retries: 50, initialRetryTime: 20, maxRetryTime: 500 } });

async function produce() {
  const producer = kafka.producer({ transactionalId: 'js-txn', maxInFlightRequests: 1,
                                    idempotent: true });
  await producer.connect();
  for (let t = 0; t < Number(n); t++) {
    const txn = await producer.transaction();
    const messages = [];
    for (let p = 0; p < Number(partitions); p++) messages.push({ partition: p, value: `${t}-${p}` });
    await txn.send({ topic, acks: -1, messages });
    await txn.sendOffsets({ consumerGroupId: group,
                            topics: [{ topic, partitions: [{ partition: 0, offset: String(t + 1) }] }] });
    if (t % 3 === 2) await txn.abort(); else await txn.commit();
  }
  await producer.disconnect();
  console.log(JSON.stringify({ ok: true }));
}

async function consume() {
  const consumer = kafka.consumer({ groupId: 'js-reader', readUncommitted: false,
                                    maxWaitTimeInMs: 200 });
  const got = {};
  for (let p = 0; p < Number(partitions); p++) got[p] = [];
  let count = 0;
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const done = new Promise((resolve) => {
    consumer.run({ eachMessage: async ({ partition, message }) => {
      got[partition].push(message.value.toString());
      if (++count >= Number(n)) resolve();
    } });
    setTimeout(resolve, 20000);
  });
  await done;
  await consumer.disconnect();
  console.log(JSON.stringify(got));
}

(mode === 'produce' ? produce() : consume()).catch((e) => {
  console.error(e);
  process.exit(1);
});
