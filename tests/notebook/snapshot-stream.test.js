// The build's snapshot read as it arrives over HTTP (notebook/session.js openBuildSnapshot): the memory sized from
// the header and filled as the rest comes, gzipped or already decoded; a download cut short, bytes that are no
// snapshot and a missing file each said apart; and on a slow network, how long the rest would take and whether it
// comes sooner than Python starts.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';

import { openBuildSnapshot, packSnapshot } from '../../notebook/session.js';

const memory = new Uint8Array(1 << 20).map((_, i) => (i * 2654435761) >>> 24);
const packed = packSnapshot({ format: 1, key: 'k'.repeat(64), path: ['/lib'] }, memory);
const gzipped = gzipSync(packed, { level: 1 });

// Each path a way of serving it: whole, decoded, cut short, not a snapshot, or trickling slowly.
const routes = {
  '/whole.gz': { body: gzipped },
  '/decoded': { body: packed },
  '/cut.gz': { body: gzipped.subarray(0, gzipped.length >> 1), length: gzipped.length },
  '/page.html': { body: Buffer.from('<!doctype html><title>Not found</title>') },
  '/slow': { body: packed, trickle: true },
};
let server, base;
before(async () => {
  server = createServer((req, res) => {
    const route = routes[req.url];
    if (!route) return res.writeHead(404).end();
    res.writeHead(200, { 'Content-Length': route.length ?? route.body.length });
    if (!route.trickle) {
      // in pieces, so that the reader sees the header before the rest (cut short only once the header has had
      // time to arrive on a loaded machine: at 20 ms, under a load of 8, the cut came first once)
      res.write(route.body.subarray(0, 1000));
      setTimeout(() => (route.length ? res.destroy() : res.end(route.body.subarray(1000))), route.length ? 500 : 20);
      return;
    }
    res.write(route.body.subarray(0, 4096)); // the header, then 1 KB every 50 ms
    let at = 4096;
    const timer = setInterval(() => {
      if (res.destroyed || at >= route.body.length) return clearInterval(timer);
      res.write(route.body.subarray(at, (at += 1024)));
    }, 50);
    res.on('close', () => clearInterval(timer));
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

for (const path of ['/whole.gz', '/decoded']) {
  test(`${path}: the memory, sized from the header, is whole once filled`, async () => {
    const offer = await openBuildSnapshot(new URL(base + path));
    assert.equal(offer.header.key, 'k'.repeat(64));
    assert.equal(offer.header.memory, memory.length);
    assert.equal(offer.memory.length, memory.length);
    await offer.filled;
    assert.deepEqual(offer.memory, memory);
    assert.equal(await offer.msLeft(1000), 0, 'all in: nothing left to wait for');
    assert.deepEqual(await offer.soonEnough(4000, 1000), { soon: true }, 'all in: soon enough');
  });
}

test('a download cut short fails its filling, not its header', async () => {
  const offer = await openBuildSnapshot(new URL(`${base}/cut.gz`));
  assert.equal(offer.memory.length, memory.length);
  await assert.rejects(offer.filled);
});

test('bytes that are no snapshot are refused by name; a missing one is none', async () => {
  await assert.rejects(openBuildSnapshot(new URL(`${base}/page.html`)), /the build's snapshot is not a notebook snapshot/);
  assert.equal(await openBuildSnapshot(new URL(`${base}/missing.gz`)), null);
});

test('on a slow network, the time the rest would take, measured over a window', async () => {
  const offer = await openBuildSnapshot(new URL(`${base}/slow`));
  const left = await offer.msLeft(300); // about 20 KB/s for the 1 MB left: some 50 s
  offer.cancel();
  assert.ok(left > 4000 && left < 1000_000, `left ${left} ms`);
});

test('on a slow network, whether the rest comes sooner than a start of Python: no, said within the window', async () => {
  const offer = await openBuildSnapshot(new URL(`${base}/slow`));
  const asked = performance.now();
  const { soon, leftMs } = await offer.soonEnough(4000, 300);
  const waited = performance.now() - asked;
  offer.cancel();
  assert.equal(soon, false);
  assert.ok(waited >= 300 && waited < 1000, `answered after ${waited} ms`);
  assert.ok(leftMs > 4000, `left ${leftMs} ms`);
});

test('on a network that brings the rest in time, soon enough as soon as the rate says so', async () => {
  const offer = await openBuildSnapshot(new URL(`${base}/slow`));
  const asked = performance.now();
  const answer = await offer.soonEnough(1000_000, 5000); // some 50 s left, within the 1000 s allowed
  const waited = performance.now() - asked;
  offer.cancel();
  assert.deepEqual(answer, { soon: true });
  assert.ok(waited >= 100 && waited < 1000, `answered after ${waited} ms`);
});
