// kafkajs idempotent acks=all writer, for the replication tests: until the file STOP
// exists, sends "p:seq:js" to each of the topic's PARTITIONS partitions in turn (10 per
// send), then prints {"acked": [[p, value], ...], "failed": N, "error": E}.
//   node acks_all_writer.js BOOTSTRAP TOPIC PARTITIONS STOP
// One partition per send(): kafkajs 2.2.4 resolves a send() spanning several leaders
// without resending a partition whose leader moved to a broker that had already
// answered for another partition (its per-broker response map survives the retry), and
// reuses that partition's sequence numbers: acknowledged records never written
// (tulios/kafkajs issue #1303, pull request #1798). Seen in cluster.bounces before this
// change: 10 of 49,770 acknowledged records missing, their sequence taken by the next
// send.
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic, partitions, stopFile] = process.argv.slice(2);
const kafka = new Kafka({ brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, clientId: 'acks-all-writer',
                          retry: { retries: 200, initialRetryTime: 50, maxRetryTime: 500 } });

async function main() {
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const acked = [];
  let failed = 0;
  let error = null;
  let seq = 0;
  while (!fs.existsSync(stopFile)) {
    for (let p = 0; p < Number(partitions); p++) {
      const messages = [];
      for (let i = 0; i < 10; i++) messages.push({ partition: p, value: `${p}:${seq + i}:js` });
      try {
        await producer.send({ topic, acks: -1, messages });
        for (const m of messages) acked.push([m.partition, m.value]);
      } catch (e) {
        failed += messages.length;
        error = String(e);
      }
    }
    seq += 10;
    await new Promise((r) => setTimeout(r, 5));
  }
  await producer.disconnect();
  console.log(JSON.stringify({ acked, failed, error }));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
