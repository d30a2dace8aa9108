// The query of the one-query steps: chosen in the settings (the link's query=), followed by the steps' titles,
// numbers, code, take-apart and the z(2) picture, which draws each input's weight; a query past the last word
// is named; the bias vectors of SelfAttention_v2 when qkv_bias is on. 390 px and axe-core included.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, bookSettings, closePage, formatHash, newPage, openAt, reference, sameNumbers, seriousViolations, setControl, siteForTests, stepSelector, tensorValues, waitForStep, waitForValuesChange } from './harness.mjs';

const env = siteForTests();

test('query 4 typed in the settings: title, numbers, code, link and take-apart follow x(4) on the one-query steps', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'scores-x2');
  const before = JSON.stringify(await tensorValues(page, 'scores-x2', 'attn_scores_2'));
  await setControl(page, '#query', '4');
  await waitForValuesChange(page, 'scores-x2', 'attn_scores_2', before);
  const settings = { ...bookSettings(), query: 4 };
  const results = await reference(settings);
  assert.equal(await page.locator('#step-title').textContent(), 'Scores of x(4) against every token');
  assert.ok(sameNumbers(await tensorValues(page, 'scores-x2', 'query'), results.inputs.values[3]), 'the query is row 3 of inputs');
  assert.ok(sameNumbers(await tensorValues(page, 'scores-x2', 'attn_scores_2'), results.attn_scores_2.values));
  assert.match(await page.locator(`${stepSelector('scores-x2')} figure.code pre`).textContent(), /query = inputs\[3\] {2}# x\(4\), “with”, as the query/);
  assert.match(await page.locator(stepSelector('scores-x2')).getAttribute('data-python'), /query = inputs\[3\]/);
  assert.match(await page.evaluate(() => location.hash), /(^|&|#)query=4(&|$)/);
  // a score's take-apart names ω4j
  await page.locator(`${stepSelector('scores-x2')} [data-tensor="attn_scores_2"] [tabindex]`).nth(1).hover();
  await page.waitForFunction(() => /ω4/.test(document.getElementById('take-apart')?.innerText ?? ''));

  // the 3.4.1 steps follow as well
  for (const [id, title, name, expected] of [
    ['qkv-x2', 'Query, key and value of x(4)', 'x_2', results.inputs.values[3]],
    ['score-22', 'One score: ω44', 'attn_score_22', results.attn_score_22.values],
    ['scores-q2', 'All scores of x(4)', 'attn_scores_2_qk', results.attn_scores_2_qk.values],
    ['context-q2', 'The context vector of x(4), from values', 'context_vec_2_qk', results.context_vec_2_qk.values],
  ]) {
    await page.goto(env.base + formatHash(id, settings));
    await waitForStep(page, id);
    assert.equal(await page.locator('#step-title').textContent(), title);
    assert.ok(sameNumbers(await tensorValues(page, id, name), expected), `${id}: ${name}`);
  }
  assert.match(await page.locator(`${stepSelector('context-q2')} .step-note, ${stepSelector('context-q2')}`).first().textContent(), /x\(4\)/);
  assertNoProblems(page);
  await closePage(page);
});

test('the z(2) picture draws each input’s weight beside it and marks the chosen query', async () => {
  const page = await newPage(env.browser);
  for (const query of [2, 5]) {
    const settings = { ...bookSettings(), query };
    await openAt(page, env.base, 'context-z2', settings);
    const results = await reference(settings);
    const figure = page.locator(`${stepSelector('context-z2')} .view-context`);
    const weights = await figure.locator('.context-weight-num').allTextContents();
    assert.deepEqual(weights, results.attn_weights_2.values.map((w) => `× ${w.toFixed(4)}`), `query ${query}`);
    const bars = await figure.locator('.context-weight-fill').evaluateAll((els) => els.map((el) => el.style.getPropertyValue('--weight')));
    assert.deepEqual(bars, results.attn_weights_2.values.map((w) => `${w * 100}%`));
    assert.equal(await figure.locator('.context-input').nth(query - 1).evaluate((el) => el.classList.contains('is-query')), true);
    assert.equal(await figure.locator('.context-input.is-query').count(), 1);
    assert.match(await figure.locator('figcaption').textContent(), new RegExp(`of the query “${bookSettings().tokens[query - 1]}”`));
    assert.equal(await page.locator('#step-title').textContent(), `The context vector z(${query})`);
  }
  assertNoProblems(page);
  await closePage(page);
});

test('a query past the last word uses the last and says so; a query the page cannot use is named in the link notice', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'scores-q2', { ...bookSettings(), query: 9 });
  assert.match(await page.locator(`${stepSelector('scores-q2')} .notice`).textContent(), /With 6 words there is no x\(9\): on this step the query is x\(6\), the last token, and the code uses inputs\[5\]\./);
  assert.equal(await page.locator('#step-title').textContent(), 'All scores of x(6)');
  await page.goto(`${env.base}#step=scores-x2&query=0`);
  await waitForStep(page, 'scores-x2');
  assert.match(await page.locator('#notices').textContent(), /query token \(0\)/);
  assert.equal(await page.locator('#step-title').textContent(), 'Scores of x(2) against every token');
  assert.equal(await page.locator('#query').inputValue(), '2');
  assertNoProblems(page);
  await closePage(page);
});

test('SelfAttention_v2 shows its three bias vectors when qkv_bias is on, and none when it is off', async () => {
  const page = await newPage(env.browser);
  const names = ['sa_v2_W_query_bias', 'sa_v2_W_key_bias', 'sa_v2_W_value_bias'];
  await openAt(page, env.base, 'self-attention-v2');
  for (const name of names) assert.equal(await page.locator(`[data-tensor="${name}"]`).count(), 0);
  const settings = { ...bookSettings(), qkv_bias: true };
  await openAt(page, env.base, 'self-attention-v2', settings);
  const results = await reference(settings);
  for (const name of names) {
    assert.ok(sameNumbers(await tensorValues(page, 'self-attention-v2', name), results[name].values), name);
    assert.deepEqual(results[name].shape, [2]);
  }
  assert.match(await page.locator(stepSelector('self-attention-v2')).getAttribute('data-python'), /print\(sa_v2\.W_key\.bias\)/);
  assertNoProblems(page);
  await closePage(page);
});

test('390 px: the chosen query’s picture fits and is axe-core clean', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  await openAt(page, env.base, 'context-z2', { ...bookSettings(), query: 3 });
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390);
  assert.deepEqual(await seriousViolations(page, stepSelector('context-z2')), []);
  assertNoProblems(page);
  await closePage(page);
});
