// Walks every step of the page with the book's settings (via the #next button) and checks every displayed
// tensor: its data-values are the numbers web/chapter/ computes, those that the chapter prints match the
// printout (compare.js matchesBook, checked here in Node, not trusted from the page) and the page marks
// them data-book="match".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { matchesBook } from '../../web/compare.js';
import { scriptForStep } from '../../web/notebook/chapter-cells.js';
import { printedResults } from '../notebook/chapter-settings.mjs';
import {
  BOOK_PRINTS,
  STEPS,
  assertNoProblems,
  bookSettings,
  firstDifference,
  newPage,
  openAt,
  product,
  readTensors,
  reference,
  sameNumbers,
  setup,
  stepSelector,
  waitForStep,
} from './harness.mjs';

let env;
let page;
let ref;
const displayed = new Set(); // result names seen on some step

before(async () => {
  env = await setup();
  page = await newPage(env.browser);
  ref = await reference(bookSettings());
});

after(async () => {
  await env?.close();
});

test('the registry has steps with unique ids', () => {
  assert.ok(STEPS.length > 0, 'web/steps/index.js exports no steps');
  const ids = STEPS.map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, `duplicate step ids: ${ids}`);
});

test('walking every step with #next: every displayed tensor is the computed one and matches the book', async (t) => {
  await openAt(page, env.base, STEPS[0].id);
  for (const [k, step] of STEPS.entries()) {
    await t.test(`step ${k + 1}/${STEPS.length}: ${step.id} (${step.section})`, async () => {
      if (k > 0) await page.click('#next');
      await waitForStep(page, step.id);
      assert.equal(new URLSearchParams(new URL(page.url()).hash.slice(1)).get('step'), step.id, 'the hash names the step');
      const section = await page.locator(stepSelector(step.id)).first().getAttribute('data-section');
      assert.equal(section, step.section, 'data-section');

      const tensors = await readTensors(page, step.id);
      const withNumbers = tensors.filter((x) => Array.isArray(x.values) && x.values.length > 0);
      assert.ok(withNumbers.length > 0, `step ${step.id} shows no tensor with numbers`);

      const problems = [];
      for (const shown of tensors) {
        const { name } = shown;
        displayed.add(name);
        // a tensor result, or a plain value (e.g. torch.allclose -> true) shown as a 0-d result
        const result = ref[name];
        if (!result || !(result.tensor || 'value' in result)) {
          problems.push(`${name}: data-tensor names no result of computeChapter`);
          continue;
        }
        const expected = result.tensor ? result : { shape: [], values: [result.value] };
        if (!Array.isArray(shown.values)) {
          problems.push(`${name}: data-values is not a JSON array (${shown.valuesText})`);
          continue;
        }
        if (shown.shape === null) problems.push(`${name}: no data-shape`);
        else {
          if (shown.shape.join(',') !== expected.shape.join(',')) {
            problems.push(`${name}: data-shape ${shown.shape} but the result has shape ${expected.shape}`);
          }
          if (shown.values.flat(Infinity).length !== product(shown.shape)) {
            problems.push(`${name}: ${shown.values.flat(Infinity).length} values for data-shape ${shown.shape}`);
          }
        }
        if (!sameNumbers(shown.values, expected.values)) {
          problems.push(`${name}: data-values differ from computeChapter's: ${firstDifference(shown.values, expected.values)}`);
        }
        const book = BOOK_PRINTS[name];
        if (book) {
          if (!matchesBook(shown.values, book)) {
            const text = shown.valuesText.length > 300 ? `${shown.valuesText.slice(0, 300)}…` : shown.valuesText;
            problems.push(`${name}: data-values ${text} do not match the book's\n${book}`);
          }
          if (shown.mark !== 'match') problems.push(`${name}: book mark is ${JSON.stringify(shown.mark)}, expected "match"`);
        }
      }
      // no value leaks into the page as the words "null" or "undefined"
      const stray = await page.locator(stepSelector(step.id)).first().evaluate((root) => {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        const found = [];
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          if (/^\s*(null|undefined|NaN|\[object Object\])\s*$/.test(n.textContent)) found.push(n.parentElement.outerHTML.slice(0, 120));
        }
        return found;
      });
      for (const where of stray) problems.push(`stray text in the step: ${where}`);
      // the registry's show list, as far as it names results, is what is drawn
      for (const name of step.show) {
        if ((ref[name]?.tensor || (ref[name] && 'value' in ref[name])) && !tensors.some((x) => x.name === name)) problems.push(`${name}: listed in show but no [data-tensor="${name}"]`);
      }
      // "Copy as PyTorch": the step carries its script, which prints every tensor drawn on it (one PyTorch
      // prints only its own build's dropout mask); tests/notebook runs the scripts with PyTorch
      const script = await page.locator(stepSelector(step.id)).first().getAttribute('data-python');
      if (script !== scriptForStep(step.id, bookSettings())) problems.push('data-python is not the step’s script');
      const printed = printedResults(step, bookSettings());
      for (const { name } of tensors) {
        if (!printed.includes(name) && !step.printsOneOf?.includes(name)) problems.push(`${name}: drawn, but its script does not print it`);
      }
      assert.deepEqual(problems, [], `step ${step.id}:\n${problems.join('\n')}`);
    });
  }
});

test('every printout of the book is displayed on some step', () => {
  const missing = Object.keys(BOOK_PRINTS).filter((name) => !displayed.has(name));
  assert.deepEqual(missing, [], `book printouts that no step displays: ${missing.join(', ')}`);
});

test('the walk logged no console errors', () => {
  assertNoProblems(page);
});
