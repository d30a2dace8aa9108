// "Predict, then see": each step with a question veils the results it asks about until the learner answers
// (keyboard only here) or presses "Show me", then says whether the guess was right, from the live numbers
// under any settings. Answers are kept in the link (a fresh page opened with it shows them, a link without
// them asks again, a bad one is named), and predictions can be turned off and on. 390 px and axe-core included.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, bookSettings, closePage, formatHash, newPage, reference, sameNumbers, seriousViolations, siteForTests, STEPS, stepSelector, tensorValues, waitForStep } from './harness.mjs';

const env = siteForTests();

const PREDICTING = STEPS.filter((s) => s.predict);

// The right answer to each question, from computeChapter's numbers: a choice's index or the number.
const ANSWERS = {
  'top-score': (r) => r.attn_scores_2.values.indexOf(Math.max(...r.attn_scores_2.values)),
  'softmax-largest': (r) => {
    const best = r.attn_scores_2.values.indexOf(Math.max(...r.attn_scores_2.values));
    return r.attn_weights_2_naive.values[best] > r.attn_weights_2_tmp.values[best] ? 0 : 2; // larger / smaller
  },
  'mask-zeros': (r) => r.mask_simple.values.flat().filter((v) => v === 0).length,
  'dropout-survivor': (r, s) => 1 / (1 - s.p),
  'wrapper-width': (r) => r.wrapper_out.shape.at(-1),
};

async function open(page, id, settings = bookSettings(), answers = {}) {
  await page.goto(env.base + formatHash(id, settings, answers));
  await waitForStep(page, id);
}

const panelOf = (page, step) => page.locator(`${stepSelector(step.id)} .predict[data-predict="${step.predict.id}"]`);

/** Whether each result the question is about is veiled (hidden and inert) now. */
const veiled = (page, step) =>
  Promise.all(step.predict.hides.map((name) => page.locator(`${stepSelector(step.id)} .results [data-tensor="${name}"]`).first()
    .evaluate((el) => el.inert && el.classList.contains('is-veiled') && getComputedStyle(el).visibility === 'hidden')));

/** Answers with the keyboard only: the choice by arrow keys from the first, or the number typed; then Enter on Check. */
async function answerByKeyboard(page, step, answer) {
  const panel = panelOf(page, step);
  if (step.predict.kind === 'choice') {
    await panel.locator('input[type="radio"]').first().focus();
    await page.keyboard.press('Space'); // selects the first
    for (let i = 0; i < answer; i++) await page.keyboard.press('ArrowRight');
  } else {
    await panel.locator('input[type="text"]').focus();
    await page.keyboard.type(String(answer));
  }
  await page.keyboard.press('Tab'); // to Check
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Check', `${step.id}: Tab reaches Check`);
  await page.keyboard.press('Enter');
}

test('five steps ask first: the results asked about are veiled until a keyboard answer, which is judged right from the live numbers', async () => {
  assert.deepEqual(PREDICTING.map((s) => s.id), ['scores-x2', 'softmax-naive', 'causal-tril-mask', 'dropout-ones', 'wrapper']);
  for (const settings of [bookSettings(), { ...bookSettings(), query: 4, p: 0.2, heads: 3, d_out: 3, tokens: ['a', 'b', 'c', 'd', 'e'], embeddings: [[0.1, 0.9, 0.2], [1.2, 0.3, 0.5], [0.4, 0.4, 0.4], [0.9, 1.1, 0.1], [0.05, 0.2, 0.8]] }]) {
    const results = await reference(settings);
    const page = await newPage(env.browser, { predictions: true });
    for (const step of PREDICTING) {
      await open(page, step.id, settings);
      const panel = panelOf(page, step);
      assert.ok(await panel.isVisible(), `${step.id}: the question is shown`);
      assert.ok((await veiled(page, step)).every(Boolean), `${step.id}: ${step.predict.hides} veiled before the answer`);
      assert.equal(await page.locator(`${stepSelector(step.id)} .step-note`).isHidden(), true, `${step.id}: the note waits too`);
      const told = ['.step-note', ...(step.predict.hidesAlso ?? [])];
      const hiddenParts = () => page.locator(stepSelector(step.id)).evaluate((el, sels) => sels.flatMap((sel) => [...el.querySelectorAll(sel)].map((x) => x.hidden)), told);
      assert.ok((await hiddenParts()).every(Boolean), `${step.id}: ${told} hidden before the answer`);
      await answerByKeyboard(page, step, ANSWERS[step.predict.id](results, settings));
      const verdict = panel.locator('.predict-verdict');
      assert.match(await verdict.textContent(), /^Right\. /, `${step.id}: ${await verdict.textContent()}`);
      assert.equal(await page.evaluate(() => document.activeElement?.classList.contains('predict-verdict')), true, `${step.id}: focus on the verdict`);
      assert.ok((await veiled(page, step)).every((v) => !v), `${step.id}: unveiled after the answer`);
      assert.equal(await page.locator(`${stepSelector(step.id)} .veil-label`).count(), 0);
      assert.ok((await hiddenParts()).every((hidden) => !hidden), `${step.id}: ${told} shown after the answer`);
    }
    // the verdicts quote the live numbers (the answers come with the link: a link without them asks again)
    const answered = (step) => ({ [step.predict.id]: ANSWERS[step.predict.id](results, settings) });
    await open(page, 'dropout-ones', settings, answered(PREDICTING[3]));
    assert.match(await panelOf(page, PREDICTING[3]).textContent(), new RegExp(`1/\\(1 − p\\) = ${(1 / (1 - settings.p)).toFixed(4)}`));
    await open(page, 'wrapper', settings, answered(PREDICTING[4]));
    assert.match(await panelOf(page, PREDICTING[4]).textContent(), new RegExp(`\\[${results.wrapper_out.shape.join(', ')}\\]`));
    assertNoProblems(page);
    await closePage(page);
  }
});

test('a wrong guess is named and corrected; "Show me" reveals without a guess; the answers are in the link: a fresh page opened with it shows them, a bad one is named and asked again', async () => {
  const page = await newPage(env.browser, { predictions: true });
  const step = PREDICTING.find((s) => s.predict.id === 'mask-zeros');
  const settings = { ...bookSettings(), seed: 7 };
  await open(page, step.id, settings);
  await answerByKeyboard(page, step, 21);
  const verdict = panelOf(page, step).locator('.predict-verdict');
  assert.match(await verdict.textContent(), /^Not quite\. 15 cells are 0 \(you said 21\): row i hides .* 5 \+ 4 \+ 3 \+ 2 \+ 1 \+ 0 = n\(n − 1\)\/2 with n = 6/);
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('answers') === 'mask-zeros.21');
  const link = page.url();
  // the contents' links and the parts' links carry it too, so a step opened from them in a new tab keeps the quiz
  const carried = await page.evaluate(() =>
    [...document.querySelectorAll('#toc a[data-step-link], #here a[data-step-link]')].map((a) => new URLSearchParams(a.hash.slice(1)).get('answers')),
  );
  assert.ok(carried.length > 40, `${carried.length} links`);
  assert.deepEqual([...new Set(carried)], ['mask-zeros.21']);
  // "Ask me again" veils and asks again
  await panelOf(page, step).getByRole('button', { name: 'Ask me again' }).click();
  assert.ok((await veiled(page, step)).every(Boolean));
  assert.equal(await panelOf(page, step).locator('input[type="text"]').evaluate((el) => el === document.activeElement), true);
  // an empty answer is explained, not judged
  await panelOf(page, step).getByRole('button', { name: 'Check' }).click();
  assert.match(await panelOf(page, step).locator('.field-error').textContent(), /Type a number, or press “Show me”/);
  await panelOf(page, step).getByRole('button', { name: 'Show me' }).click();
  assert.match(await panelOf(page, step).locator('.predict-verdict').textContent(), /^Here is what happens\. 15 cells are 0:/);

  // another browser context, with nothing of the first page's but the link: the answer and the numbers are back
  const other = await newPage(env.browser, { predictions: true });
  await other.goto(link);
  await waitForStep(other, step.id);
  assert.match(await panelOf(other, step).locator('.predict-verdict').textContent(), /^Not quite\. 15 cells are 0 \(you said 21\)/);
  assert.ok((await veiled(other, step)).every((v) => !v), 'the numbers are shown');
  const expected = await reference(settings);
  for (const name of step.predict.hides) assert.ok(sameNumbers(await tensorValues(other, step.id, name), expected[name].values), `${name} as computed`);
  // an answer the question cannot take is named in the notice and asked again, the rest of the link kept; the
  // link is then one without answers
  await other.goto(link.replace('answers=mask-zeros.21', 'answers=mask-zeros.many'));
  await other.locator('#notices .notice').waitFor();
  assert.match(await other.locator('#notices').textContent(), /This link’s answer to “mask-zeros” \(many\) could not be used, so that question is asked again\./);
  assert.ok(await panelOf(other, step).locator('form').isVisible());
  assert.ok((await veiled(other, step)).every(Boolean));
  const kept = new URLSearchParams(new URL(other.url()).hash.slice(1));
  assert.deepEqual([kept.get('step'), kept.get('seed'), kept.get('answers')], [step.id, '7', null]);
  assertNoProblems(page);
  assertNoProblems(other);
  await closePage(page);
  await closePage(other);
});

test('predictions turned off show the numbers at once on every step, and "Ask me first" turns them on again', async () => {
  const page = await newPage(env.browser, { predictions: true });
  const [first, second] = PREDICTING;
  await open(page, first.id);
  await panelOf(page, first).getByRole('button', { name: 'Turn predictions off' }).click();
  assert.ok((await veiled(page, first)).every((v) => !v));
  await open(page, second.id);
  assert.equal(await panelOf(page, second).count(), 0);
  assert.ok((await veiled(page, second)).every((v) => !v), 'off: shown at once');
  const back = page.locator(`${stepSelector(second.id)} .predict-off button`);
  assert.equal(await back.textContent(), 'Ask me first');
  await back.click();
  assert.ok(await panelOf(page, second).isVisible());
  assert.ok((await veiled(page, second)).every(Boolean));
  assertNoProblems(page);
  await closePage(page);
});

test('390 px: questions and verdicts fit the screen and are axe-core clean', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844, predictions: true, contextOptions: { bypassCSP: true } });
  for (const step of PREDICTING) {
    await open(page, step.id);
    assert.ok(await panelOf(page, step).isVisible());
    assert.deepEqual(await seriousViolations(page, stepSelector(step.id)), [], `${step.id}: asking`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, `${step.id}: no sideways scroll`);
    await panelOf(page, step).getByRole('button', { name: 'Show me' }).click();
    assert.deepEqual(await seriousViolations(page, stepSelector(step.id)), [], `${step.id}: answered`);
    assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, `${step.id}: no sideways scroll after`);
  }
  assertNoProblems(page);
  await closePage(page);
});
