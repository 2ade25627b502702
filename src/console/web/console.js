// Strata's web console: one page, routes in the URL's hash, data from /api
// (docs/formats/console-api.md). Every value from the cluster reaches the page as text
// (textContent), never as markup.
'use strict';

const view = document.getElementById('view');

// el('td', {class: 'num'}, 'text', child...): an element with attributes and children.
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function link(hash, text) { return el('a', {href: '#' + hash}, text); }

// columns: [[title, row => cell, 'num'?]]; a cell is text or a node.
function table(columns, rows, attrs) {
  return el('table', attrs,
    el('thead', {}, el('tr', {}, columns.map(([title, , cls]) => el('th', {class: cls}, title)))),
    el('tbody', {}, rows.map(r => el('tr', {}, columns.map(([, cell, cls]) => el('td', {class: cls}, cell(r)))))));
}

// The reads of the page shown; route() aborts them when the user moves on, so a page that
// loads late never replaces the one that followed it.
let reads = new AbortController();

async function api(path) {
  const res = await fetch('/api' + path, {headers: {Accept: 'application/json'}, signal: reads.signal});
  let body;
  try { body = await res.json(); } catch (e) { body = {error: res.status + ' ' + res.statusText}; }
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

// A write: JSON in, JSON out; refused writes throw with the server's reason.
async function send(method, path, body) {
  const res = await fetch('/api' + path, {method, headers: {'Content-Type': 'application/json', Accept: 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body)});
  const answer = await res.json().catch(() => ({error: res.status + ' ' + res.statusText}));
  if (!res.ok) throw new Error(answer.error || res.statusText);
  return answer;
}

let settings = {read_only: true};  // until /api/settings says otherwise

// A form whose submit runs `action(values)`, then `after()`; failures shown beside it.
function actionForm(id, title, fields, action, after) {
  if (settings.read_only) return null;
  const status = el('span', {class: 'status', role: 'status'});
  const form = el('form', {class: 'controls', id, onsubmit: async e => {
    e.preventDefault();
    status.textContent = '';
    status.className = 'status';
    try {
      await action(Object.fromEntries(new FormData(form)));
      await after();
    } catch (err) {
      status.textContent = err.message;
      status.className = 'status error';
    }
  }}, el('strong', {}, title), fields.map(([label, input]) => el('label', {}, label, ' ', input)),
  el('button', {type: 'submit'}, title), status);
  return form;
}

function input(name, attrs) { return el('input', Object.assign({name}, attrs || {})); }

function show(...nodes) { view.replaceChildren(...nodes.filter(n => n !== null && n !== undefined && n !== '')); }
function problem(e) { return el('p', {class: 'error', role: 'alert'}, String(e.message || e)); }
function time(ms) { return ms >= 0 ? new Date(Number(ms)).toISOString().replace('T', ' ').replace('Z', '') : '-'; }

// --- Live charts: a page polls every POLL_MS while it is shown (route() stops it).

const POLL_MS = 2000;
const CHART_POINTS = 90;  // three minutes
let poller = null;
let shown = 0;  // the route's generation: a poll of a page no longer shown stops

// Runs `tick` every `every` ms after the previous one ended (never two at once) while
// the page that started it is shown.
function poll(every, tick) {
  clearTimeout(poller);
  const mine = shown;
  const next = () => { if (mine === shown) poller = setTimeout(() => tick().catch(() => {}).finally(next), every); };
  next();
}

// An SVG line chart of named series, each [[time ms, value]...]; redrawn by draw().
class LiveChart {
  constructor(id, title, unit) {
    this.series = new Map();
    this.unit = unit;
    this.svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    this.svg.setAttribute('viewBox', '0 0 640 180');
    this.svg.setAttribute('class', 'chart');
    this.legend = el('div', {class: 'legend'});
    this.node = el('figure', {id}, el('figcaption', {}, title), this.svg, this.legend);
  }

  add(name, time, value) {
    const points = this.series.get(name) || [];
    points.push([time, value]);
    while (points.length > CHART_POINTS) points.shift();
    this.series.set(name, points);
  }

  draw() {
    const ns = 'http://www.w3.org/2000/svg';
    const all = [...this.series.values()].flat();
    if (!all.length) return;
    const t0 = Math.min(...all.map(p => p[0])), t1 = Math.max(...all.map(p => p[0]), t0 + 1);
    const top = Math.max(1, ...all.map(p => p[1]));
    const x = t => 40 + (t - t0) / (t1 - t0) * 590, y = v => 165 - v / top * 150;
    this.svg.replaceChildren();
    const text = (tx, ty, s) => { const e = document.createElementNS(ns, 'text'); e.setAttribute('x', tx); e.setAttribute('y', ty); e.textContent = s; return e; };
    this.svg.append(text(2, 18, fmt(top)), text(2, 168, '0'));
    this.legend.replaceChildren();
    let i = 0;
    for (const [name, points] of this.series) {
      const line = document.createElementNS(ns, 'polyline');
      line.setAttribute('points', points.map(p => `${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(' '));
      line.setAttribute('class', 'series s' + (i % 6));
      this.svg.append(line);
      const last = points[points.length - 1][1];
      this.legend.append(el('span', {class: 'key s' + (i % 6)}, `${name}: ${fmt(last)} ${this.unit}`));
      i++;
    }
  }
}

function bytesText(n) {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : String(n)) + ' ' + units[i];
}

function fmt(v) { return v >= 1e6 ? (v / 1e6).toFixed(1) + 'M' : v >= 1e4 ? (v / 1e3).toFixed(1) + 'k' : String(Math.round(v)); }

// Records per second into each topic, from the growth of its high watermarks.
function throughputChart(first) {
  const chart = new LiveChart('throughput', 'Records in per second (live)', 'records/s');
  let before = new Map(first.topics.map(t => [t.name, t.high_watermarks])), at = Date.now();
  poll(POLL_MS, async () => {
    const t = await api('/topics');
    const now = Date.now();
    for (const topic of t.topics) {
      // A partition without an answer leaves the sum: no sample from this poll or the next.
      if (topic.internal || !before.has(topic.name) || topic.unanswered) continue;
      chart.add(topic.name, now, Math.max(0, topic.high_watermarks - before.get(topic.name)) * 1000 / (now - at));
    }
    before = new Map(t.topics.filter(x => !x.unanswered).map(x => [x.name, x.high_watermarks]));
    at = now;
    chart.draw();
  });
  return chart.node;
}

// --- Cluster and topics

async function clusterPage() {
  const [c, t] = await Promise.all([api('/cluster'), api('/topics')]);
  show(el('h1', {}, 'Cluster'),
    el('dl', {class: 'facts'}, el('dt', {}, 'Cluster id'), el('dd', {id: 'cluster-id'}, c.cluster_id || '-'),
      el('dt', {}, 'Controller'), el('dd', {}, c.controller), el('dt', {}, 'Brokers'), el('dd', {}, c.brokers.length),
      el('dt', {}, 'Topics'), el('dd', {}, t.topics.length)),
    el('h2', {}, 'Brokers'),
    table([['Id', b => b.id, 'num'], ['Host', b => b.host], ['Port', b => b.port, 'num'], ['Rack', b => b.rack || '-'],
      ['Role', b => b.id === c.controller ? 'controller' : '']], c.brokers, {id: 'brokers'}),
    throughputChart(t));
}

async function topicsPage() {
  const t = await api('/topics');
  show(el('h1', {}, 'Topics'),
    actionForm('create-topic', 'Create topic', [['Name', input('name', {required: true, pattern: '[A-Za-z0-9._-]+'})],
      ['Partitions', input('partitions', {type: 'number', min: 1, value: 1})],
      ['Replication factor', input('replication_factor', {type: 'number', min: 1, value: 1})]],
    v => send('POST', '/topics', {name: v.name, partitions: Number(v.partitions), replication_factor: Number(v.replication_factor)}),
    topicsPage),
    table([['Name', x => link('/topic/' + x.name, x.name)], ['Partitions', x => x.partitions, 'num'],
      ['Replication', x => x.replication_factor, 'num'], ['Records', x => x.records, 'num'],
      ['Size', x => bytesText(x.bytes), 'num'],
      ['Under-replicated', x => x.under_replicated, 'num'], ['Leaderless', x => x.leaderless, 'num'],
      ['Internal', x => x.internal ? 'yes' : '']], t.topics, {id: 'topics'}));
}

async function topicPage(name) {
  const t = await api('/topics/' + name);
  const p = t.partitions;
  show(el('h1', {}, 'Topic ', el('code', {}, name)),
    el('h2', {}, 'Partitions'),
    table([['Partition', x => x.partition, 'num'], ['Leader', x => x.leader, 'num'], ['Epoch', x => x.leader_epoch, 'num'],
      ['Replicas', x => x.replicas.join(',')], ['ISR', x => x.isr.join(',')], ['Offline', x => x.offline.join(',')],
      ['Log start', x => x.log_start_offset, 'num'], ['High watermark', x => x.high_watermark, 'num'],
      ['Records', x => x.high_watermark - x.log_start_offset, 'num'],
      ['Size', x => x.bytes === undefined ? '-' : bytesText(x.bytes), 'num'],
      ['', x => el('span', {}, link('/topic/' + name + '/' + x.partition + '/batches', 'batches'), ' ',
        link('/topic/' + name + '/' + x.partition + '/messages', 'messages'))]], p, {id: 'partitions'}),
    actionForm('add-partitions', 'Add partitions', [['New total', input('count', {type: 'number', min: p.length + 1, value: p.length + 1})]],
      v => send('POST', `/topics/${name}/partitions`, {count: Number(v.count)}), () => topicPage(name)),
    el('h2', {}, 'Configs'),
    actionForm('alter-config', 'Set config', [['Name', input('name', {required: true, placeholder: 'retention.ms'})],
      ['Value (empty: remove the override)', input('value')]],
    v => send('POST', `/topics/${name}/configs`, {name: v.name, value: v.value === '' ? null : v.value}), () => topicPage(name)),
    t.configs_error ? problem({message: t.configs_error}) :
      table([['Name', x => x.name], ['Value', x => x.sensitive ? '(sensitive)' : (x.value === null ? 'null' : x.value)],
        ['Source', x => SOURCES[x.source] || x.source]], t.configs, {id: 'configs'}),
    actionForm('delete-topic', 'Delete topic', [['Type the name to confirm', input('confirm', {required: true})]],
      v => {
        if (v.confirm !== name) throw new Error('the name does not match');
        return send('DELETE', '/topics/' + name);
      }, () => { location.hash = '#/topics'; }));
}

const SOURCES = {1: 'topic', 2: 'broker (dynamic)', 3: 'cluster default (dynamic)', 4: 'broker (static)', 5: 'default', 6: 'logger'};

// --- The batch inspector

async function batchesPage(name, partition, params) {
  const offset = Number(params.get('offset') || 0);
  const r = await api(`/topics/${name}/partitions/${partition}/batches?offset=${offset}`);
  const base = `/topic/${name}/${partition}`;
  const flags = b => [b.transactional ? 'txn' : '', b.control ? 'control' + (b.marker ? ' ' + b.marker.type : '') : '',
    b.crc_valid ? '' : 'BAD CRC'].filter(Boolean).join(' ');
  const last = r.batches.length ? r.batches[r.batches.length - 1].last_offset + 1 : null;
  show(el('h1', {}, 'Batches of ', el('code', {}, name + '-' + partition)),
    el('p', {class: 'facts'}, `log start ${r.log_start_offset} · high watermark ${r.high_watermark} · last stable ${r.last_stable_offset}`),
    offsetForm(base + '/batches', offset),
    table([['Offsets', b => link(`${base}/batch/${b.base_offset}`, `${b.base_offset}–${b.last_offset}`)],
      ['Records', b => b.record_count, 'num'], ['Bytes', b => b.size, 'num'], ['Codec', b => b.codec],
      ['Producer', b => b.producer_id >= 0 ? `${b.producer_id} e${b.producer_epoch}` : '-'],
      ['Sequence', b => b.base_sequence >= 0 ? `${b.base_sequence}–${b.last_sequence}` : '-'],
      ['Leader epoch', b => b.partition_leader_epoch, 'num'], ['Max timestamp', b => time(b.max_timestamp)],
      ['Flags', flags], ['Gap before', b => b.gap ? b.gap + ' offsets' : '', 'num'],
      ['CRC', b => b.crc_valid ? 'ok' : 'mismatch']], r.batches, {id: 'batches'}),
    el('p', {class: 'facts'}, r.end === 'partial' || r.end === 'end' ? '' : 'stopped: ' + r.end),
    last !== null && last < r.high_watermark ? link(`${base}/batches?offset=${last}`, 'next batches →') : null);
}

async function batchPage(name, partition, offset) {
  const d = await api(`/topics/${name}/partitions/${partition}/batches/${offset}`);
  const h = d.header;
  show(el('h1', {}, 'Batch ', el('code', {}, `${name}-${partition} @ ${h.base_offset}`)),
    link(`/topic/${name}/${partition}/batches?offset=${h.base_offset}`, '← batches'),
    el('h2', {}, 'Header'),
    el('dl', {class: 'facts', id: 'header'}, Object.entries(h).flatMap(([k, v]) => [el('dt', {}, k), el('dd', {}, String(v))])),
    el('h2', {}, 'Records'),
    d.records_error ? problem({message: d.records_error}) : null,
    recordsTable(d.records, 'text'),
    el('h2', {}, 'Byte map (strata dump-log --explain)'),
    el('pre', {class: 'bytes', id: 'explain'}, d.explain));
}

// --- The message browser

function render(v, mode) {
  if (v === null) return el('span', {class: 'null'}, 'null');
  if (mode === 'hex') {
    const raw = atob(v.base64);
    let out = '';
    for (let i = 0; i < raw.length; i++) out += raw.charCodeAt(i).toString(16).padStart(2, '0') + (i % 16 === 15 ? '\n' : ' ');
    return el('pre', {class: 'hex'}, out.trim());
  }
  if (v.text === null) return el('span', {class: 'binary'}, `(${v.size} bytes, binary)`);
  if (mode === 'json') {
    try { return el('pre', {class: 'json'}, JSON.stringify(JSON.parse(v.text), null, 2)); } catch (e) { /* not JSON */ }
  }
  return v.text + (v.cut ? ' …' : '');
}

function recordsTable(records, mode) {
  return table([['Offset', r => r.offset, 'num'], ['Timestamp', r => time(r.timestamp)],
    ['Key', r => render(r.key, mode)], ['Value', r => r.control ? `${r.control.type} marker` : render(r.value, mode)],
    ['Headers', r => r.headers.map(h => el('div', {}, h.key + ': ', render(h.value, mode === 'hex' ? 'text' : mode)))]],
  records, {id: 'records'});
}

function offsetForm(hash, offset) {
  const input = el('input', {type: 'number', min: 0, name: 'offset', value: offset});
  return el('form', {class: 'controls', onsubmit: e => { e.preventDefault(); location.hash = `#${hash}?offset=${input.value}`; }},
    el('label', {}, 'From offset ', input), el('button', {type: 'submit'}, 'Go'));
}

async function messagesPage(name, partition, params) {
  const q = new URLSearchParams();
  const from = params.get('from') || 'oldest';
  if (from === 'offset') q.set('offset', params.get('at') || '0');
  else if (from === 'timestamp') q.set('timestamp', String(Date.parse(params.get('at') || '') || 0));
  else q.set('from', from);
  q.set('limit', params.get('limit') || '50');
  if (params.get('filter')) q.set('filter', params.get('filter'));
  const mode = params.get('view') || 'text';
  const r = await api(`/topics/${name}/partitions/${partition}/messages?${q}`);
  const field = (label, input) => el('label', {}, label, ' ', input);
  const select = (n, options, value) => el('select', {name: n}, options.map(o => el('option', {value: o, selected: o === value}, o)));
  const form = el('form', {class: 'controls', id: 'browse', onsubmit: e => {
    e.preventDefault();
    const f = new URLSearchParams(new FormData(form));
    location.hash = `#/topic/${name}/${partition}/messages?${f}`;
  }},
  field('From', select('from', ['oldest', 'newest', 'offset', 'timestamp'], from)),
  field('Offset or time', el('input', {name: 'at', value: params.get('at') || '', placeholder: '42 or 2026-12-06T10:00:00Z'})),
  field('Limit', el('input', {name: 'limit', type: 'number', min: 1, max: 500, value: params.get('limit') || '50'})),
  field('Filter', el('input', {name: 'filter', value: params.get('filter') || '', placeholder: 'in key, value or header'})),
  field('View', select('view', ['text', 'json', 'hex'], mode)),
  el('button', {type: 'submit'}, 'Show'));
  show(el('h1', {}, 'Messages of ', el('code', {}, name + '-' + partition)), form,
    el('p', {class: 'facts'}, `${r.records.length} records from offset ${r.from} (log start ${r.log_start_offset}, high watermark ${r.high_watermark}); stopped at ${r.end}`),
    recordsTable(r.records, mode));
}

// --- Consumer groups

async function groupsPage() {
  const g = await api('/groups');
  show(el('h1', {}, 'Consumer groups'),
    table([['Group', x => link('/group/' + encodeURIComponent(x.group), x.group)], ['State', x => x.state],
      ['Protocol type', x => x.protocol_type]], g.groups, {id: 'groups'}));
}

async function groupPage(id) {
  const g = await api('/group?id=' + encodeURIComponent(id));
  const parts = a => a ? a.map(x => `${x.topic}: ${x.partitions.join(',')}`).join('; ') || '-' : '-';
  const kip848 = g.type === 'consumer';  // KIP-848: epochs and the target assignment
  const epochs = kip848 ? [el('dt', {}, 'Group epoch'), el('dd', {id: 'group-epoch'}, g.group_epoch),
    el('dt', {}, 'Assignment epoch'), el('dd', {}, g.assignment_epoch)] : [];
  const memberColumns = [['Member', m => m.member_id], ['Client', m => m.client_id], ['Host', m => m.host],
    ['Assigned', m => parts(m.assignment)]];
  if (kip848) memberColumns.push(['Epoch', m => m.member_epoch, 'num'], ['Target', m => parts(m.target_assignment)]);
  show(el('h1', {}, 'Group ', el('code', {}, id)),
    el('dl', {class: 'facts'}, el('dt', {}, 'Type'), el('dd', {id: 'group-type'}, g.type), el('dt', {}, 'State'), el('dd', {}, g.state),
      el('dt', {}, 'Assignor'), el('dd', {}, g.protocol || '-'), ...epochs,
      el('dt', {}, 'Members'), el('dd', {}, g.members.length), el('dt', {}, 'Total lag'), el('dd', {id: 'lag'}, g.lag)),
    el('h2', {}, 'Members'),
    table(memberColumns, g.members, {id: 'members'}),
    el('h2', {}, 'Offsets'),
    table([['Topic', o => link('/topic/' + o.topic, o.topic)], ['Partition', o => o.partition, 'num'],
      ['Committed', o => o.committed, 'num'], ['High watermark', o => o.high_watermark ?? '-', 'num'],
      ['Lag', o => o.lag ?? '-', 'num']], g.offsets, {id: 'offsets'}),
    lagChart(id, g),
    actionForm('reset-offsets', 'Reset offsets', [['Topic', input('topic', {required: true, value: g.offsets[0]?.topic || ''})],
      ['To', el('select', {name: 'to'}, ['earliest', 'latest', 'offset'].map(o => el('option', {value: o}, o)))],
      ['Offset', input('offset', {type: 'number', min: 0})]],
    v => send('POST', '/group/offsets?id=' + encodeURIComponent(id), {topic: v.topic, to: v.to === 'offset' ? Number(v.offset) : v.to}),
    () => groupPage(id)),
    actionForm('delete-group', 'Delete group', [],
      () => send('DELETE', '/group?id=' + encodeURIComponent(id)), () => { location.hash = '#/groups'; }));
}

// The group's total lag, live.
function lagChart(id, first) {
  const chart = new LiveChart('lag-chart', 'Lag (live)', 'records');
  chart.add('lag', Date.now(), first.lag);
  poll(POLL_MS, async () => {
    const g = await api('/group?id=' + encodeURIComponent(id));
    chart.add('lag', Date.now(), g.lag);
    document.getElementById('lag').textContent = g.lag;
    chart.draw();
  });
  return chart.node;
}

// --- Routing

const ROUTES = [
  [/^\/?$/, () => clusterPage()],
  [/^\/topics$/, () => topicsPage()],
  [/^\/topic\/([A-Za-z0-9._-]+)$/, m => topicPage(m[1])],
  [/^\/topic\/([A-Za-z0-9._-]+)\/(\d+)\/batches$/, (m, p) => batchesPage(m[1], m[2], p)],
  [/^\/topic\/([A-Za-z0-9._-]+)\/(\d+)\/batch\/(\d+)$/, m => batchPage(m[1], m[2], m[3])],
  [/^\/topic\/([A-Za-z0-9._-]+)\/(\d+)\/messages$/, (m, p) => messagesPage(m[1], m[2], p)],
  [/^\/groups$/, () => groupsPage()],
  [/^\/group\/(.+)$/, m => groupPage(decodeURIComponent(m[1]))],
];

async function route() {
  const [path, query] = location.hash.replace(/^#/, '').split('?');
  const params = new URLSearchParams(query || '');
  clearTimeout(poller);
  shown++;
  reads.abort();
  reads = new AbortController();
  view.setAttribute('aria-busy', 'true');
  try {
    const found = ROUTES.find(([re]) => re.test(path));
    if (!found) show(el('h1', {}, 'Not found'), link('/', 'the cluster'));
    else await found[1](path.match(found[0]), params);
  } catch (e) {
    if (e.name === 'AbortError') return;  // the user moved on
    show(el('h1', {}, 'Cannot show this page'), problem(e));
  } finally {
    view.setAttribute('aria-busy', 'false');
  }
}

window.addEventListener('hashchange', route);
api('/settings').then(s => { settings = s; }).catch(() => {}).finally(() => {
  document.getElementById('mode').textContent = settings.read_only ? 'read-only' : '';
  route();
});
