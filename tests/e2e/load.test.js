// Loading the built site: a loading state is shown while the WebAssembly is on its way, then numbers; the
// first step's numbers come (within the wait's 15 s); no console errors; a link's own step is the first one
// drawn, with the numbers it keeps, before the panels; a missing script is reported on the page.
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
  await page.locator(`${stepSelector(STEPS[0].id)} .katex`).first().waitFor(); // the start's last work: the formula typeset
  assertNoProblems(page);
  await closePage(page);
});

/** In the page before its scripts: what is on it when the page marks its first numbers ('page:first-step'). */
function recordFirstStep() {
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    if (name === 'page:first-step') {
      const step = document.querySelector('[data-step][data-section]');
      window.firstStep = {
        step: step?.dataset.step,
        values: [...(step?.querySelectorAll('[data-tensor]') ?? [])].map((t) => [t.dataset.tensor, t.dataset.values]),
        panels: ['toc', 'settings', 'here'].filter((id) => document.getElementById(id).childElementCount > 0),
        ready: document.documentElement.dataset.ready ?? null,
      };
    }
    return mark(name, ...rest);
  };
}

const tensorsOf = (sel) => [...document.querySelector(sel).querySelectorAll('[data-tensor]')].map((t) => [t.dataset.tensor, t.dataset.values]);

test('a link paints its own step first, with the numbers it keeps; the panels and the rest of the chapter come after', async () => {
  const page = await newPage(env.browser);
  await page.addInitScript(recordFirstStep);
  const id = 'mha-weights';
  await page.goto(env.base + formatHash(id, { ...bookSettings(), seed: 7, p: 0.2 }));
  await waitForStep(page, id);
  const first = await page.evaluate(() => window.firstStep);
  assert.equal(first.step, id, 'another step was in the page at its first numbers');
  assert.ok(first.values.length > 0 && first.values.every(([, v]) => v && v !== '[]'), `the step had no numbers at first: ${JSON.stringify(first.values)}`);
  assert.deepEqual(first.panels, [], 'the panels were drawn before the first numbers');
  assert.equal(first.ready, null, 'the page was ready before its first numbers');
  assert.deepEqual(await page.evaluate(tensorsOf, stepSelector(id)), first.values, 'the numbers changed once the page was ready');
  assert.ok(await page.locator('#toc a[data-step-link]').count() === STEPS.length, 'the contents');
  assert.equal(await page.locator('#seed').inputValue(), '7');
  // the next step comes from the chapter computed after the first paint
  await page.click('#next');
  await waitForStep(page, STEPS[STEPS.findIndex((s) => s.id === id) + 1].id);
  assertNoProblems(page);
  await closePage(page);
});

test('settings that only a later section rejects, on the first step: the book’s value for them, and the notice says why', async () => {
  const page = await newPage(env.browser);
  await page.addInitScript(recordFirstStep);
  const id = STEPS[0].id;
  await page.goto(env.base + formatHash(id, { ...bookSettings(), heads: 3 })); // MultiHeadAttention (3.6.2): d_out 2
  await waitForStep(page, id);
  assert.equal((await page.evaluate(() => window.firstStep)).step, id);
  assert.match(await page.locator('#notices').textContent(), /heads and d_out could not be used \(MultiHeadAttention: d_out must be divisible/);
  assert.equal(await page.locator('#heads').inputValue(), '2');
  assert.doesNotMatch(new URL(page.url()).hash, /heads=/, 'the link keeps a value the page does not use');
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
