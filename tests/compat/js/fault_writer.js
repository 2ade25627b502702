// kafkajs idempotent acks=all writer for the fault runs (tests/faults): until the file STOP
// exists, sends unique values "js-N" to the topic's PARTITIONS partitions in turn, 10 per
// send, and prints one history operation per record as a JSON line
// (docs/formats/history.md; start and end in wall-clock seconds, the caller shifts them):
// outcome "ok" with partition and offset, or "unknown" when the send failed (an idempotent
// send that timed out may still have been written); after a failure it carries on with a
// new producer.
//   node fault_writer.js BOOTSTRAP TOPIC PARTITIONS STOP
// One partition per send(): kafkajs 2.2.4 loses records of a send() spanning several
// leaders when one moves (tulios/kafkajs #1303; see acks_all_writer.js).
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const [bootstrap, topic, partitions, stopFile] = process.argv.slice(2);
const kafka = new Kafka({ brokers: bootstrap.split(','), logLevel: logLevel.NOTHING, clientId: 'fault-writer',
                          requestTimeout: 5000, connectionTimeout: 3000,
                          retry: { retries: 30, initialRetryTime: 100, maxRetryTime: 1000 } });
const now = () => Date.now() / 1000;

function emit(op) {
  process.stdout.write(JSON.stringify(op) + '\n');
}

// A connected producer, or null once STOP exists (the brokers may be unreachable then).
async function connect() {
  while (!fs.existsSync(stopFile)) {
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      await producer.connect();
      return producer;
    } catch (e) {
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return null;
}

async function main() {
  let producer = await connect();
  let n = 0;
  let p = 0;
  while (producer && !fs.existsSync(stopFile)) {
    const messages = [];
    for (let i = 0; i < 10; i++) messages.push({ partition: p, value: `js-${n++}` });
    const start = now();
    try {
      const [meta] = await producer.send({ topic, acks: -1, messages });
      const base = Number(meta.baseOffset);
      messages.forEach((m, i) => emit({ process: 'kafkajs', f: 'send', start, end: now(), outcome: 'ok',
                                        value: m.value, partition: `${topic}-${p}`, offset: base + i }));
    } catch (e) {
      for (const m of messages) {
        emit({ process: 'kafkajs', f: 'send', start, end: now(), outcome: 'unknown', value: m.value,
               error: String(e).slice(0, 200) });
      }
      // A new producer (a new producer id): kafkajs would send the next batch with the
      // failed one's sequence, and if that one was written the broker would take the new
      // batch for its duplicate and drop it.
      await producer.disconnect().catch(() => {});
      producer = await connect();
    }
    p = (p + 1) % Number(partitions);
    await new Promise((r) => setTimeout(r, 5));
  }
  if (producer) await producer.disconnect();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
