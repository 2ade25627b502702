// The web console in a real browser: Debian's Chromium, headless, driven by
// playwright-core (no browser download). Run by tests/compat/console_browser.py against
// a broker holding the data console_api.py writes:
//   node console_browser.js http://127.0.0.1:PORT TOPIC GROUP SCREENSHOT_DIR LAG
// (LAG: what `strata group describe` prints for GROUP; `compacted`-0 holds batches the
// cleaner has removed)
// Clicks from the cluster page to the topics (creating one through its form), a topic,
// its batches, one batch opened (header, records, byte map), the message browser with a
// filter and the hex view, and the group's lag, reset to the earliest offsets by its form. Exits 1 with the failing step (and a screenshot) on any mismatch.
'use strict';

const {chromium} = require('playwright-core');
const path = require('path');

const [base, topic, group, shots, strataLag] = process.argv.slice(2);

function check(cond, what) {
  if (!cond) throw new Error(what);
  console.log('ok  ', what);
}

async function text(page, selector) {
  return (await page.locator(selector).first().innerText()).trim();
}

async function main() {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  page.setDefaultTimeout(15000);
  try {
    await page.goto(base + '/');
    await page.waitForSelector('#brokers tbody tr');
    check((await text(page, '#cluster-id')).length > 0, 'the cluster page names the cluster');
    check((await page.locator('#brokers tbody tr').count()) === 1, 'one broker listed');
    check((await text(page, '#mode')) === '', 'not read-only');
    await page.waitForFunction(() => /busy: [1-9]/.test(document.querySelector('#throughput .legend')?.textContent || ''),
      null, {timeout: 20000});
    check((await page.locator('#throughput polyline').count()) >= 1, 'the live chart draws the busy topic\'s records/s');

    await page.click('header nav a[href="#/topics"]');
    await page.waitForSelector('#topics');
    await page.fill('#create-topic input[name=name]', 'from-browser');
    await page.fill('#create-topic input[name=partitions]', '3');
    await page.click('#create-topic button[type=submit]');
    await page.waitForSelector('#topics a[href="#/topic/from-browser"]');
    check(true, 'a topic created through the form is listed');
    await page.fill('#create-topic input[name=name]', 'from-browser');
    await page.click('#create-topic button[type=submit]');
    await page.waitForSelector('#create-topic .status.error');
    check((await text(page, '#create-topic .status')).includes('TOPIC_ALREADY_EXISTS'), 'a second one is refused, with Kafka\'s error');
    await page.click(`#topics a[href="#/topic/${topic}"]`);
    await page.waitForSelector('#partitions tbody tr');
    check((await page.locator('#partitions tbody tr').count()) === 2, 'the topic\'s two partitions');
    check((await page.locator('#configs').innerText()).includes('cleanup.policy'), 'its configs');

    await page.click(`#partitions a[href="#/topic/${topic}/0/batches"]`);
    await page.waitForSelector('#batches tbody tr');
    const listed = await page.locator('#batches').innerText();
    check(listed.includes('lz4'), 'the batch inspector shows codecs');
    check(listed.includes('control COMMIT') && listed.includes('control ABORT'), 'and the transaction markers');
    check(!listed.includes('mismatch'), 'every CRC valid');

    await page.locator('#batches tbody tr a').first().click();
    await page.waitForSelector('#explain');
    check((await text(page, '#explain')).includes('baseOffset'), 'a batch opened shows the byte map');
    check((await page.locator('#header').innerText()).includes('crc_valid'), 'and its header fields');
    check((await page.locator('#records').innerText()).includes('key-0'), 'and its records');

    await page.goto(`${base}/#/topic/${topic}/0/messages`);
    await page.waitForSelector('#records tbody tr');
    await page.fill('#browse input[name=filter]', 't-17');
    await page.click('#browse button[type=submit]');
    await page.waitForFunction(() => document.querySelectorAll('#records tbody tr').length === 1);
    check((await page.locator('#records tbody tr td').first().innerText()).trim() === '17', 'the filter finds record 17');
    await page.selectOption('#browse select[name=view]', 'hex');
    await page.click('#browse button[type=submit]');
    await page.waitForSelector('#records pre.hex');
    check((await page.locator('#records pre.hex').first().innerText()).startsWith('6b 65 79'), 'the hex view ("key")');

    await page.goto(`${base}/#/topic/from-kcat/0/messages`);
    // (a hash change: the last page's #records stays until the new one is shown)
    await page.waitForFunction(() => (document.querySelector('#records')?.innerText || '').includes('hello from kcat'));
    const kcat = await page.locator('#records').innerText();
    check(kcat.includes('hello from kcat 1') && kcat.includes('source: kcat') && kcat.includes('trace: t42'),
      'kcat\'s records shown with their headers');

    await page.goto(`${base}/#/topic/compacted/0/batches`);
    await page.waitForSelector('#batches tbody tr');
    // The cleaner may have moved on since the runner saw a gap: compare with the API now.
    const api = await page.evaluate(async () => (await fetch('/api/topics/compacted/partitions/0/batches')).json());
    const gapped = api.batches.find(b => b.gap > 0);
    check(gapped !== undefined, 'the log of compacted-0 has a compaction gap');
    const gapRow = page.locator('#batches tbody tr', {has: page.locator(`a[href="#/topic/compacted/0/batch/${gapped.base_offset}"]`)});
    check((await gapRow.innerText()).includes(`${gapped.gap} offsets`),
      `the batch inspector shows the ${gapped.gap} offsets missing before ${gapped.base_offset}`);

    await page.click('header nav a[href="#/groups"]');
    await page.waitForSelector('#groups');
    await page.click(`#groups a[href="#/group/${encodeURIComponent(group)}"]`);
    await page.waitForSelector('#offsets tbody tr');
    check((await text(page, '#lag')) === strataLag, `the group's lag, ${strataLag} as strata group describe prints`);
    await page.waitForSelector('#lag-chart polyline', {state: 'attached'});  // a flat line has no height
    check(true, 'and its live lag chart');
    await page.fill('#reset-offsets input[name=topic]', topic);
    await page.selectOption('#reset-offsets select[name=to]', 'earliest');
    await page.click('#reset-offsets button[type=submit]');
    await page.waitForFunction(() => document.getElementById('lag') && document.getElementById('lag').textContent === '25');
    check(true, 'reset to the earliest offsets: lag 25');

    await page.goto(`${base}/#/topic/no-such-topic`);
    await page.waitForSelector('.error');
    check((await text(page, '.error')).includes('no topic'), 'an unknown topic is a clear error');
    check(errors.length === 0, 'no script errors: ' + errors.join('; '));
    await page.screenshot({path: path.join(shots, 'console.png'), fullPage: true});
  } catch (e) {
    await page.screenshot({path: path.join(shots, 'console-failed.png'), fullPage: true}).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
}

main().then(() => console.log('console in Chromium: OK'), e => {
  console.error('FAILED:', e.message);
  process.exit(1);
});
