// The diagnose benchmark's cases at the book's sizes (scripts/bench/diagnose-cases.mjs), searched over the whole
// chapter as the page's box does (a printout nothing explains: over its step's results, see searchedStep): every
// answer, its changes, sentences, cells and the nearest, exactly as tests/golden/diagnose-answers.json holds them
// (written by tests/golden/gen_diagnose_answers.mjs from the search before it was made faster: a faster search
// must give the same answers).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { diagnose } from '../../diagnose/index.js';
import { loadAttention } from '../../wasm/index.js';
import { diagnoseCases, searchedStep } from '../../scripts/bench/diagnose-cases.mjs';
import golden from '../golden/diagnose-answers.json' with { type: 'json' };

const cases = diagnoseCases(await loadAttention()).filter((c) => c.what.startsWith('book:'));

test('every book-size case of the benchmark has its answers on file', () => {
  assert.deepEqual(cases.map((c) => c.what), Object.keys(golden.cases));
});

for (const c of cases) {
  test(`${c.what}: the same answers`, async () => {
    const answers = JSON.parse(JSON.stringify(await diagnose({ printed: c.printed, settings: c.settings, step: searchedStep(c) })));
    assert.deepEqual(answers, golden.cases[c.what]);
  });
}
