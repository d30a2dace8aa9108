// The dropout steps' notes agree in number with the counts they print ("1 was dropped", "of 1 cell"), at many
// seeds, dropout rates and sentence lengths; and the dropout on ones(n, n) is labelled with indices, not the
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
const SENTENCES = {
  'six words': { tokens: book.tokens, embeddings: book.embeddings },
  'two words': { tokens: ['hello', 'world'], embeddings: [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]] },
  'one word': { tokens: ['alone'], embeddings: [[0.6, -0.4, 0.2]] },
};
const DROPOUT_STEPS = STEPS.filter((step) => step.id.startsWith('dropout-'));

/** Each count in a note against the word that follows it: a problem per disagreement. */
function disagreements(note) {
  const problems = [];
  const agree = (pattern, singular) => {
    for (const match of note.matchAll(pattern)) {
      if ((Number(match[1]) === 1) !== (match[2] === singular)) problems.push(`“${match[0]}”`);
    }
  };
  agree(/\b(\d+) (was|were) dropped/g, 'was');
  for (const match of note.matchAll(/\bof (?:the )?(\d+) (?:visible )?(?:cell|weight)(s?)\b/g)) {
    if ((Number(match[1]) === 1) !== (match[2] === '')) problems.push(`“${match[0]}”`);
  }
  agree(/\b(\d+) of the \d+ visible weights? (survives|survive)\b/g, 'survives');
  return problems;
}

test('the dropout notes agree in number with their counts', () => {
  const singulars = new Set();
  for (const [sentence, words] of Object.entries(SENTENCES)) {
    for (const p of [0.1, 0.2, 0.5, 0.8]) {
      for (const seed of [123, 1, 2, 3, 4, 5, 6, 7]) {
        const settings = { ...book, ...words, p, seed };
        const results = computeChapter(torch, settings);
        for (const step of DROPOUT_STEPS) {
          const note = step.note(results, settings);
          assert.deepEqual(disagreements(note), [], `${step.id}, ${sentence}, p = ${p}, seed ${seed}: ${note}`);
          for (const match of note.matchAll(/\b1 (was dropped|of the \d+ visible weights survives|dropped)\b/g)) singulars.add(match[1].replace(/\d+/, 'n'));
        }
      }
    }
  }
  // the singular cases happened, so the checks above saw them
  assert.ok(singulars.has('was dropped'), `no note said “1 was dropped”: ${[...singulars]}`);
  assert.ok(singulars.has('of the n visible weights survives'), `no note said “1 of the … survives”: ${[...singulars]}`);
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
