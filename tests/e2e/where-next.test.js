// The last step's GPT block: the layers around multi-head attention in order, the two shortcuts, each
// layer's output shape at GPT-2 size and at the settings' sizes (and why a shortcut needs d_out = d_in).
// 390 px and axe-core included.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, bookSettings, closePage, newPage, openAt, seriousViolations, siteForTests, STEPS, stepSelector } from './harness.mjs';

const env = siteForTests();
const LAST = STEPS.at(-1).id;

const LAYERS = ['LayerNorm', 'Masked multi-head attention', 'Dropout', 'shortcut 1', 'LayerNorm', 'Feed-forward network', 'Dropout', 'shortcut 2'];

/** [layer, GPT-2's shape, the settings' shape] for every row of the drawn block. */
const rows = (page) =>
  page.locator(`${stepSelector(LAST)} .gpt-block-flow li[data-layer]`).evaluateAll((els) =>
    els.map((el) => [el.dataset.layer, el.querySelector('[data-size="gpt2"]').textContent, el.querySelector('[data-size="here"]').textContent]));

test('the last step draws the GPT block around attention with the shapes at GPT-2 size and at the settings’ sizes', async () => {
  const page = await newPage(env.browser);
  // d_in = d_out = 4 with 4 words and 2 heads: every shape is 4 × 4
  const fits = { ...bookSettings(), d_out: 4, heads: 2, tokens: ['a', 'b', 'c', 'd'], embeddings: [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]] };
  await openAt(page, env.base, LAST, fits);
  const drawn = await rows(page);
  assert.deepEqual(drawn.map(([layer]) => layer), LAYERS);
  assert.deepEqual(drawn.map(([, gpt2]) => gpt2), LAYERS.map(() => 'GPT-2 1024 × 768'));
  assert.deepEqual(drawn.map(([, , here]) => here), LAYERS.map(() => 'here 4 × 4'));
  const block = page.locator(`${stepSelector(LAST)} .gpt-block`);
  assert.match(await block.locator('.is-chapter').textContent(), /GPT-2 uses 12 heads of 64; here 2 heads of 2/);
  assert.match(await block.textContent(), /Linear to 4 × the width \(3072 in GPT-2, 16 here\)/);
  assert.match(await block.locator('.gpt-block-note').textContent(), /d_in = d_out = 4, as in GPT-2 \(768\)/);
  assert.equal(await block.locator('.gpt-block-part').count(), 2, 'two shortcuts, each around its part');

  // the book's d_out = 2 against d_in = 3: the attention gives 6 × 2 and the shortcut says what it needs
  await openAt(page, env.base, LAST);
  const book = await rows(page);
  assert.deepEqual(book[1], ['Masked multi-head attention', 'GPT-2 1024 × 768', 'here 6 × 2']);
  assert.deepEqual(book[3], ['shortcut 1', 'GPT-2 1024 × 768', 'here needs d_out = d_in']);
  assert.match(await block.locator('.gpt-block-note').textContent(), /d_in = 3 and d_out = 2: a shortcut adds tensors of one shape.*Set d_out to 3/);
  assertNoProblems(page);
  await closePage(page);
});

test('390 px: the block fits the phone and is axe-core clean, light and dark', async () => {
  for (const colorScheme of ['light', 'dark']) {
    const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true, colorScheme } });
    await openAt(page, env.base, LAST);
    const box = await page.locator(`${stepSelector(LAST)} .gpt-block`).boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, `${colorScheme}: the block is inside the screen (${box.x}, ${box.width})`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    assert.deepEqual(await seriousViolations(page, `${stepSelector(LAST)} .gpt-block`), [], colorScheme);
    assertNoProblems(page);
    await closePage(page);
  }
});
