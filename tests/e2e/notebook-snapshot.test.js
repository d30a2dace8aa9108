// The notebook's snapshot of Python on a plain static host: the first visit takes it and keeps it in the cache of
// the site's build; the next visit restores Python from it (its own loading phase), prints the same, and Stop
// still keeps the namespace; a snapshot that another build made is never restored: Python starts as usual and a
// snapshot of this build replaces it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { SUB_PATH, assertNoProblems, closePage, launchChromium, newPage, site } from './harness.mjs';
import { startStaticHost } from '../../scripts/static-host.mjs';
import { notebookHash } from '../../web/notebook/share.js';

const PYTHON_TIMEOUT = 90_000;
const SNAPSHOT = 'notebook-python-snapshot';

let server, browser, base;
before(async () => {
  server = await startStaticHost({ folder: site, prefix: SUB_PATH }); // no headers: the service worker adds them
  base = `http://localhost:${server.address().port}${SUB_PATH}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await new Promise((done) => (server ? server.close(done) : done()));
});

const pythonReady = (page) => page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
const runButton = (page, n) => page.locator(`.nb-cell[data-cell="${n}"] .nb-cell-tools button`).first();
const phases = (page) => page.evaluate(() => window.notebookLoad.map((e) => e.message));

/** The kept snapshot's header (its key) and the cache that holds it, once it is there. */
async function keptSnapshot(page) {
  await page.waitForFunction(async (name) => {
    for (const cache of await caches.keys()) if (await (await caches.open(cache)).match(new URL(name, location.href).href)) return true;
    return false;
  }, SNAPSHOT, { timeout: 60_000, polling: 200 });
  return page.evaluate(async (name) => {
    for (const cache of await caches.keys()) {
      const kept = await (await caches.open(cache)).match(new URL(name, location.href).href);
      if (!kept) continue;
      const bytes = new Uint8Array(await kept.arrayBuffer());
      const length = new DataView(bytes.buffer).getUint32(0, true);
      return { cache, caches: await caches.keys(), header: JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))), size: bytes.length };
    }
    return null;
  }, SNAPSHOT);
}

test('a return visit restores Python from the snapshot of this build; another build\'s is not restored', { timeout: 300_000 }, async () => {
  const page = await newPage(browser);
  await page.goto(`${base}notebook.html${await notebookHash(['import torch\ntorch.manual_seed(123)\nprint(torch.rand(2, 3))', 'x = 41\nprint("looping")\nwhile True:\n    pass', 'print(x + 1)'])}`);
  await pythonReady(page);
  const first = await phases(page);
  assert.ok(first.includes('Starting Python…') && !first.includes('Restoring Python from its snapshot…'), first.join(' | '));
  await runButton(page, 1).click();
  const printed = await page.locator('.nb-cell[data-cell="1"] .nb-stdout').textContent();
  const kept = await keptSnapshot(page);
  assert.match(kept.cache, /^attention-lab-[0-9a-f]{16}$/, 'kept in the cache named after the build');
  assert.deepEqual(kept.caches, [kept.cache], 'and no other');
  assert.ok(kept.size > 16 * 1024 * 1024, `Python's whole memory (${kept.size} bytes)`);

  // The next visit: restored, the same numbers, and Stop keeps the namespace.
  await page.reload();
  await pythonReady(page);
  const second = await phases(page);
  assert.ok(second.includes('Restoring Python from its snapshot…') && !second.includes('Starting Python…'), second.join(' | '));
  assert.match(await page.textContent('#status'), /restored from the snapshot this browser keeps/);
  await runButton(page, 1).click();
  await page.locator('.nb-cell[data-cell="1"] .nb-stdout').waitFor();
  assert.equal(await page.locator('.nb-cell[data-cell="1"] .nb-stdout').textContent().then((t) => t.trimEnd()), printed.trimEnd()); // the last newline may still be on its way
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  await runButton(page, 2).click();
  await page.locator('.nb-cell[data-cell="2"] .nb-stdout', { hasText: 'looping' }).waitFor();
  await page.click('#stop');
  await page.locator('.nb-cell[data-cell="2"] .nb-error').waitFor();
  assert.match(await page.textContent('.nb-cell[data-cell="2"] .nb-error'), /KeyboardInterrupt/);
  await runButton(page, 3).click();
  await page.locator('.nb-cell[data-cell="3"] .nb-stdout').waitFor();
  assert.equal(await page.textContent('.nb-cell[data-cell="3"] .nb-stdout'), '42', 'x survives the Stop');

  // A snapshot of another build in this build's place (its key differs in one character): not restored.
  await page.evaluate(async ({ name, cache }) => {
    const url = new URL(name, location.href).href;
    const store = await caches.open(cache);
    const bytes = new Uint8Array(await (await store.match(url)).arrayBuffer());
    const at = 4 + new TextDecoder().decode(bytes.subarray(4, 200)).indexOf('"key":"') + 7;
    bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30;
    await store.put(url, new Response(bytes));
  }, { name: SNAPSHOT, cache: kept.cache });
  await page.reload();
  await pythonReady(page);
  const third = await phases(page);
  assert.ok(third.includes('Starting Python…') && !third.includes('Restoring Python from its snapshot…'), third.join(' | '));
  await runButton(page, 1).click();
  await page.locator('.nb-cell[data-cell="1"] .nb-stdout').waitFor();
  assert.equal(await page.locator('.nb-cell[data-cell="1"] .nb-stdout').textContent().then((t) => t.trimEnd()), printed.trimEnd());
  // ...and this build's snapshot takes its place.
  await page.waitForFunction(async ({ name, cache, key }) => {
    const kept = await (await caches.open(cache)).match(new URL(name, location.href).href);
    const bytes = new Uint8Array(await kept.arrayBuffer());
    const length = new DataView(bytes.buffer).getUint32(0, true);
    return JSON.parse(new TextDecoder().decode(bytes.subarray(4, 4 + length))).key === key;
  }, { name: SNAPSHOT, cache: kept.cache, key: kept.header.key }, { timeout: 60_000, polling: 200 });
  assertNoProblems(page);
  await closePage(page);
});
