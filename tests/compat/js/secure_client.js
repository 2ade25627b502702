// kafkajs over TLS and/or SASL against a Strata broker, driven by security_clients.py.
//   node secure_client.js CONFIG_JSON roundtrip TOPIC N
//       -> produces N records to TOPIC (partition 0), reads them back, prints
//          {"ok":true,"values":[...]} or {"ok":false,"error":NAME,"message":...}
//   node secure_client.js CONFIG_JSON produce TOPIC N      -> {"ok":true} or the error
//   node secure_client.js CONFIG_JSON consume TOPIC N GROUP -> {"ok":true,"values":[...]} or the error
//   (errors carry "type": kafkajs's Kafka error name, e.g. TOPIC_AUTHORIZATION_FAILED)
// CONFIG_JSON: {"broker":"host:port","ssl":{"ca":PATH,"cert":PATH,"key":PATH}|null,
//               "sasl":{"mechanism":"plain"|"scram-sha-256"|"scram-sha-512",
//                       "username":U,"password":P}|null}
const fs = require('fs');
const { Kafka, logLevel } = require('kafkajs');

const [configText, phase, topic, countText, groupArg] = process.argv.slice(2);
const config = JSON.parse(configText);

function sslOptions(s) {
  if (!s) return undefined;
  const out = { ca: [fs.readFileSync(s.ca, 'utf-8')], servername: 'localhost' };
  if (s.cert) out.cert = fs.readFileSync(s.cert, 'utf-8');
  if (s.key) out.key = fs.readFileSync(s.key, 'utf-8');
  return out;
}

// Broker errors kafkajs logs but does not pass on (FindCoordinator's answer, for one:
// kafkajs reports only KafkaJSGroupCoordinatorNotFound): kept for the printed result.
const logged = [];
const logCreator = () => ({ log }) => {
  const e = log && log.error;
  const text = typeof e === 'string' ? e : e && (e.type || e.message);
  if (text && /AUTHORIZATION|authoriz/.test(String(text)) && logged.length < 10) logged.push(String(text));
};

function client() {
  return new Kafka({
    brokers: [config.broker],
    clientId: 'strata-secure',
    logLevel: logLevel.DEBUG,
    logCreator,
    ssl: sslOptions(config.ssl),
    sasl: config.sasl || undefined,
    connectionTimeout: 5000,
    authenticationTimeout: 5000,
    retry: { retries: 2, initialRetryTime: 200 },
  });
}

async function produceOnly() {
  const producer = client().producer();
  await producer.connect();
  try {
    const n = Number(countText);
    const messages = [];
    for (let i = 0; i < n; i++) messages.push({ partition: 0, value: `kafkajs-${i}` });
    await producer.send({ topic, messages });
  } finally {
    await producer.disconnect();
  }
}

async function consumeOnly() {
  const n = Number(countText);
  const consumer = client().consumer({ groupId: groupArg, retry: { retries: 1, initialRetryTime: 200 } });
  await consumer.connect();
  const got = [];
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out reading')), 30000);
      consumer.on(consumer.events.CRASH, (e) => {
        clearTimeout(timer);
        reject(e.payload.error);
      });
      consumer.run({
        eachMessage: async ({ message }) => {
          got.push(message.value.toString());
          if (got.length >= n) {
            clearTimeout(timer);
            resolve();
          }
        },
      }).catch(reject);
    });
  } finally {
    await consumer.disconnect();
  }
  return got;
}

async function roundtrip() {
  const kafka = client();
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
    let values = [];
    if (phase === 'roundtrip') values = await roundtrip();
    else if (phase === 'produce') await produceOnly();
    else if (phase === 'consume') values = await consumeOnly();
    else throw new Error(`unknown phase ${phase}`);
    console.log(JSON.stringify({ ok: true, values }));
    process.exit(0);
  } catch (e) {
    // kafkajs wraps some broker errors (FindCoordinator's) in its own: the chain of causes
    // is where the broker's answer shows.
    const causes = [];
    for (let c = e.cause || e.originalError; c && causes.length < 5; c = c.cause || c.originalError) {
      causes.push(`${c.name || ''} ${c.type || ''} ${c.message || ''}`);
    }
    console.log(JSON.stringify({
      ok: false, error: e.name || e.type, type: e.type || '',
      message: [String(e.message), ...causes].join(' <- ') + (logged.length ? ` (logged: ${logged.join('; ')})` : ''),
    }));
    process.exit(0);
  }
})();
