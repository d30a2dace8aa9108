// The notebook's snapshots of Python on a plain static host: the first visit restores Python from the snapshot the
// site's build made (its own loading phase), prints what a started Python prints, and Stop keeps the namespace; a
// build's snapshot made from other files is refused: Python starts as usual, and a snapshot this browser takes
// is kept in the cache of the site's build and restored on the next visit; on a network too slow for it, the build's
// snapshot is given up within a second and its download stops.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';

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

const BUILD_SNAPSHOT = 'notebook-python-snapshot.gz';
const FIRST_CELL_PRINTS = 'tensor([[0.2961, 0.5166, 0.2517],\n        [0.6886, 0.0740, 0.8665]])';

test('the first visit restores the build\'s snapshot; one of other files is refused and this browser keeps its own', { timeout: 300_000 }, async () => {
  const page = await newPage(browser);
  await page.goto(`${base}notebook.html${await notebookHash(['import torch\ntorch.manual_seed(123)\nprint(torch.rand(2, 3))', 'x = 41\nprint("looping")\nwhile True:\n    pass', 'print(x + 1)'])}`);
  await pythonReady(page);
  const first = await phases(page);
  assert.ok(first.includes('Restoring Python from its snapshot…') && !first.includes('Starting Python…'), first.join(' | '));
  assert.match(await page.textContent('#status'), /restored from the site's snapshot/);
  await runButton(page, 1).click();
  await page.locator('.nb-cell[data-cell="1"] .nb-stdout').waitFor();
  // the book's numbers (the last newline may still be on its way)
  assert.equal(await page.locator('.nb-cell[data-cell="1"] .nb-stdout').textContent().then((t) => t.trimEnd()), FIRST_CELL_PRINTS);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  await runButton(page, 2).click();
  await page.locator('.nb-cell[data-cell="2"] .nb-stdout', { hasText: 'looping' }).waitFor();
  const stopped = performance.now();
  await page.click('#stop');
  // What Stop did, from the status line (an interrupt not taken in time restarts Python, and x is gone).
  await page.waitForFunction(() => /^Stopped/.test(document.getElementById('status').textContent), null, { timeout: PYTHON_TIMEOUT });
  assert.equal(await page.textContent('#status'), 'Stopped: the namespace is kept.', 'Stop interrupted Python rather than restarting it');
  console.log(`Stop took ${Math.round(performance.now() - stopped)} ms`);
  assert.match(await page.textContent('.nb-cell[data-cell="2"] .nb-error'), /KeyboardInterrupt: the cell was stopped/);
  await runButton(page, 3).click();
  await page.locator('.nb-cell[data-cell="3"] :is(.nb-stdout, .nb-error)').waitFor({ timeout: PYTHON_TIMEOUT });
  assert.equal(await page.textContent('.nb-cell[data-cell="3"] .nb-output'), '42', 'x survives the Stop');

  // The build's snapshot as another build would have made it (its key differs in one character), in the place the
  // service worker serves it from (a host may send it decoded: the loader takes it either way): not restored.
  await page.waitForFunction(() => document.documentElement.dataset.offline === 'kept', null, { timeout: 120_000 });
  const buildKey = await page.evaluate(async (name) => {
    const url = new URL(name, location.href).href;
    const [cacheName] = (await caches.keys()).filter((n) => n.startsWith('attention-lab-'));
    const store = await caches.open(cacheName);
    const stream = (await store.match(url)).body.pipeThrough(new DecompressionStream('gzip'));
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    const header = new TextDecoder().decode(bytes.subarray(4, 200));
    const at = 4 + header.indexOf('"key":"') + 7;
    const key = header.slice(at - 4, at - 4 + 64);
    bytes[at] = bytes[at] === 0x30 ? 0x31 : 0x30;
    await store.put(url, new Response(bytes));
    return key;
  }, BUILD_SNAPSHOT);
  await page.reload();
  await pythonReady(page);
  const second = await phases(page);
  assert.ok(second.includes('Starting Python…') && !second.includes('Restoring Python from its snapshot…'), second.join(' | '));
  await runButton(page, 1).click();
  await page.locator('.nb-cell[data-cell="1"] .nb-stdout').waitFor();
  assert.equal(await page.locator('.nb-cell[data-cell="1"] .nb-stdout').textContent().then((t) => t.trimEnd()), FIRST_CELL_PRINTS);
  // ...and a snapshot of this build (the build's own key) is taken and kept beside the site's files.
  const kept = await keptSnapshot(page);
  assert.match(kept.cache, /^attention-lab-[0-9a-f]{16}$/, 'kept in the cache named after the build');
  assert.deepEqual(kept.caches, [kept.cache], 'and no other');
  assert.ok(kept.size > 16 * 1024 * 1024, `Python's whole memory (${kept.size} bytes)`);
  assert.equal(kept.header.key, buildKey, 'the key this browser computes is the one the build computed');

  // The next visit restores that one.
  await page.reload();
  await pythonReady(page);
  const third = await phases(page);
  assert.ok(third.includes('Restoring Python from its snapshot…') && !third.includes('Starting Python…'), third.join(' | '));
  assert.match(await page.textContent('#status'), /restored from the snapshot this browser keeps/);
  await runButton(page, 1).click();
  await page.locator('.nb-cell[data-cell="1"] .nb-stdout').waitFor();
  assert.equal(await page.locator('.nb-cell[data-cell="1"] .nb-stdout').textContent().then((t) => t.trimEnd()), FIRST_CELL_PRINTS);
  assertNoProblems(page);
  await closePage(page);
});

test("on a network too slow to bring the build's snapshot before Python starts, it is given up at once and its download stops", { timeout: 300_000 }, async (t) => {
  // The same site, but its snapshot trickles (64 KB every 250 ms: some 25 s for its 6 MB, where Python starts in
  // a few): the first visit measures it for a second, starts Python instead, and the download stops (the page,
  // the count of bytes shown and the service worker's copy all let it go).
  const snapshot = readFileSync(`${site}${SNAPSHOT}.gz`);
  const asked = []; // each request for it: { bytes, closedEarly }
  const front = createServer((request, reply) => {
    if (request.url.endsWith(`/${SNAPSHOT}.gz`)) {
      const sent = { bytes: 0, closedEarly: false, ended: false };
      asked.push(sent);
      reply.writeHead(200, { 'Content-Type': 'application/gzip', 'Content-Length': snapshot.length });
      const timer = setInterval(() => {
        if (sent.bytes >= snapshot.length) return clearInterval(timer);
        reply.write(snapshot.subarray(sent.bytes, (sent.bytes += 64 * 1024)));
        if (sent.bytes >= snapshot.length) { reply.end(); sent.ended = true; }
      }, 250);
      reply.on('close', () => { clearInterval(timer); if (!sent.ended) sent.closedEarly = true; });
      return;
    }
    const upstream = httpRequest({ port: server.address().port, path: request.url, method: request.method, headers: request.headers }, (response) => {
      reply.writeHead(response.statusCode, response.headers);
      response.pipe(reply);
    });
    upstream.on('error', () => reply.destroy());
    request.pipe(upstream);
  });
  await new Promise((done) => front.listen(0, '127.0.0.1', done));
  t.after(() => { front.closeAllConnections(); return new Promise((done) => front.close(done)); });
  const page = await newPage(browser);
  await page.goto(`http://localhost:${front.address().port}${SUB_PATH}notebook.html`);
  await pythonReady(page);
  assert.doesNotMatch(await page.textContent('#status'), /restored/);
  assert.ok(!(await phases(page)).includes('Restoring Python from its snapshot…'), 'Python was started, not restored');
  // (once Python is ready the notebook asks to keep the site for offline use: that download of it comes after)
  const [first] = asked;
  assert.equal(first.closedEarly, true, 'the snapshot was given up before it was whole');
  assert.ok(first.bytes < snapshot.length / 3, `${first.bytes} bytes of the snapshot were sent`);
  const then = first.bytes;
  await page.waitForTimeout(1000);
  assert.equal(first.bytes, then, 'nothing more was sent once given up');
  // Python started here keeps a snapshot of its own, so keeping the site for offline use leaves the build's out
  await page.waitForFunction(() => document.documentElement.dataset.offline === 'kept', null, { timeout: 120_000 });
  assert.ok(await keptSnapshot(page), 'the notebook keeps the snapshot it made');
  assert.equal(asked.length, 1, 'the build\'s snapshot asked for again to keep the site');
  assertNoProblems(page);
  await closePage(page);
});
