// kafkajs against a Strata broker, driven by client_kafkajs.py.
//   node client.js BOOTSTRAP produce   -> creates "clicks", produces, prints what it sent (JSON)
//   node client.js BOOTSTRAP check     -> offsets, offsets by timestamp, metadata (JSON)
//   node client.js BOOTSTRAP create TOPIC N -> creates TOPIC with N partitions, prints each
//                                         partition's leader as kafkajs's metadata has it
// (Read-back here is by kafka-python, an independent reader; kafkajs consumers in groups
// are exercised by groups_kafkajs.py.)
const { Kafka, CompressionTypes, logLevel } = require('kafkajs');

const [bootstrap, phase] = process.argv.slice(2);
const kafka = new Kafka({ brokers: [bootstrap], logLevel: logLevel.ERROR, clientId: 'strata-compat' });
const BASE_TS = Date.now() - 60000;

async function produce() {
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic: 'clicks', numPartitions: 2 }] });
  const producer = kafka.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const sent = { 0: [], 1: [] };
  for (const [name, compression] of [['none', CompressionTypes.None], ['gzip', CompressionTypes.GZIP]]) {
    const messages = [];
    for (let i = 0; i < 40; i++) {
      const partition = i % 2;
      const m = {
        partition,
        key: i % 7 === 0 ? null : `${name}-key-${i}`,
        value: i % 11 === 3 ? null : `${name} value ${i}`,
        headers: i % 2 ? { n: String(i) } : {},
        timestamp: String(BASE_TS + sent[partition].length),
      };
      messages.push(m);
      sent[partition].push([m.key, m.value, Object.entries(m.headers)]);
    }
    await producer.send({ topic: 'clicks', compression, acks: -1, messages });
  }
  await producer.disconnect();
  await admin.disconnect();
  console.log(JSON.stringify({ sent, base_ts: BASE_TS }));
}

async function check() {
  const admin = kafka.admin();
  await admin.connect();
  const offsets = await admin.fetchTopicOffsets('clicks');
  const meta = await admin.fetchTopicMetadata({ topics: ['clicks'] });
  const byTime = await admin.fetchTopicOffsetsByTimestamp('clicks', Number(process.argv[4]));
  await admin.disconnect();
  console.log(JSON.stringify({ offsets, partitions: meta.topics[0].partitions.length, byTime }));
}

async function create() {
  const [topic, partitions] = process.argv.slice(4);
  const admin = kafka.admin();
  await admin.connect();
  await admin.createTopics({ topics: [{ topic, numPartitions: Number(partitions) }], waitForLeaders: true });
  const meta = await admin.fetchTopicMetadata({ topics: [topic] });
  await admin.disconnect();
  const leaders = {};
  for (const p of meta.topics[0].partitions) leaders[p.partitionId] = p.leader;
  console.log(JSON.stringify({ leaders }));
}

({ produce, check, create }[phase] || check)().catch((e) => {
  console.error(e);
  process.exit(1);
});
