// The PyTorch lines fit their box: on every step, at 1280 x 800 and on a 390 x 844 phone, a long line wraps
// inside the box instead of being cut (no line wider than its box, no sideways scrolling), and what a reader
// selects and copies is still exactly the step's Python, one line per line.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, bookSettings, closePage, formatHash, newPage, openAt, siteForTests, stepSelector, STEPS, waitForStep } from './harness.mjs';
import { shownCode } from '../../web/render/code.js';

const env = siteForTests();

const SIZES = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];

// The longest lines the settings make: 16 words of 16 numbers each (long words in the comments), a bias,
// more heads and a larger d_out.
const LONG_WORDS = ['attention', 'is', 'computed', 'number', 'by', 'number', 'for', 'every', 'token', 'in', 'the',
  'sentence', 'internationalisation', 'and', 'its', 'neighbours'];
const LONG_SETTINGS = {
  ...bookSettings(),
  tokens: LONG_WORDS,
  embeddings: LONG_WORDS.map((_, i) => Array.from({ length: 16 }, (_, j) => -((i * 16 + j) % 97) / 97)),
  d_out: 16,
  heads: 4,
  qkv_bias: true,
  seed: 1234567,
};

/** Each code line wider than its box, the pre's sideways overflow, and the text a selection of the code copies. */
function measureCode(stepId) {
  const figure = document.querySelector(`[data-step="${stepId}"][data-section] figure.code`);
  if (!figure) return null;
  const pre = figure.querySelector('pre');
  const cut = [...pre.querySelectorAll('.line')]
    .filter((line) => line.scrollWidth > line.clientWidth)
    .map((line) => `line ${line.dataset.line} is ${line.scrollWidth - line.clientWidth} px wider than its box: ${line.textContent}`);
  const range = document.createRange();
  range.selectNodeContents(pre);
  const selection = getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  const copied = selection.toString();
  selection.removeAllRanges();
  return { cut, preOverflow: pre.scrollWidth - pre.clientWidth, copied };
}

const RUNS = [
  ...SIZES.map((size) => ({ size, settings: bookSettings(), what: 'the book' })),
  { size: SIZES[1], settings: LONG_SETTINGS, what: '16 long words of 16 numbers' },
];

for (const { size, settings, what } of RUNS) {
  test(`every step's code fits its box and copies as its Python at ${size.width} x ${size.height} with ${what}`, async () => {
    const page = await newPage(env.browser, size);
    await openAt(page, env.base, STEPS[0].id, settings);
    const problems = [];
    for (const step of STEPS) {
      await page.evaluate((hash) => {
        location.hash = hash;
      }, formatHash(step.id, settings));
      await waitForStep(page, step.id);
      const { lines } = shownCode(step, settings);
      const shown = await page.evaluate(measureCode, step.id);
      if (lines.length === 0) {
        if (shown) problems.push(`${step.id}: shows a code box for no lines`);
        continue;
      }
      if (!shown) {
        problems.push(`${step.id}: no code box for its ${lines.length} lines`);
        continue;
      }
      for (const line of shown.cut) problems.push(`${step.id}: ${line}`);
      if (shown.preOverflow > 0) problems.push(`${step.id}: the code box scrolls sideways by ${shown.preOverflow} px`);
      if (shown.copied !== lines.join('\n')) {
        problems.push(`${step.id}: copying the code gives ${JSON.stringify(shown.copied)} instead of ${JSON.stringify(lines.join('\n'))}`);
      }
    }
    assert.deepEqual(problems, [], `code that does not fit or copies wrong at ${size.width} px:\n${problems.join('\n')}`);
    assertNoProblems(page);
    await closePage(page);
  });
}

test('copying a wrapped class with run-marked and blank lines puts exactly its Python on the clipboard', async () => {
  const step = STEPS.find((s) => s.id === 'mha-output');
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { permissions: ['clipboard-read', 'clipboard-write'] } });
  await openAt(page, env.base, step.id);
  const pre = page.locator(`${stepSelector(step.id)} figure.code pre`);
  await pre.evaluate((el) => getSelection().selectAllChildren(el));
  await pre.press('Control+C');
  const { lines, highlight } = shownCode(step, bookSettings());
  assert.ok(highlight.length > 0 && lines.includes(''), 'the step should have run-marked and blank lines');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), lines.join('\n'));
  assertNoProblems(page);
  await closePage(page);
});
