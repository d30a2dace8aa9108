// "My numbers are different…" on the built page in Chromium: paste a printout made under another seed, read the
// answer (its sentence, its line of code, every cell marked), apply it with "Use these settings" (one history
// entry: Back returns to the settings before), a paste that is not a tensor, the page staying responsive while
// the worker searches, axe-core and a 390 px screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { siteForTests, newPage, closePage, openAt, waitForStep, assertNoProblems, seriousViolations, stepSelector, bookSettings } from './harness.mjs';
import { loadAttention } from '../../wasm/index.js';
import { BOOK_EMBEDDINGS } from '../../web/book.js';

const env = siteForTests();
const torch = await loadAttention();
torch.manualSeed(42);
const SEED_42 = new torch.SelfAttention_v2(3, 2).forward(torch.tensor(BOOK_EMBEDDINGS)).toString();
const STEP = 'self-attention-v2';
const box = (page) => page.locator(`${stepSelector(STEP)} [data-diagnose]`);

async function ask(page, printed) {
  const details = box(page);
  if (!(await details.evaluate((d) => d.open))) await details.locator('summary').click();
  await details.getByLabel(/Paste what your PyTorch printed/).fill(printed);
  await details.getByRole('button', { name: 'Find why' }).click();
  await details.locator('.diagnose-answer :is(.diagnose-verdict, .notice)').first().waitFor({ timeout: 30_000 });
  return details.locator('.diagnose-answer');
}

test('a printout under another seed is named, its cells marked, and one click switches the page to it; Back undoes it', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, STEP);
  const historyBefore = await page.evaluate(() => history.length);
  const answer = await ask(page, SEED_42);
  assert.match(await answer.textContent(), /after torch\.manual_seed\(42\) for SelfAttention_v2; the book uses 789/);
  assert.deepEqual(await answer.locator('.diagnose-code code').allTextContents(), ['torch.manual_seed(789)', 'torch.manual_seed(42)']);
  assert.equal(await answer.locator('.diagnose-cells .is-equal').count(), 12);
  assert.equal(await answer.locator('.diagnose-cells .is-different').count(), 0);
  assert.equal(await answer.getAttribute('aria-live'), 'polite');
  assert.doesNotMatch(await answer.textContent(), /\bnull\b|undefined/);

  await answer.getByRole('button', { name: 'Use these settings' }).click();
  await page.waitForFunction(() => location.hash.includes('seedV2=42'));
  await waitForStep(page, STEP);
  const shown = await page.locator(`${stepSelector(STEP)} [data-tensor="sa_v2_out"]`).first().getAttribute('data-values');
  assert.deepEqual(JSON.parse(shown).flat().map((v) => v.toFixed(4)), SEED_42.match(/\d\.\d{4}/g));
  assert.equal(await page.evaluate(() => history.length), historyBefore + 1);
  assert.equal(await page.locator('#notices').textContent(), '', 'no notice that the settings came from the history');

  await page.goBack();
  await page.waitForFunction(() => !location.hash.includes('seedV2'));
  await waitForStep(page, STEP);
  assert.equal(await page.locator('#settings #seedV2').inputValue(), '789');
  assertNoProblems(page);
  await closePage(page);
});

test('one altered number: nothing explains it, the nearest result and the differing cell are named', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'softmax-torch');
  const details = page.locator(`${stepSelector('softmax-torch')} [data-diagnose]`);
  await details.locator('summary').click();
  await details.getByLabel(/Paste what your PyTorch printed/).fill('tensor([0.1385, 0.2380, 0.2333, 0.1240, 0.1082, 0.1581])');
  await details.getByRole('button', { name: 'Find why' }).click();
  const verdict = details.locator('.diagnose-verdict');
  await verdict.waitFor({ timeout: 60_000 });
  assert.match(await verdict.textContent(), /Nothing tried explains these numbers exactly/);
  assert.match(await details.locator('.diagnose-answer').textContent(), /5 of 6 numbers are equal\. The first that differs is \[1\]: you have 0\.2380/);
  assert.deepEqual(await details.locator('.diagnose-cells .is-different').allTextContents(), ['0.2380 ✗']);
  assertNoProblems(page);
  await closePage(page);
});

test('a paste that is not a tensor gets a clear message, and the page stays responsive while it searches', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, STEP);
  const answer = await ask(page, 'my numbers are different');
  assert.match(await answer.locator('.notice').textContent(), /not a tensor as PyTorch prints it/);
  // a search that takes a while (the seed range): the main thread keeps answering meanwhile
  torch.manualSeed(9876);
  const far = new torch.SelfAttention_v2(3, 2).forward(torch.tensor(BOOK_EMBEDDINGS)).toString();
  await box(page).getByLabel(/Paste what your PyTorch printed/).fill(far);
  await box(page).getByRole('button', { name: 'Find why' }).click();
  const gaps = await page.evaluate(
    () =>
      new Promise((done) => {
        const start = performance.now();
        let last = start;
        let worst = 0;
        const tick = () => {
          const now = performance.now();
          worst = Math.max(worst, now - last);
          last = now;
          if (document.querySelector('[data-diagnose] .diagnose-verdict') || now - start > 60_000) return done({ worst, took: now - start });
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
  // A search on the main thread would freeze it for the whole search; a loaded machine stretches every frame,
  // so the bound grows with the search's length.
  const { worst, took } = gaps;
  assert.ok(worst < Math.max(500, took / 2), `the page froze for ${worst.toFixed(0)} ms of the search's ${took.toFixed(0)} ms`);
  assert.match(await box(page).locator('.diagnose-answer').textContent(), /torch\.manual_seed\(9876\)/);
  // with a second core, a second worker scans half of the seeds (9876 is in its half)
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  assert.equal(page.workers().length, cores > 1 ? 2 : 1);
  assertNoProblems(page);
  await closePage(page);
});

test('opening the box starts the search workers and warms them; closing it stops them; reopened, and with the settings changed meanwhile, a search answers for the new settings', async () => {
  const page = await newPage(env.browser);
  const workers = [];
  page.on('worker', (worker) => workers.push(new Promise((closed) => worker.once('close', closed))));
  const warmUp = () => page.evaluate(() => document.documentElement.dataset.diagnoseWorkers ?? null);
  await openAt(page, env.base, STEP);
  assert.deepEqual([workers.length, await warmUp()], [0, null], 'nothing started for a learner who has not opened the box');
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  await box(page).locator('summary').click();
  await page.waitForFunction(() => document.documentElement.dataset.diagnoseWorkers === 'warm', null, { timeout: 60_000 });
  assert.equal(workers.length, cores > 1 ? 2 : 1);
  await box(page).locator('summary').click();
  await Promise.all(workers);
  assert.equal(await warmUp(), null);
  // reopened, then seedV2 set to 42 while the workers warm up (the step redrawn with the box open)
  await box(page).locator('summary').click();
  await page.waitForFunction(() => document.documentElement.dataset.diagnoseWorkers);
  await page.fill('#seedV2', '42');
  await page.locator('#seedV2').press('Tab');
  await page.waitForFunction(() => location.hash.includes('seedV2=42'));
  await waitForStep(page, STEP);
  const answer = await ask(page, SEED_42);
  assert.match(await answer.locator('.diagnose-verdict').first().textContent(), /exactly the page’s numbers, with the settings as they are/);
  assert.equal(workers.length, cores > 1 ? 4 : 2);
  assertNoProblems(page);
  await closePage(page);
});

test('390 px with an answer shown: no page-level horizontal scroll, axe-core clean', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  await openAt(page, env.base, STEP, bookSettings());
  await ask(page, SEED_42);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide`);
  assert.deepEqual(await seriousViolations(page), []);
  assertNoProblems(page);
  await closePage(page);
});

test('notebook: what my machine printed is compared line by line, and the other build’s masks are named when they explain it', async () => {
  const { notebookHash } = await import('../../web/notebook/share.js');
  const code = 'import torch\ntorch.manual_seed(123)\nprint(torch.nn.Dropout(0.5)(torch.ones(2, 6)))';
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  await page.goto(`${env.base}notebook.html${await notebookHash([code], 'default')}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: 120_000 }); // Pyodide, on a busy machine
  const cell = page.locator('.nb-cell').first();
  await cell.locator('.nb-printed summary').click();
  // what an Intel MKL build prints for this cell (row 0 all kept, where the default build drops two)
  torch.setRngProfile('mkl');
  torch.manualSeed(123);
  const mkl = new torch.nn.Dropout(0.5).forward(torch.ones(2, 6)).toString();
  torch.setRngProfile('default');
  await cell.getByLabel(/Paste what this cell printed on your machine/).fill(mkl);
  await cell.getByRole('button', { name: 'Run this cell' }).click();
  const result = cell.locator('.nb-printed-result');
  await result.locator('mark').first().waitFor({ timeout: 60_000 });
  assert.deepEqual((await result.locator('mark').allTextContents()).slice(0, 2), ['2.', '2.']);
  await page.waitForFunction((el) => /explain it|either|could not/.test(el.textContent), await result.elementHandle(), { timeout: 120_000 });
  assert.match(await result.textContent(), /The other build’s dropout masks explain it: .*Intel MKL/);
  // the same text as printed here: no difference
  await cell.getByLabel(/Paste what this cell printed on your machine/).fill(await cell.locator('.nb-stdout').textContent());
  await cell.getByRole('button', { name: 'Run this cell' }).click();
  await result.getByText('Same as what your machine printed, line by line.').waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the notebook is ${width} px wide`);
  assert.deepEqual(await seriousViolations(page, '.nb-cell'), []);
  await closePage(page);
});
