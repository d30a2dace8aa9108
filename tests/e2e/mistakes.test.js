// "What if…": each learner's mistake on its step, computed with the same core: the switch opens the right
// and the wrong result (the API's numbers), their cell-wise difference and the explanation; the masked_fill
// mistake outlines the cells where the future leaks in. Keyboard, phone width and axe-core included.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, bookSettings, closePage, flatValues, newPage, openAt, reference, sameNumbers, seriousViolations, setControl, siteForTests, STEPS, stepSelector } from './harness.mjs';

const env = siteForTests();

const MISTAKES = STEPS.flatMap((step) => (step.mistakes ?? []).map((m) => ({ step, m })));

const valuesIn = (panel, name) => panel.locator(`[data-tensor="${name}"]`).getAttribute('data-values').then((t) => JSON.parse(t).map(Number));

test('six mistakes, each on its step: right and wrong are the API’s numbers, the difference is wrong − right', async () => {
  assert.deepEqual(MISTAKES.map(({ m }) => m.id), ['softmax-dim0', 'scores-from-values', 'no-scaling', 'masked-fill-copy', 'out-proj-shape', 'dropout-in-eval']);
  const results = await reference();
  const page = await newPage(env.browser);
  for (const { step, m } of MISTAKES) {
    await openAt(page, env.base, step.id);
    const button = page.locator(`${stepSelector(step.id)} [data-mistake="${m.id}"]`);
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    await button.click();
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    const panel = page.locator(`${stepSelector(step.id)} [data-mistake-panel="${m.id}"]`);
    const right = await valuesIn(panel, m.right);
    const wrong = await valuesIn(panel, m.wrong);
    assert.ok(sameNumbers(right, results[m.right].values), `${m.id}: right`);
    assert.ok(sameNumbers(wrong, results[m.wrong].values), `${m.id}: wrong`);
    if (results[m.right].shape.join() === results[m.wrong].shape.join()) {
      assert.ok(!sameNumbers(right, wrong), `${m.id}: the mistake changes the numbers`);
      const diff = await valuesIn(panel, `${m.wrong}:difference`);
      assert.deepEqual(diff, wrong.map((v, i) => v - right[i]), `${m.id}: difference`);
    } else {
      assert.match(await panel.textContent(), /the shapes differ, \[2, 6, 2\] against \[2, 6, 3\]/);
    }
    assert.ok((await panel.locator('.mistake-why').textContent()).length > 80, `${m.id}: an explanation`);
  }
  assertNoProblems(page);
  await closePage(page);
});

test('masked_fill without the underscore: the leaking cells are outlined and counted; the switch stays on across an edit', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'causal-attention');
  const button = page.locator('[data-mistake="masked-fill-copy"]');
  await button.focus();
  await page.keyboard.press('Enter');
  assert.equal(await button.getAttribute('aria-expanded'), 'true', 'Enter opens it');
  const results = await reference();
  const w = results.mistake_mask_dropped.values;
  const expected = w.flatMap((row, i) => row.map((v, j) => (j > i && v > 0 ? `${i},${j}` : null))).filter(Boolean);
  const leaks = await page.locator('[data-tensor="mistake_mask_dropped"] td.leak').evaluateAll((cs) => cs.map((c) => c.dataset.index));
  assert.deepEqual(leaks, expected);
  assert.match(await page.locator('[data-mistake-panel="masked-fill-copy"] .mistake-why').textContent(), new RegExp(`${expected.length} weights above the diagonal`));
  // the right version keeps the mask: nothing above the diagonal
  assert.deepEqual(flatValues(results.mistake_mask_kept.values).filter((v, k) => Math.floor(k / w.length) < k % w.length && v !== 0), []);

  await setControl(page, '#seed', '5');
  await page.waitForFunction(() => document.querySelector('[data-mistake="masked-fill-copy"]')?.getAttribute('aria-expanded') === 'true');
  const again = await reference({ ...bookSettings(), seed: 5 });
  assert.ok(sameNumbers(await valuesIn(page.locator('[data-mistake-panel="masked-fill-copy"]'), 'mistake_mask_dropped'), again.mistake_mask_dropped.values));
  assertNoProblems(page);
  await closePage(page);
});

test('390 px with a mistake open: no page-level horizontal scroll, axe-core clean', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  for (const { step, m } of MISTAKES.filter(({ m }) => ['masked-fill-copy', 'out-proj-shape'].includes(m.id))) {
    await openAt(page, env.base, step.id);
    await page.locator(`[data-mistake="${m.id}"]`).click();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${m.id}: the page is ${width} px wide`);
  }
  assert.deepEqual(await seriousViolations(page), []);
  assertNoProblems(page);
  await closePage(page);
});
