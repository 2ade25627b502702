// kafkajs idempotent producer, for idempotence.py: sends COUNT records ("0".."COUNT-1",
// record i to partition i % PARTITIONS) in small batches and prints {"ok": true} when
// every send was acknowledged.
//   node idempotent_producer.js BOOTSTRAP TOPIC COUNT PARTITIONS
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic, count, partitions] = process.argv.slice(2);
const kafka = new Kafka({ brokers: [bootstrap], logLevel: logLevel.NOTHING, clientId: 'idempotent',
                          retry: { retries: 100, initialRetryTime: 20, maxRetryTime: 200 } });

async function main() {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const n = Number(count);
  for (let i = 0; i < n; i += 50) {
    const messages = [];
    for (let j = i; j < Math.min(n, i + 50); j++) {
      messages.push({ partition: j % Number(partitions), value: String(j) });
    }
    await producer.send({ topic, acks: -1, messages });
  }
  await producer.disconnect();
  console.log(JSON.stringify({ ok: true }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
