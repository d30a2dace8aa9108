// The walk-through warms up the notebook while a step is read, on a plain static host (no COOP/COEP headers):
// only after the step's numbers are drawn does it register the site's service worker, which then keeps the
// site, Pyodide and the build's snapshot of Python included; "Run this code yourself" then opens a notebook that
// is cross-origin isolated at once (no reload), whose Python files come from that cache and whose Python is
// restored from that snapshot.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { SUB_PATH, assertNoProblems, bookSettings, closePage, formatHash, launchChromium, newPage, site, stepSelector, waitForStep } from './harness.mjs';
import { startStaticHost } from '../../scripts/static-host.mjs';

let server, browser, base;
const served = []; // every path the host was asked for, in order (the page's and its service worker's)
before(async () => {
  server = await startStaticHost({ folder: site, prefix: SUB_PATH });
  server.prependListener('request', (req) => served.push(new URL(req.url, 'http://localhost').pathname.slice(SUB_PATH.length)));
  base = `http://localhost:${server.address().port}${SUB_PATH}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await new Promise((done) => (server ? server.close(done) : done()));
});

test('the warm-up starts after the first numbers, keeps Pyodide, and the notebook opens isolated without a reload', { timeout: 240_000 }, async () => {
  const page = await newPage(browser);
  // When the step's first numbers appear, and when the service worker is registered.
  await page.context().addInitScript(() => {
    window.warmUpSeen = {};
    const register = navigator.serviceWorker?.register.bind(navigator.serviceWorker);
    if (register) navigator.serviceWorker.register = (...args) => { window.warmUpSeen.registered ??= performance.now(); return register(...args); };
    new MutationObserver(() => {
      const drawn = [...document.querySelectorAll('[data-step][data-section] [data-tensor]')].some((t) => (t.getAttribute('data-values') ?? '[]') !== '[]');
      if (drawn) window.warmUpSeen.numbers ??= performance.now();
    }).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-values'] });
  });
  const step = 'dot-product';
  await page.goto(base + formatHash(step, bookSettings()));
  await waitForStep(page, step);
  await page.waitForFunction(() => document.documentElement.dataset.notebookWarm, null, { timeout: 120_000 });
  assert.equal(await page.evaluate(() => document.documentElement.dataset.notebookWarm), 'kept');
  const seen = await page.evaluate(() => window.warmUpSeen);
  assert.ok(seen.numbers > 0 && seen.registered > seen.numbers, `the service worker registered after the numbers: ${JSON.stringify(seen)}`);
  // On the host's side: the core's WebAssembly (the numbers need it) before the service worker, Pyodide after it.
  const order = (test) => served.findIndex(test);
  const core = order((p) => /^assets\/attention-(simd|scalar)-.*\.wasm$/.test(p));
  const worker = order((p) => p === 'notebook-sw.js');
  const pyodide = order((p) => p.startsWith('pyodide/'));
  assert.ok(core >= 0 && core < worker && worker < pyodide, `the order the host saw: ${served.join(', ')}`);
  const kept = await page.evaluate(async () => {
    const names = (await caches.keys()).filter((n) => n.startsWith('attention-lab-'));
    const cache = await caches.open(names[0]);
    return { names, wasm: !!(await cache.match(new URL('pyodide/pyodide.asm.wasm', location.href).href)),
      snapshot: !!(await cache.match(new URL('notebook-python-snapshot.gz', location.href).href)) };
  });
  assert.equal(kept.names.length, 1, 'one cache, this deployment\'s');
  assert.ok(kept.wasm, 'Pyodide\'s WebAssembly is in the cache');
  assert.ok(kept.snapshot, 'the build\'s snapshot of Python is in the cache');

  // The step's notebook: one load (the service worker already controls the site), isolated, Python from the cache.
  const fromHost = () => served.filter((p) => p.startsWith('pyodide/') || p === 'notebook-python-snapshot.gz').length;
  const pyodideAsked = fromHost();
  const loads = [];
  page.on('load', () => loads.push(page.url()));
  const link = page.locator(`${stepSelector(step)} a.notebook-link[data-ready="true"]`);
  await link.click();
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: 120_000 });
  assert.equal(loads.length, 1, `the notebook loaded once, with no reload: ${loads.join(', ')}`);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'isolated on a host without headers');
  assert.equal(fromHost(), pyodideAsked, 'Pyodide and the snapshot came from the cache, not the host');
  assert.match(await page.textContent('#status'), /restored from the site's snapshot/);
  const phases = await page.evaluate(() => window.notebookLoad.map((e) => e.message));
  assert.ok(phases.includes('Restoring Python from its snapshot…') && !phases.includes('Starting Python…'), phases.join(' | '));
  assertNoProblems(page);
  await closePage(page);
});
