// kafkajs producing for a while over SASL PLAIN, driven by tests/security/reauth.py:
//   node reauth_producer.js BROKER SECONDS -> {"sent":N} or {"error":...}
// kafkajs re-authenticates (KIP-368) before the session lifetime the broker announced.
const { Kafka, logLevel } = require('kafkajs');

const [broker, secondsText] = process.argv.slice(2);
(async () => {
  const kafka = new Kafka({
    brokers: [broker], logLevel: logLevel.NOTHING, reauthenticationThreshold: 500,
    sasl: { mechanism: 'plain', username: 'alice', password: 'alice-secret' },
  });
  const producer = kafka.producer();
  await producer.connect();
  let sent = 0;
  const end = Date.now() + Number(secondsText) * 1000;
  while (Date.now() < end) {
    await producer.send({ topic: 'reauth-js', messages: [{ value: `v${sent}` }] });
    sent++;
    await new Promise((r) => setTimeout(r, 100));
  }
  await producer.disconnect();
  console.log(JSON.stringify({ sent }));
})().catch((e) => console.log(JSON.stringify({ error: `${e.name}: ${e.message}` })));
