// Every step's note agrees in number with the counts it prints ("1 was dropped", "of 1 cell", "1 column"), at
// many seeds, dropout rates and sizes; and the dropout on ones(n, n) is labelled with indices, not the
// sentence's words (the ones are no sentence), while the dropout on the attention weights keeps the words.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { STEPS } from '../../web/steps/index.js';
import { bookSettings } from '../../web/state.js';

let torch;
before(async () => {
  torch = await loadAttention();
});

const book = bookSettings();
const SIZES = {
  'the book’s': { tokens: book.tokens, embeddings: book.embeddings },
  'two words of one number, one head of 1': { tokens: ['hello', 'world'], embeddings: [[0.5], [-0.25]], d_out: 1, heads: 1 },
  'one word': { tokens: ['alone'], embeddings: [[0.6, -0.4, 0.2]] },
};
const NOTED = STEPS.filter((step) => typeof step.note === 'function');

/** Each count in a note against the words that agree with it: a problem per disagreement. */
function disagreements(note) {
  const problems = [];
  const agree = (pattern, singular) => {
    for (const match of note.matchAll(pattern)) {
      if ((Number(match[1]) === 1) !== singular(match[2])) problems.push(`“${match[0]}”`);
    }
  };
  agree(/\b(\d+) (?:visible )?(?:token|feature|text|column|weight|cell|head)(s?)\b/g, (s) => s === '');
  agree(/\b(\d+) (?:of the \d+ (?:visible )?(?:weights?|cells?) )?(was|were|survives|survive|sits|sit)\b/g, (verb) => /^(was|survives|sits)$/.test(verb));
  return problems;
}

test('every note agrees in number with its counts', () => {
  const singulars = new Set();
  for (const [size, words] of Object.entries(SIZES)) {
    for (const p of [0.1, 0.2, 0.5, 0.8]) {
      for (const seed of [123, 1, 2, 3, 4, 5, 6, 7]) {
        const settings = { ...book, ...words, p, seed };
        const results = computeChapter(torch, settings);
        for (const step of NOTED) {
          const note = step.note(results, settings); // throws where the page would say it could not compute it
          assert.deepEqual(disagreements(note), [], `${step.id}, ${size} sizes, p = ${p}, seed ${seed}: ${note}`);
          for (const match of note.matchAll(/\b1 (was|(?:of the \d+ )?[a-z ]*?(?:survives|sits|column|token|feature|weight)\b)/g)) singulars.add(`${step.id}: 1 ${match[1].replace(/\d+/, 'n')}`);
        }
      }
    }
  }
  // the singular cases happened, so the checks above saw them
  for (const expected of ['dropout-weights: 1 was', 'dropout-weights: 1 of the n visible weights survives', 'causal-weights: 1 of the n weights sits', 'wrapper: 1 column', 'embeddings: 1 token']) {
    assert.ok(singulars.has(expected), `no note said “${expected}”: ${[...singulars].join('; ')}`);
  }
});

/** The labels the page draws on an axis of n cells: a result's own, or the indices (web/render/matrix.js). */
const drawnLabels = (labels, n) => (Array.isArray(labels) && labels.length === n ? labels.map(String) : Array.from({ length: n }, (_, i) => String(i)));

test('dropout on ones(n, n) is labelled with indices; dropout on the weights with the words', () => {
  const settings = { ...book, tokens: ['the', 'cat', 'sat', 'on', 'a', 'mat'] };
  const results = computeChapter(torch, settings);
  const indices = ['0', '1', '2', '3', '4', '5'];
  for (const name of ['dropout_ones', 'dropout_ones_default', 'dropout_ones_mkl']) {
    assert.deepEqual(drawnLabels(results[name].rows, 6), indices, `${name}'s rows`);
    assert.deepEqual(drawnLabels(results[name].cols, 6), indices, `${name}'s columns`);
  }
  assert.deepEqual(drawnLabels(results.dropout_weights.rows, 6), settings.tokens, 'dropout_weights’ rows');
  assert.deepEqual(drawnLabels(results.dropout_weights.cols, 6), settings.tokens, 'dropout_weights’ columns');
});
