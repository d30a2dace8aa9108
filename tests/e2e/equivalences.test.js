// The chapter's equivalences with their bits: each panel's largest difference and count of equal numbers are
// those of the two sides computeChapter gives (for the book's settings and others), and the layout explorer
// points from an element of the split view to the element of queries that holds the same number.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, bookSettings, closePage, newPage, openAt, reference, seriousViolations, siteForTests, STEPS, stepSelector, tensorValues } from './harness.mjs';
import { compareSides } from '../../web/render/equivalence.js';

const env = siteForTests();

const WITH_EQUIVALENCE = STEPS.filter((s) => s.equivalence);

test('four equivalences, each on its step, agree with the two sides computed in Node', async () => {
  assert.deepEqual(WITH_EQUIVALENCE.map((s) => s.id), ['ex31-transfer', 'causal-softmax', 'wrapper', 'bmm-per-head']);
  const page = await newPage(env.browser);
  for (const settings of [bookSettings(), { ...bookSettings(), seed: 3, seedV2: 11, d_out: 4, heads: 2, qkv_bias: true }]) {
    const results = await reference(settings);
    for (const step of WITH_EQUIVALENCE) {
      await openAt(page, env.base, step.id, settings);
      const panel = page.locator(`${stepSelector(step.id)} .equivalence`);
      const expected = compareSides(step.equivalence.left.values(results), step.equivalence.right.values(results));
      assert.equal(Number(await panel.getAttribute('data-max-diff')), expected.maxDiff, `${step.id}: largest difference`);
      assert.equal(Number(await panel.getAttribute('data-same')), expected.same, `${step.id}: equal numbers`);
      assert.equal(Number(await panel.getAttribute('data-total')), expected.total);
      assert.ok(expected.maxDiff < 1e-5, `${step.id}: the two sides agree within float rounding (${expected.maxDiff})`);
      const text = await panel.textContent();
      if (expected.maxDiff === 0) assert.match(text, /Largest absolute difference: 0 — every bit of all \d+ numbers agrees/);
      else assert.match(text, /differ in the last bits of float32/);
    }
  }
  // the batched matmul is one matmul per head: every bit agrees
  const results = await reference();
  assert.equal(compareSides(WITH_EQUIVALENCE[3].equivalence.left.values(results), WITH_EQUIVALENCE[3].equivalence.right.values(results)).maxDiff, 0);
  assertNoProblems(page);
  await closePage(page);
});

test('layout explorer: strides and offset lead from split[b, h, t, j] to the element of queries with the same number', async () => {
  const page = await newPage(env.browser);
  const settings = { ...bookSettings(), d_out: 6, heads: 3 };
  await openAt(page, env.base, 'mha-split', settings);
  const explorer = page.locator(`${stepSelector('mha-split')} .layout-explorer`);
  assert.match(await explorer.textContent(), /strides \(36, 2, 6, 1\)/); // [2, 3, 6, 2] split from [2, 6, 6]: (36, 6, 2, 1) transposed
  const split = await tensorValues(page, 'mha-split', 'mha_queries_split'); // row-major [2, 3, 6, 2]
  const queries = await tensorValues(page, 'mha-split', 'mha_queries'); // row-major [2, 6, 6]
  for (const pick of [[0, 2, 4, 1], [1, 1, 0, 0], [0, 0, 5, 1]]) {
    for (let d = 0; d < 4; d++) await explorer.locator(`select[data-axis="${d}"]`).selectOption(String(pick[d]));
    const at = Number(await explorer.locator('[data-storage-index]').textContent());
    const [b, t, c] = (await explorer.locator('[data-storage-home]').getAttribute('data-storage-home')).split(',').map(Number);
    assert.equal(at, b * 36 + t * 6 + c, 'the storage element is the row-major position in queries');
    assert.deepEqual([b, t, c], [pick[0], pick[2], pick[1] * 2 + pick[3]], 'head h, column j is column h * head_dim + j');
    assert.equal(split[((pick[0] * 3 + pick[1]) * 6 + pick[2]) * 2 + pick[3]], queries[at], 'the same number');
    if (b !== 0) continue; // batch 1 repeats batch 0 and is not drawn: nothing to outline
    const outlined = await page.locator('td.is-picked').evaluateAll((cs) => cs.map((c) => `${c.closest('[data-tensor]').dataset.tensor}[${c.dataset.index}]`));
    assert.ok(outlined.includes(`mha_queries[${b},${t},${c}]`), `outlined: ${outlined}`);
  }
  assert.match(await explorer.textContent(), /is_contiguous\(\) → False.*view size is not compatible with input tensor.s size and stride/s);
  assertNoProblems(page);
  await closePage(page);
});

test('the panels pass axe-core and fit a 390 px screen', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  for (const id of ['causal-softmax', 'mha-split']) {
    await openAt(page, env.base, id);
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `${id}: the page is ${width} px wide`);
    assert.deepEqual(await seriousViolations(page, '.step'), [], id);
  }
  assertNoProblems(page);
  await closePage(page);
});
