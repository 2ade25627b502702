// kafkajs over TLS and/or SASL against a Strata broker, driven by security_clients.py.
//   node secure_client.js CONFIG_JSON roundtrip TOPIC N
//       -> produces N records to TOPIC (partition 0), reads them back, prints
//          {"ok":true,"values":[...]} or {"ok":false,"error":NAME,"message":...}
// CONFIG_JSON: {"broker":"host:port","ssl":{"ca":PATH,"cert":PATH,"key":PATH}|null,
//               "sasl":{"mechanism":"plain"|"scram-sha-256"|"scram-sha-512",
//                       "username":U,"password":P}|null}
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const [configText, phase, topic, countText] = process.argv.slice(2);
const config = JSON.parse(configText);

function sslOptions(s) {
  if (!s) return undefined;
  const out = { ca: [fs.readFileSync(s.ca, 'utf-8')], servername: 'localhost' };
  if (s.cert) out.cert = fs.readFileSync(s.cert, 'utf-8');
  if (s.key) out.key = fs.readFileSync(s.key, 'utf-8');
  return out;
}

async function roundtrip() {
  const kafka = new Kafka({
    brokers: [config.broker],
    clientId: 'strata-secure',
    logLevel: logLevel.NOTHING,
    ssl: sslOptions(config.ssl),
    sasl: config.sasl || undefined,
    connectionTimeout: 5000,
    authenticationTimeout: 5000,
    retry: { retries: 2, initialRetryTime: 200 },
  });
  const n = Number(countText);
  const producer = kafka.producer();
  await producer.connect();
  const values = [];
  for (let i = 0; i < n; i++) values.push(`kafkajs-${i}`);
  await producer.send({ topic, messages: values.map((v) => ({ partition: 0, value: v })) });
  await producer.disconnect();
  const consumer = kafka.consumer({ groupId: `secure-${topic}` });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const got = [];
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out reading back')), 30000);
    consumer.run({
      eachMessage: async ({ message }) => {
        got.push(message.value.toString());
        if (got.length >= n) {
          clearTimeout(timer);
          resolve();
        }
      },
    });
  });
  await consumer.disconnect();
  return got;
}

(async () => {
  try {
    if (phase !== 'roundtrip') throw new Error(`unknown phase ${phase}`);
    const values = await roundtrip();
    console.log(JSON.stringify({ ok: true, values }));
    process.exit(0);
  } catch (e) {
    console.log(JSON.stringify({ ok: false, error: e.name || e.type, message: String(e.message) }));
    process.exit(0);
  }
})();
