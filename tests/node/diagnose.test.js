// attention-lab/diagnose through its API: the parser on every form PyTorch prints and on pastes that are not
// printouts, the book's printouts (no change), one change of each kind made with the project's own API (named
// first), and an altered number (no exact answer; the nearest, with that cell).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { diagnose, parsePrinted, DiagnoseError } from '../../diagnose/index.js';
import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings } from '../../web/state.js';
import { STEPS } from '../../web/steps/index.js';
import { BOOK_PRINTS, BOOK_EMBEDDINGS } from '../../web/book.js';

const torch = await loadAttention();
const first = (answers) => answers.exact[0]?.changes.map(({ kind, name, to }) => ({ kind, name, to }));
const rejects = (printed, pattern) => assert.rejects(diagnose({ printed }), (e) => e instanceof DiagnoseError && pattern.test(e.message));

test('the parser reads every form PyTorch prints', () => {
  const parameter = parsePrinted('Parameter containing:\ntensor([[0.2961, 0.5166],\n        [0.2517, 0.6886]], requires_grad=True)');
  assert.deepEqual(parameter.shape, [2, 2]);
  assert.deepEqual(parameter.numbers.map((n) => n.text), ['0.2961', '0.5166', '0.2517', '0.6886']);
  const graded = parsePrinted('tensor([[[-0.47, 0.10]],\n\n        [[-0.47, 0.10]]], grad_fn=<ViewBackward0>)');
  assert.deepEqual(graded.shape, [2, 1, 2]);
  assert.equal(graded.numbers[0].decimals, 2);
  const zeroD = parsePrinted('tensor(0.7600)');
  assert.deepEqual([zeroD.shape, zeroD.numbers[0].value], [[], 0.76]);
  const scientific = parsePrinted('tensor([1.0000e-08, 2.5000e+03])');
  assert.deepEqual(scientific.numbers.map((n) => [n.value, n.decimals, n.scientific]), [[1e-8, 4, true], [2500, 4, true]]);
  const masked = parsePrinted('tensor([[0.1, -inf],\n        [nan, 2.]])');
  assert.deepEqual(masked.numbers.map((n) => n.value), [0.1, -Infinity, NaN, 2]);
  assert.deepEqual(parsePrinted('torch.Size([2, 6, 4])'), { kind: 'size', shape: [2, 6, 4] });
  assert.deepEqual(parsePrinted('>>> print(x)\ntensor([1., 2.])\n>>>').shape, [2]);
});

test('garbage, empty, huge, ragged and shortened pastes get a clear message', async () => {
  await rejects('', /Nothing was pasted/);
  await rejects('   \n ', /Nothing was pasted/);
  await rejects('my numbers are different', /not a tensor as PyTorch prints it/);
  await rejects('tensor([[0.1, 0.2],\n        [0.3]])', /ragged: row 2 has 1 number where the one before has 2 numbers/);
  await rejects('tensor([[0.1, 0.2],\n        [0.3, 0.4]', /ends before its brackets close/);
  await rejects('tensor([0.1, abc])', /“abc” is not a number/);
  await rejects('tensor([0.1, 0.2, ..., 0.9])', /shortened with “...”/);
  await rejects(`tensor([${'0.1234, '.repeat(200_000)}0.1])`, /characters long/);
  await rejects(`tensor([${'1., '.repeat(120_000)}1.])`, /more than 100,000 numbers/);
  await rejects('tensor([])', /empty/);
  await assert.rejects(diagnose({ printed: 42 }), DiagnoseError);
  await assert.rejects(diagnose({ printed: 'tensor([1.])', step: 'nope' }), /There is no step “nope”/);
  await assert.rejects(diagnose({ printed: 'tensor([1.])', settings: 'd_out=abc' }), /d_out \(abc\)/);
  await assert.rejects(diagnose({ printed: 'tensor([1.])', settings: { heads: 0 } }), /Heads must be a whole number from 1 to 16/);
  await assert.rejects(diagnose({ printed: 'tensor([1.])', settings: { seeed: 5 } }), /Unknown setting: seeed/);
});

test("each of the book's printouts is what its step prints, with no change", async () => {
  for (const step of STEPS) {
    for (const name of step.show.filter((n) => BOOK_PRINTS[n] && !(step.printsOneOf ?? []).includes(n))) {
      const { exact } = await diagnose({ printed: BOOK_PRINTS[name], step: step.id });
      assert.ok(exact.length > 0, `${name} on ${step.id}`);
      assert.deepEqual(exact[0].changes, [], `${name} on ${step.id}`);
      assert.ok(exact.some((a) => a.result === name || STEPS.find((s) => s.id === a.step).show.includes(name)), name);
      assert.deepEqual(exact[0].cells.equal, exact[0].cells.total);
    }
  }
});

test('settings come as a link’s parameters or as an object', async () => {
  const results = computeChapter(torch, { ...bookSettings(), d_out: 4 });
  const printed = results.sa_v1_out.tensor.toString();
  for (const settings of ['d_out=4', '#step=self-attention-v1&d_out=4', { d_out: 4 }]) {
    const { exact } = await diagnose({ printed, settings, step: 'self-attention-v1' });
    assert.deepEqual(first({ exact }), [], JSON.stringify(settings));
  }
});

test('seed: SelfAttention_v2 seeded with 2024 is named as that seed', async () => {
  torch.manualSeed(2024);
  const printed = new torch.SelfAttention_v2(3, 2).forward(torch.tensor(BOOK_EMBEDDINGS)).toString();
  const answers = await diagnose({ printed });
  assert.deepEqual(first(answers), [{ kind: 'seed', name: 'seedV2', to: 2024 }]);
  assert.equal(answers.exact[0].result, 'sa_v2_out');
  assert.equal(answers.exact[0].step, 'self-attention-v2');
  assert.match(answers.exact[0].changes[0].text, /torch\.manual_seed\(2024\).*the book uses 789/);
  assert.deepEqual(answers.exact[0].changes[0].code, { from: 'torch.manual_seed(789)', to: 'torch.manual_seed(2024)' });
});

test('profile: the dropout mask of an Intel MKL build is named as that build', async () => {
  const results = computeChapter(torch, { ...bookSettings(), profile: 'mkl' });
  const answers = await diagnose({ printed: results.dropout_weights.tensor.toString(), step: 'dropout-weights' });
  assert.deepEqual(first(answers), [{ kind: 'profile', name: 'profile', to: 'mkl' }]);
  assert.match(answers.exact[0].changes[0].text, /Intel MKL/);
});

test('draws: SelfAttention_v1 created twice after the seed is named as a cell run twice', async () => {
  torch.manualSeed(123);
  new torch.SelfAttention_v1(3, 2).delete();
  const printed = new torch.SelfAttention_v1(3, 2).forward(torch.tensor(BOOK_EMBEDDINGS)).toString();
  const answers = await diagnose({ printed, step: 'self-attention-v1' });
  assert.deepEqual(first(answers), [{ kind: 'draws', name: 'seed', to: 18 }]);
  assert.match(answers.exact[0].changes[0].text, /drawn 18 numbers after `torch\.manual_seed\(123\)`/);
});

test('mistake: the scores from the values are named as that mistake, on every step that can show them', async () => {
  const results = computeChapter(torch, bookSettings());
  const answers = await diagnose({ printed: results.mistake_scores_from_values.tensor.toString() });
  assert.deepEqual(first(answers), [{ kind: 'mistake', name: 'scores-from-values', to: 'query_2 @ values.T' }]);
  assert.match(answers.exact[0].changes[0].text, /the scores used the values instead of the keys/);
});

test('setting: MultiHeadAttention with d_out 4 is named as that setting, from its torch.Size alone too', async () => {
  const results = computeChapter(torch, { ...bookSettings(), d_out: 4 });
  const answers = await diagnose({ printed: results.mha_out.tensor.toString(), step: 'mha-output' });
  assert.deepEqual(first(answers), [{ kind: 'setting', name: 'd_out', to: 4 }]);
  const sized = await diagnose({ printed: 'torch.Size([2, 6, 4])', step: 'mha-output' });
  assert.deepEqual(first(sized), [{ kind: 'setting', name: 'd_out', to: 4 }]);
});

test('one copy of the batch, one head and one row are compared on what they hold', async () => {
  const results = computeChapter(torch, bookSettings());
  const copy = await diagnose({ printed: results.ca_context_vecs.tensor.at(1).toString(), step: 'causal-attention' });
  assert.deepEqual([first(copy), copy.exact[0].at], [[], [0]]); // both copies are equal: the first is named
  const head = await diagnose({ printed: results.mha_weights.tensor.at(0).at(1).toString(), step: 'mha-weights' });
  assert.deepEqual([first(head), head.exact[0].result, head.exact[0].at], [[], 'mha_weights', [0, 1]]);
  const row = await diagnose({ printed: results.attn_weights.tensor.at(3).toString(), step: 'all-weights' });
  assert.deepEqual([first(row), row.exact[0].at], [[], [3]]);
});

test('one altered number: no exact answer, and the nearest result names that cell', async () => {
  const printed = BOOK_PRINTS.attn_weights_2.replace('0.2379', '0.2380');
  const { exact, nearest } = await diagnose({ printed, step: 'softmax-torch' });
  assert.deepEqual(exact, []);
  assert.equal(nearest.result, 'attn_weights_2');
  assert.deepEqual(nearest.changes, []);
  assert.deepEqual(nearest.cells, { equal: 5, total: 6 });
  assert.deepEqual([nearest.firstDifference.index, nearest.firstDifference.yours], [[1], '0.2380']);
});

test("the README's diagnose example prints the README's output", async () => {
  const { readFileSync, mkdirSync, writeFileSync } = await import('node:fs');
  const { execFileSync } = await import('node:child_process');
  const root = new URL('../../', import.meta.url).pathname;
  const block = (marker) => readFileSync(`${root}README.md`, 'utf8').match(new RegExp(`<!-- ${marker} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``))[1];
  // inside the package, so that 'attention-lab/diagnose' resolves through package.json "exports"
  mkdirSync(`${root}build/readme`, { recursive: true });
  writeFileSync(`${root}build/readme/diagnose-example.mjs`, block('diagnose-example'));
  assert.equal(execFileSync(process.execPath, [`${root}build/readme/diagnose-example.mjs`], { encoding: 'utf8' }), block('diagnose-output'));
});
