// One KIP-848 consumer-group member on @platformatic/kafka (groupProtocol 'consumer'), for the
// group tests: node kip848_worker_platformatic.js BOOTSTRAP GROUP TOPIC EVENTS_FILE
// Appends JSON lines: {"ev":"assign"|"revoke","parts":[...]} with the partitions added to /
// removed from this member's assignment (incremental), {"ev":"rec",...} per record (written,
// then its offset committed: commit after processing; {"ev":"commit_failed",...} if that
// fails), {"ev":"stale",...} per record skipped as a re-read (see `floor`), and
// {"ev":"closed"} after an orderly close (heartbeat with epoch -1) on SIGTERM.
// The library has no rebalance event in this protocol: it updates consumer.assignments and
// then sends the heartbeat that acknowledges the change, so the assignment is diffed when a
// heartbeat starts (i.e. before a revocation is acknowledged) and on a 100 ms poll.
const fs = require('fs');
process.on('SIGTERM', () => shutdown());   // first: loading the library takes ~0.4 s
const { Consumer, stringDeserializers } = require('@platformatic/kafka');

const [bootstrap, group, topic, eventsPath] = process.argv.slice(2);
// STRATA_RECORD_PAUSE_MS: a pause after each record, so processing lags fetching (by hand:
// 15 ms makes the client's rewinds below `floor` happen in every kip848_clients run).
const pauseMs = Number(process.env.STRATA_RECORD_PAUSE_MS || 0);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const emit = (e) => fs.appendFileSync(eventsPath, JSON.stringify({ ...e, t: Date.now() / 1000 }) + '\n');
const consumer = new Consumer({
  groupId: group, clientId: 'kip848-worker-platformatic', bootstrapBrokers: [bootstrap],
  groupProtocol: 'consumer', deserializers: stringDeserializers, maxWaitTime: 1000,
  // sessionTimeout/heartbeatInterval are the broker's in this protocol; set only so the
  // client-side validation (rebalanceTimeout >= sessionTimeout) accepts rebalanceTimeout.
  sessionTimeout: 10000, rebalanceTimeout: 10000, heartbeatInterval: 1000,
});

// The offset below which a record of a partition is a re-read, not the member's to process:
// what it committed itself, and on (re)assignment the group's committed offset. The library
// (1.35) puts every partition it holds back at the committed offset fetched when its
// assignment changes, kept partitions too, and delivers records fetched before a revocation
// after the partition comes back; a member whose processing lags its fetches would read
// again what it or another member already processed and committed. Such records are logged
// ({"ev":"stale"}) and skipped; one skipped wrongly would show as a record nobody consumed.
const floor = new Map();
const floorAsked = new Map();   // partition -> the pending OffsetFetch of its committed offset
function raiseFloor(p, offset) {
  if (offset > (floor.get(p) ?? -1)) floor.set(p, offset);
}
function askFloor(p) {
  const asked = consumer.listCommittedOffsets({ topics: [{ topic, partitions: [p] }] })
    .then((m) => {
      const o = (m.get(topic) || [])[p];
      if (held.has(p) && o !== undefined && o >= 0n) raiseFloor(p, Number(o));
    })
    .catch((e) => console.error(`committed offset of p${p}: ${errText(e)}`))
    .finally(() => { if (floorAsked.get(p) === asked) floorAsked.delete(p); });
  floorAsked.set(p, asked);
}

let held = new Set();
function checkAssignment() {
  const mine = (consumer.assignments || []).find((a) => a.topic === topic);
  const now = new Set(mine ? mine.partitions : []);
  const removed = [...held].filter((p) => !now.has(p)).sort((a, b) => a - b);
  const added = [...now].filter((p) => !held.has(p)).sort((a, b) => a - b);
  held = now;
  for (const p of removed) floor.delete(p);
  for (const p of added) askFloor(p);
  if (removed.length) emit({ ev: 'revoke', parts: removed });
  if (added.length) emit({ ev: 'assign', parts: added });
}
consumer.on('consumer:heartbeat:start', checkAssignment);
const poll = setInterval(checkAssignment, 100);
for (const ev of ['consumer:heartbeat:error', 'error']) {
  consumer.on(ev, (e) => console.error(`${ev}:`, (e && e.error) || e));
}

let stopping = false;
let stream = null;
let joining = Promise.resolve();
let inflight = Promise.resolve();

async function handle(message) {
  const p = message.partition;
  const o = Number(message.offset);
  checkAssignment();
  if (floorAsked.has(p)) await floorAsked.get(p);
  // Records already buffered for a partition revoked since the fetch belong to the new owner.
  if (!held.has(p)) return;
  if (o < (floor.get(p) ?? -1)) {
    emit({ ev: 'stale', p, o });
    return;
  }
  emit({ ev: 'rec', p, o, v: message.value === undefined ? null : String(message.value) });
  if (pauseMs > 0) await sleep(pauseMs);
  for (let attempt = 1; ; attempt++) {
    try {
      await message.commit();
      raiseFloor(p, o + 1);
      return;
    } catch (e) {
      // STALE_MEMBER_EPOCH: the commit raced a heartbeat that bumped our epoch (e.g. the one
      // acknowledging a revocation). The library does not retry it; like the Java client,
      // retry with the new epoch, while the partition is still ours.
      const stale = e.findBy && e.findBy('apiId', 'STALE_MEMBER_EPOCH');
      console.error(`commit p${p} o${o} attempt ${attempt} failed: ${errText(e)}`);
      if (stale && attempt < 4 && !stopping) {
        await new Promise((r) => {   // the epoch usually arrived already; else the next heartbeat
          const done = () => { clearTimeout(timer); consumer.off('consumer:heartbeat:end', done); r(); };
          const timer = setTimeout(done, attempt === 1 ? 100 : 3000);
          if (attempt > 1) consumer.on('consumer:heartbeat:end', done);
        });
        checkAssignment();
        if (held.has(p)) continue;
      }
      emit({ ev: 'commit_failed', p, o, err: errText(e) });
      return;
    }
  }
}

function errText(e) {
  const inner = ((e && e.errors) || []).filter(Boolean).map((x) => `${x.apiId || x.code}: ${x.message}`);
  return [String((e && e.message) || e), ...inner].join('; ');
}

async function main() {
  while (!stopping) {
    try {
      joining = consumer.consume({
        topics: [topic], autocommit: false, mode: 'committed', fallbackMode: 'earliest',
      });
      stream = await joining;
      for await (const message of stream) {
        if (stopping) continue;   // drain until shutdown()'s stream.close() ends the stream
        inflight = handle(message);
        await inflight;
      }
    } catch (e) {
      if (stopping) break;
      console.error('consume error (retrying):', e);
      await sleep(500);
    }
  }
}

async function shutdown() {
  if (stopping) return;
  stopping = true;
  try {
    await Promise.race([joining.catch(() => {}), sleep(5000)]);   // so close() leaves the group
    await inflight;
    clearInterval(poll);
    if (stream) await stream.close().catch((e) => console.error('stream close:', e));
    await consumer.close();
    emit({ ev: 'closed' });
    process.exit(0);
  } catch (e) {
    console.error('close failed:', e);
    process.exit(1);
  }
}

main().catch((e) => console.error('main:', e));
