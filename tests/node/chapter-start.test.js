// The page's start computes the chapter in two parts (web/chapter/index.js startChapter): the sections the
// first-shown step needs, then the rest after that step is on screen. Both parts together must give
// computeChapter()'s bits for any step it starts from, even with the generator used in between (a take-apart
// may run a module); a result read early computes the rest; a rest the core rejects fails in finish().
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter, startChapter } from '../../web/chapter/index.js';
import { STEPS, shownResults } from '../../web/steps/index.js';
import { bookSettings } from '../../web/state.js';
import { readable, firstOfSection } from './support.mjs';

let torch;
before(async () => {
  torch = await loadAttention();
});

test('the two parts give computeChapter()\'s results for a start at any section, the generator used between them', () => {
  // the book's settings started at every section; drawn inputs, biases and four heads at three of them
  const variants = [
    [(seed) => ({ ...bookSettings(), seed }), firstOfSection],
    [(seed) => ({ ...bookSettings(), seed, seedV2: seed + 1, inputs: 'randn', inputSeed: seed, qkv_bias: true, heads: 4, d_out: 4 }),
      firstOfSection.filter((_, i) => i % 4 === 0)],
  ];
  let seed = 200;
  for (const [make, starts] of variants) {
    for (const step of starts) {
      // each compute with a seed of its own, so that the chapter's kept modules are drawn anew each time
      const settings = make(seed++);
      const whole = readable(computeChapter(torch, settings));
      computeChapter(torch, make(seed++)); // another set of modules kept in between
      const { results, finish } = startChapter(torch, settings, shownResults(step, settings));
      for (const name of shownResults(step, settings)) assert.ok(Object.hasOwn(results, name), `${step.id}: ${name} not computed first`);
      torch.manualSeed(7);
      torch.rand(5);
      assert.deepEqual(readable(finish()), whole, `started at ${step.id} (${step.section})`);
    }
  }
});

test('the first step computes its own section only; reading a later result computes the rest', () => {
  const settings = bookSettings();
  const { results, finish } = startChapter(torch, settings, [...shownResults(STEPS[0], settings), 'inputs']);
  assert.ok(Object.hasOwn(results, 'dot_x1_x2') && Object.hasOwn(results, 'inputs'));
  // 3.3.1's query (its scores, softmax and context vector) is a section of its own, computed after the first paint
  for (const name of ['query', 'attn_scores_2', 'attn_weights_2', 'context_vec_2', 'attn_scores']) {
    assert.ok(!Object.hasOwn(results, name), `${name}, of a later section, computed before the first step is shown`);
  }
  assert.deepEqual(results.mha_out.values, computeChapter(torch, settings).mha_out.values);
  assert.equal(finish(), finish(), 'finish() after the rest was read returns the same results');
});

test('settings the later sections reject fail in finish(), and a result read early is then missing', () => {
  // context_length shorter than the sentence: CausalAttention (3.5.3) refuses it
  const settings = { ...bookSettings(), context_length: 2 };
  const { results, finish } = startChapter(torch, settings, shownResults(STEPS[0], settings));
  assert.equal(typeof results.dot_x1_x2.values, 'number');
  assert.equal(results.ca_context_vecs, undefined);
  assert.throws(finish, (error) => error.name === 'AttentionError' && error.settings.includes('context_length'));
  assert.throws(finish, (error) => error.name === 'AttentionError', 'the second finish() repeats the error');
});
