// Loading the built site: a loading state is shown while the WebAssembly is on its way, then numbers; the
// first step's numbers come (within the wait's 15 s); no console errors; a missing script is reported on the page.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
  assertNoProblems,
  bookSettings,
  closePage,
  formatHash,
  newPage,
  openAt,
  root,
  siteForTests,
  STEPS,
  stepSelector,
  waitForStep,
} from './harness.mjs';

const env = siteForTests();

/** Whether the page shows a loading state, and whether any tensor of the step has numbers. */
function loadingState(sel) {
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const busy = [...document.querySelectorAll('[aria-busy="true"]')].some(visible);
  const text = /\bloading\b|\bcomputing\b/i.test(document.body.innerText);
  const step = document.querySelector(sel);
  const numbers = !!step && [...step.querySelectorAll('[data-tensor]')].some((t) => {
    const v = t.getAttribute('data-values');
    return v && v !== '[]' && visible(t);
  });
  return { loading: busy || text, busy, text, numbers };
}

test('a loading state is shown until the WebAssembly arrives, then the numbers', async () => {
  const page = await newPage(env.browser);
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  // hold the WebAssembly binaries (for the page and any worker of it) until the loading state has been seen
  await page.context().route(/\.wasm$/, async (route) => {
    await gate;
    await route.continue();
  });
  const first = STEPS[0].id;
  await page.goto(env.base + formatHash(first, bookSettings()), { waitUntil: 'domcontentloaded' });
  const sel = stepSelector(first);
  const seen = await page
    .waitForFunction(loadingState, sel, { timeout: 5000 })
    .then(() => page.evaluate(loadingState, sel))
    .catch(() => page.evaluate(loadingState, sel));
  await page.screenshot({ path: `${root}test-results/loading.png` });
  release();
  assert.ok(seen.loading, `no loading state (aria-busy="true" or a "Loading…" text) while the WebAssembly is held back: ${JSON.stringify(seen)}`);
  assert.ok(!seen.numbers, 'numbers were shown before the WebAssembly arrived');
  await waitForStep(page, first);
  const after = await page.evaluate(loadingState, sel);
  assert.ok(after.numbers, 'numbers after loading');
  assert.ok(!after.busy, 'aria-busy="true" is still set after the numbers came');
  assertNoProblems(page);
  await closePage(page);
});

// How fast is the benchmark's to say (scripts/bench/site.mjs, against a floor page in the same run): a time
// limit here fails on a machine busy with other work.
test('the first step shows its numbers, with no console errors', async () => {
  const page = await newPage(env.browser);
  const started = Date.now();
  await page.goto(env.base);
  const handle = await page.waitForFunction(
    () => {
      const t = [...document.querySelectorAll('[data-step][data-section] [data-tensor]')].find((el) => {
        const v = el.getAttribute('data-values');
        return v && v !== '[]' && el.getClientRects().length > 0;
      });
      return t ? performance.now() : false;
    },
    undefined,
    { timeout: 15_000, polling: 'raf' },
  );
  const sincePageStart = await handle.jsonValue();
  const wall = Date.now() - started;
  console.log(`first numbers after ${Math.round(sincePageStart)} ms (navigation start), ${wall} ms wall clock`);
  // the page without a hash shows the first step
  await waitForStep(page, STEPS[0].id);
  await page.waitForTimeout(500); // late errors
  assertNoProblems(page);
  await closePage(page);
});

test('a page whose module cannot load says so (boot.js), on each page', async () => {
  for (const [path, entry, title] of [
    ['', 'index', 'The page could not start'],
    ['bench.html', 'bench', 'The benchmark could not start'],
    ['notebook.html', 'notebook', 'The notebook could not start'],
  ]) {
    const page = await newPage(env.browser);
    // the page's bundled entry (assets/<entry>-<hash>.js) is missing on the host
    await page.route(new RegExp(`/assets/${entry}-[\\w-]+\\.js$`), (route) => route.fulfill({ status: 404, body: 'not found' }));
    await page.goto(env.base + path, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'error', undefined, { timeout: 10_000 });
    const alert = page.getByRole('alert');
    assert.equal(await alert.getByRole('heading').textContent(), title);
    assert.match(await alert.textContent(), /scripts could not be loaded/);
    await page.close();
  }
});
