// The seed scan of attention-lab/diagnose (diagnose/seed-stream.js, diagnose/seed-scan.js): the JavaScript stream
// against torch-rng.md's vectors, each modelled result against the core's chapter for several seeds and settings
// (the models only reject seeds, so they must stay within the slack the scan allows), and the scan naming a
// seed of the range for results a seed reaches after its first draws.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SeedStream, linearAt, randAt, dropoutKeep, keeper } from '../../diagnose/seed-stream.js';
import { modelResults, modelsDrawsAt, scanSeeds, MODEL_SLACK } from '../../diagnose/seed-scan.js';
import { ChapterRun, SECTION_NAMES } from '../../diagnose/chapter-run.js';
import { drawsChanges, CLASS_MISTAKES, trainingTargets } from '../../diagnose/changes.js';
import { diagnose, parsePrinted } from '../../diagnose/index.js';
import { loadAttention } from '../../wasm/index.js';
import { computeChapter, SECTIONS } from '../../web/chapter/index.js';
import { bookSettings, zeros } from '../../web/state.js';

const torch = await loadAttention();
const words = (seed, count) => Array.from({ length: count }, (_, k) => new SeedStream().seed(seed).word(k));
const round7 = (values) => [...values].map((v) => Number(v.toPrecision(7)));

test('the stream gives torch-rng.md’s words, uniforms, nn.Linear and both builds’ masks', () => {
  assert.deepEqual(words(0, 3), [0x8c7f0aac, 0x97c4aa2f, 0xb716a675]);
  assert.deepEqual(words(42, 3), [0x5fe1dc66, 0xcbea3db3, 0xf362035c]);
  assert.deepEqual(words(2 ** 32 + 42, 3), words(42, 3)); // only the low 32 bits seed
  const s = new SeedStream();
  assert.deepEqual(round7(randAt(s.seed(123), 0, 4)), [0.2961119, 0.5165623, 0.2516707, 0.6885568]);
  const linear = linearAt(s.seed(0), 0, 4, 3, true);
  assert.deepEqual(round7(linear.weight.slice(0, 4)), [-0.00374341, 0.2682218, -0.4115226, -0.3679695]);
  assert.deepEqual(round7(linear.bias), [-0.4776742, -0.3311411, -0.2061116]);
  const rows = (mask) => Array.from({ length: 6 }, (_, r) => mask.slice(6 * r, 6 * r + 6).map(Number).join(''));
  assert.deepEqual(rows(dropoutKeep(s.seed(0), 0, 36, 0.5, 'default')), ['001000', '110111', '101111', '001010', '100001', '001110']);
  assert.deepEqual(rows(dropoutKeep(s.seed(0), 0, 36, 0.5, 'mkl')), ['100110', '011110', '011101', '000011', '111000', '010110']);
  assert.deepEqual(rows(dropoutKeep(s.seed(123), 0, 36, 0.5, 'default')), ['110110', '000101', '111101', '011001', '010101', '011110']);
  // a mask element read on its own (MKL's by skip-ahead) is the same element
  for (const profile of ['default', 'mkl']) {
    const whole = dropoutKeep(s.seed(7), 10, 1000, 0.2, profile);
    const one = keeper(s.seed(7), 10, 0.2, profile);
    assert.deepEqual([999, 500, 0, 801].map((i) => (one(i) ? 1 : 0)), [999, 500, 0, 801].map((i) => whole[i]));
  }
  // words past the first block (twisted again) and read out of order
  const late = new SeedStream().seed(5489);
  assert.deepEqual([late.word(2000), late.word(624), late.word(623), late.word(227)], [2710934973, 4178893912, 4020325887, 2397746050]);
});

// the chapter under other seeds, by the core, against the models: every modelled result the chapter shows
const SIZES = {
  book: bookSettings(),
  'qkv_bias, d_out 4, 2 heads, MKL masks, p 0.2': { ...bookSettings(), qkv_bias: true, d_out: 4, p: 0.2, profile: 'mkl' },
  'rand inputs, 3 heads of 2': { ...bookSettings(), inputs: 'rand', d_out: 6, heads: 3 },
  'randn inputs, 16 words × 16 dims': { ...bookSettings(), tokens: Array.from({ length: 16 }, (_, i) => `w${i}`), inputs: 'randn', embeddings: zeros(16, 16) },
};
// every modelled result against the core's, within the scan's slack; the number compared
function compareModels(models, results, what) {
  let compared = 0;
  for (const [name, modelled] of Object.entries(models)) {
    const result = results[name];
    if (!result?.tensor) continue;
    const core = [result.values].flat(Infinity);
    assert.equal(modelled.length, core.length, `${name}: size`);
    core.forEach((v, i) => {
      const ok = Object.is(v, modelled[i]) || Math.abs(v - modelled[i]) <= MODEL_SLACK.relative * Math.abs(v) + MODEL_SLACK.absolute;
      if (!ok) assert.fail(`${name}[${i}] ${what}: the core has ${v}, the model ${modelled[i]}`);
    });
    compared++;
  }
  return compared;
}

for (const [what, settings] of Object.entries(SIZES)) {
  test(`the models are the core’s results within the scan’s slack: ${what}`, () => {
    for (const seeds of [{ seed: 4321, seedV2: 7, inputSeed: 9001 }, { seed: 10_000, seedV2: 555, inputSeed: 1 }]) {
      const run = { ...settings, ...seeds };
      const chapter = computeChapter(torch, run);
      const compared = compareModels(modelResults(settings, chapter.inputs.values, seeds), chapter, `with ${JSON.stringify(seeds)}`);
      assert.ok(compared >= 60, `${compared} results compared`);
    }
  });

  // A draws change (the generator moved on after one manual_seed) read by the models as that seed point's draws
  // further on, as the search bounds its runs: at every point, by what follows it once more (the draws changes
  // paired) and, at the book's sizes, by each thing the chapter creates; every result against the core's run.
  test(`the models follow moved draws at every seed point: ${what}`, () => {
    const run = new ChapterRun(torch, settings);
    try {
      const changes = drawsChanges(run, settings, { ownOnly: what !== 'book' });
      assert.ok(changes.length >= 15, `${changes.length} draws changes`);
      for (const { draws } of changes) {
        const { point, count } = draws;
        assert.ok(modelsDrawsAt(point.name), `the models know ${point.name}`);
        const affected = run.affected([], point);
        const wanted = [...run.shownIn].filter(([, i]) => affected[i]).map(([name]) => name);
        const results = run.rerun(settings, { affected, direct: run.direct([], point), wanted, draws });
        const models = modelResults(settings, run.results.inputs.values, {}, undefined, { point: point.name, count });
        assert.ok(compareModels(models, results, `after ${count} more draws at ${point.name}`) >= 60);
      }
    } finally {
      run.dispose();
    }
  });
}

// The classes' forwards with each mistake of changes.js and in training mode (which the search compares in every
// run with the class, and bounds by these models), against the core's (changes.js's make), under other seeds;
// d_out = d_in = 3 lets nn.Linear's weight be used without .T.
// (a minified build renames the section functions: the seed points' names must not come from them)
test('the seed points are named by the sections’ written names, which are SECTIONS’ own', () => {
  assert.deepEqual(SECTION_NAMES, SECTIONS.map((section) => section.name));
});

test('the models of the classes with each mistake and in training mode are the core’s', () => {
  for (const settings of [...Object.values(SIZES), { ...bookSettings(), d_out: 3, heads: 1, p: 0.5 }]) {
    const seeded = { ...settings, seed: 4321, seedV2: 77, inputSeed: 5 };
    const run = new ChapterRun(torch, seeded);
    try {
      const made = [...CLASS_MISTAKES.map((d) => ({ ...d, name: `mistake:${d.id}` })), ...trainingTargets(seeded).map((d) => ({ ...d, name: `training:${d.id}` }))];
      const models = modelResults(seeded, run.results.inputs.values, {}, made.map((d) => d.name));
      let compared = 0;
      for (const d of made) {
        const core = d.make(torch, run.parts.get(d.part).part, run.results[d.input].tensor, seeded);
        const what = `${d.name} with d_out ${seeded.d_out}, ${seeded.heads} heads`;
        assert.equal(models[d.name] === null, core === null, `${what}: runs in both or in neither`);
        if (core === null) continue;
        compareModels({ [d.name]: models[d.name] }, { [d.name]: { tensor: core, values: core.toArray() } }, what);
        compared++;
      }
      assert.ok(compared >= 38, `${compared} compared`);
    } finally {
      run.dispose();
    }
  }
});

test('the scan names a seed of the range for the keys, 3.5.1’s weights and MultiHeadAttention’s output, and only it', () => {
  const book = bookSettings();
  // (over 0-2,000, every result of the chapter a target: the whole range for all of them would take seconds more)
  for (const [key, value, name, width] of [['seed', 1717, 'keys'], ['seedV2', 1765, 'causal_attn_weights'], ['seed', 1999, 'mha_out', 1]]) {
    const chapter = computeChapter(torch, { ...book, [key]: value });
    const base = computeChapter(torch, book);
    const targets = Object.keys(base).filter((n) => base[n].tensor).map((n) => ({ name: n, shape: base[n].shape, headWidth: n === name ? (width ?? null) : null }));
    const { candidates } = scanSeeds({
      settings: book,
      typedInputs: base.inputs.values,
      targets,
      paste: parsePrinted(chapter[name].tensor.toString()),
      keys: ['seed', 'seedV2'],
      range: 2000,
      skip: () => false,
    });
    // (CausalAttention after manual_seed(s) draws what SelfAttention_v2 draws after manual_seed(s): its weights
    // with the mask kept print as 3.5.1's, so seed = 1765 explains those as well)
    assert.deepEqual([...new Set(candidates.map((c) => c.value))], [value], name);
    assert.ok(candidates.some((c) => c.name === name && c.key === key), name);
  }
});

test('diagnose names a seed of the range for a later result; a paste nothing explains still ends in the nearest, a torch.Size nothing has in nothing', async () => {
  const book = bookSettings();
  const keys = computeChapter(torch, { ...book, seed: 4321 }).keys.tensor.toString();
  const { exact } = await diagnose({ printed: keys, step: 'keys-values' });
  assert.deepEqual(exact[0].changes.map(({ kind, name, to }) => ({ kind, name, to })), [{ kind: 'seed', name: 'seed', to: 4321 }]);
  assert.equal(exact[0].result, 'keys');
  const altered = keys.replace(/0\.\d{4}/, (n) => (Number(n) + 0.0003).toFixed(4));
  const none = await diagnose({ printed: altered, step: 'keys-values' });
  assert.deepEqual(none.exact, []);
  assert.ok(['keys', 'values'].includes(none.nearest.result));
  // a torch.Size no result has: no seed changes a shape, and nothing is scanned for it
  assert.deepEqual(await diagnose({ printed: 'torch.Size([7, 5, 3, 9])', step: 'keys-values' }), { exact: [], nearest: null });
});
