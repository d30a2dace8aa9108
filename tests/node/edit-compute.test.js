// A seed edit computes first only the sections the step needs (web/app/compute.js computeFirst: those that make
// a result it shows or add to what later sections read), the others once the step is painted. Both parts
// together must give computeChapter()'s bits for a seed edit on any step, with the generator used between them.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { computeFirst } from '../../web/app/compute.js';
import { STEPS, shownResults } from '../../web/steps/index.js';
import { bookSettings } from '../../web/state.js';
import { readable, firstOfSection } from './support.mjs';
import { SIZES } from '../../scripts/bench/inputs.mjs';

let torch;
before(async () => {
  torch = await loadAttention();
});

const needs = (step, settings) => [...shownResults(step, settings), step.context, step.weights, 'inputs'].filter(Boolean);

test('a seed edit computed in two parts gives computeChapter()\'s results on a step of every section', () => {
  const variants = [
    (seed) => ({ ...bookSettings(), seed, seedV2: seed + 1 }),
    (seed) => ({ ...bookSettings(), seed, inputs: 'randn', inputSeed: seed, qkv_bias: true, heads: 4, d_out: 4 }),
  ];
  let seed = 300;
  for (const make of variants) {
    computeFirst(torch, make(seed++), []).finish?.(); // the sections learnt, as the page's first edit learns them
    for (const step of firstOfSection) {
      const settings = make(seed++);
      const whole = readable(computeChapter(torch, settings));
      const { results, finish } = computeFirst(torch, settings, needs(step, settings));
      for (const name of needs(step, settings)) assert.ok(Object.hasOwn(results, name), `${step.id}: ${name} not computed first`);
      torch.manualSeed(7);
      torch.rand(5);
      assert.deepEqual(readable(finish ? finish() : results), whole, `a seed edit on ${step.id} (${step.section})`);
    }
  }
});

test('at 16 x 16 x 16 a seed edit on the heads\' weights leaves the sections it does not read for later', () => {
  const settings = structuredClone(SIZES['16x16x16']);
  computeFirst(torch, settings, []).finish?.();
  settings.inputSeed += 1;
  const step = STEPS.find((s) => s.id === 'mha-weights');
  const { results, finish } = computeFirst(torch, settings, needs(step, settings));
  assert.ok(Object.hasOwn(results, 'mha_weights') && Object.hasOwn(results, 'mha_scores'));
  for (const name of ['wrapper_out', 'all_context_vecs']) assert.ok(!Object.hasOwn(results, name), `${name} computed before the step was shown`);
  assert.deepEqual(results.wrapper_out.values, computeChapter(torch, settings).wrapper_out.values, 'a result read early computes the rest');
  assert.equal(finish(), finish(), 'finish() after the rest was read returns the same results');
  assert.ok(Object.hasOwn(finish(), 'all_context_vecs'));
});
