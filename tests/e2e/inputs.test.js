// The learner's own input in the page: words added and removed, d_in changed, numbers drawn with
// torch.rand / torch.randn under a seed, context_length; every step's numbers equal the API's for the
// settings in the URL, the code shown writes them, and a combination a module rejects is explained beside
// its control with the core's message while the last numbers stay.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  assertNoProblems,
  bookSettings,
  closePage,
  firstDifference,
  formatHash,
  newPage,
  openAt,
  reference,
  sameNumbers,
  seriousViolations,
  setControl,
  siteForTests,
  stepSelector,
  tensorValues,
  waitForStep,
} from './harness.mjs';
import { parseHash } from '../../web/state.js';

const env = siteForTests();

const settingsOf = (page) => parseHash(new URL(page.url()).hash).settings;

/** Every tensor on a few steps equals computeChapter's for the settings in the page's URL. */
async function assertStepsMatch(page, stepIds) {
  const settings = settingsOf(page);
  const expected = await reference(settings);
  for (const id of stepIds) {
    await page.evaluate((hash) => (location.hash = hash), formatHash(id, settings));
    await waitForStep(page, id);
    const names = await page.locator(`${stepSelector(id)} [data-tensor]`).evaluateAll((els) => els.map((el) => el.dataset.tensor));
    assert.ok(names.length > 0, `${id} shows tensors`);
    for (const name of names) {
      const shown = await tensorValues(page, id, name);
      if (!expected[name]?.values) continue; // a plain value (allclose) rather than a tensor
      assert.ok(sameNumbers(shown, expected[name].values), `${id}: ${name}: ${firstDifference(shown, expected[name].values)}`);
    }
  }
}

test('add and remove words, change d_in: the tables follow, the URL holds them, every number is the API’s', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'embeddings');
  const inputs = page.locator(`${stepSelector('embeddings')} [data-tensor="inputs"]`);

  await page.locator('#add-word').click();
  await page.waitForFunction(() => document.querySelector('[data-tensor="inputs"]')?.dataset.shape === '7,3');
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'token-6', 'the new word’s field has the focus');
  await setControl(page, '#token-6', 'again');
  await setControl(page, '#x-6-1', '0.5');
  await setControl(page, '#d_in', '5');
  await page.waitForFunction(() => document.querySelector('[data-tensor="inputs"]')?.dataset.shape === '7,5');
  assert.equal(await page.locator('#x-0-4').inputValue(), '0', 'a new column starts at 0');
  await page.locator('[data-remove-word="2"]').click(); // "starts"
  await page.waitForFunction(() => document.querySelector('[data-tensor="inputs"]')?.dataset.shape === '6,5');

  const s = settingsOf(page);
  assert.deepEqual(s.tokens, ['Your', 'journey', 'with', 'one', 'step', 'again']);
  assert.deepEqual(s.embeddings[5], [0, 0.5, 0, 0, 0]);
  assert.deepEqual(s.embeddings[0], [0.43, 0.15, 0.89, 0, 0]);
  assert.equal(await inputs.getAttribute('data-shape'), '6,5');
  // the step's title and formula name the new sizes; its code writes the rows
  assert.match(await page.locator('#step-title').textContent(), /^Six tokens, six 5-D vectors$/);
  const code = await page.locator(`${stepSelector('embeddings')} figure.code`).textContent();
  assert.match(code, /\[0\.00, 0\.50, 0\.00, 0\.00, 0\.00\],\s+# again/);

  await assertStepsMatch(page, ['embeddings', 'all-weights', 'keys-values', 'causal-softmax', 'dropout-weights', 'mha-output']);

  // the link opens the same sentence
  const link = page.url();
  const other = await newPage(env.browser);
  await other.goto(link);
  await waitForStep(other, 'mha-output');
  assert.deepEqual(await tensorValues(other, 'mha-output', 'mha_out'), await tensorValues(page, 'mha-output', 'mha_out'));
  assertNoProblems(other);
  await closePage(other);
  assertNoProblems(page);
  await closePage(page);
});

test('numbers drawn by torch.randn under a seed: the draw is the API’s, the code shows it, the numbers are text', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'embeddings');
  await setControl(page, '#inputs-from', 'randn');
  await setControl(page, '#inputSeed', '7');
  await page.waitForFunction(() => document.querySelector('#drawn-code')?.textContent.includes('manual_seed(7)'));
  const shown = await tensorValues(page, 'embeddings', 'inputs');
  const torch = await (await import('../../wasm/index.js')).loadAttention();
  torch.manualSeed(7);
  assert.deepEqual(shown, torch.randn(6, 3).toArray().flat());
  // a drawn number is the text of its cell, not a field (the seed's edit rewrote them in place); its row is
  // headed by its word, its column by d_j
  const cells = await page.evaluate(() => ({
    texts: [...document.querySelectorAll('.inputs-table.is-drawn td.drawn-num')].map((td) => td.textContent),
    fields: document.querySelectorAll('.inputs-table input.num-input').length,
    rowHead: document.querySelector('#x-0-0').parentElement.querySelector('th[scope="row"] #token-0') !== null,
  }));
  assert.deepEqual(cells, { texts: shown.map((v) => v.toFixed(2)), fields: 0, rowHead: true });
  const code = await page.locator(`${stepSelector('embeddings')} figure.code`).textContent();
  assert.match(code, /torch\.manual_seed\(7\)[^▶]*▶inputs = torch\.randn\(6, 3\)/);
  assert.match(await page.locator('#settings-status').textContent(), /embeddings drawn with torch\.randn/);
  await assertStepsMatch(page, ['all-context', 'self-attention-v2', 'wrapper']);
  assertNoProblems(page);
  await closePage(page);
});

test('one word: every step computes, the query steps say the query is x(1)', async () => {
  const page = await newPage(env.browser);
  const one = { ...bookSettings(), tokens: ['alone'], embeddings: [[0.3, -0.2, 0.9]] };
  await openAt(page, env.base, 'scores-x2', one);
  assert.match(await page.locator(`${stepSelector('scores-x2')} .notice`).first().textContent(), /query is x\(1\)/);
  assert.match(await page.locator(`${stepSelector('scores-x2')} figure.code`).textContent(), /query = inputs\[0\]/);
  await assertStepsMatch(page, ['scores-x2', 'context-q2', 'causal-softmax', 'mha-output']);
  assertNoProblems(page);
  await closePage(page);
});

test('rejected combinations: the core’s message beside the control, the last numbers kept, the URL unchanged', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'mha-output');
  const before = await tensorValues(page, 'mha-output', 'mha_out');
  const url = page.url();

  await setControl(page, '#context_length', '4');
  await page.locator('#context_length-error').waitFor();
  assert.equal(await page.locator('#context_length-error').textContent(), 'CausalAttention: the input has 6 tokens, more than context_length = 4');
  assert.equal(await page.locator('#context_length').getAttribute('aria-invalid'), 'true');
  assert.match(await page.locator('#settings-status').textContent(), /could not be computed: CausalAttention: the input has 6 tokens, more than context_length = 4\. The page keeps/);
  assert.deepEqual(await tensorValues(page, 'mha-output', 'mha_out'), before);
  assert.equal(page.url(), url);

  await setControl(page, '#context_length', '');
  await setControl(page, '#heads', '3');
  for (const id of ['heads', 'd_out']) {
    await page.locator(`#${id}-error`).waitFor();
    assert.match(await page.locator(`#${id}-error`).textContent(), /^MultiHeadAttention: d_out must be divisible by num_heads, got d_out = 2 and num_heads = 3$/);
  }
  await setControl(page, '#d_out', '6');
  await page.waitForFunction(() => document.querySelector('[data-tensor="mha_out"]')?.dataset.shape === '2,6,6');
  assert.equal(await page.locator('#heads-error').isHidden(), true, 'the message goes once the combination works');
  assert.equal(settingsOf(page).heads, 3);

  // a link with a rejected combination opens with the book's value for it, and says why
  const linked = await newPage(env.browser);
  await linked.goto(`${env.base}#step=mha-output&heads=3`);
  await waitForStep(linked, 'mha-output');
  assert.match(await linked.locator('#notices').textContent(), /heads and d_out could not be used \(MultiHeadAttention: d_out must be divisible/);
  assert.equal(settingsOf(linked).heads, 2);
  assertNoProblems(linked);
  await closePage(linked);
  assertNoProblems(page);
  await closePage(page);
});

test('16 words of 16 numbers at 390 px: the table scrolls inside its box and says so, keyboard adds a word, axe-core is clean', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  const big = {
    ...bookSettings(),
    tokens: Array.from({ length: 15 }, (_, i) => `word${i + 1}`),
    embeddings: Array.from({ length: 15 }, (_, i) => Array.from({ length: 16 }, (__, j) => ((i + j) % 5) / 5)),
  };
  await openAt(page, env.base, 'embeddings', big);
  await page.locator('#open-settings').click();
  await page.locator('#add-word').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('[data-tensor="inputs"]')?.dataset.shape === '16,16');
  assert.equal(await page.locator('#add-word').isDisabled(), true, 'no more than 16 words');
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, box: document.querySelector('.inputs-box').scrollWidth > document.querySelector('.inputs-box').clientWidth }));
  assert.ok(widths.page <= 390, `the page is ${widths.page} px wide`);
  assert.ok(widths.box, 'the inputs table scrolls inside its box');
  await page.waitForFunction(() => document.querySelector('.inputs-box').classList.contains('is-scrollable'));
  assert.ok(await page.locator('.inputs-box > .scroll-hint').isVisible(), 'and says so');
  assert.deepEqual(await seriousViolations(page), []);
  assertNoProblems(page);
  await closePage(page);
});
