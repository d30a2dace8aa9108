// attention-lab/diagnose through its API: the parser on every form PyTorch prints and on pastes that are not
// printouts, the book's printouts (no change), one change of each kind made with the project's own API (named
// first), and an altered number (no exact answer; the nearest, with that cell).
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { diagnose, parsePrinted, DiagnoseError, warmUp } from '../../diagnose/index.js';
import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings } from '../../web/state.js';
import { STEPS } from '../../web/steps/index.js';
import { BOOK_PRINTS, BOOK_EMBEDDINGS } from '../../web/book.js';
import { shareScans, scanChunksFor } from '../../diagnose/search.js';

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
  // settings that read well but that a class refuses: the core's reason, as a DiagnoseError
  await assert.rejects(diagnose({ printed: 'tensor([1.])', settings: { d_out: 3, heads: 2 } }),
    (e) => e instanceof DiagnoseError && /do not run in the chapter’s classes: .*d_out must be divisible by num_heads/.test(e.message));
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
  // (CausalAttention under the same seed with its mask dropped can print the same: that takes two changes)
  assert.ok(answers.exact.every((a) => a.changes.length === 1));
});

test('the range of seeds shared with a helper thread (the page’s second worker) gives the same answers', async () => {
  // keys printed with seed 7321: found only in the range's scan, in a chunk from its top, which the helper takes
  const printed = computeChapter(torch, { ...bookSettings(), seed: 7321 }).keys.tensor.toString();
  const alone = await diagnose({ printed, step: 'keys-values' });
  assert.deepEqual(first(alone), [{ kind: 'seed', name: 'seed', to: 7321 }]);
  // the helper at the other end of a MessageChannel (its messages structured clones, as between workers), each
  // message to the searching side seen on the way
  const { port1, port2 } = new MessageChannel();
  const seen = [];
  const searching = {
    postMessage: (message) => port1.postMessage(message),
    set onmessage(handle) {
      port1.onmessage = (event) => {
        seen.push(event.data);
        handle(event);
      };
    },
  };
  try {
    scanChunksFor(port2);
    shareScans(searching);
    assert.deepEqual(await diagnose({ printed, step: 'keys-values' }), alone);
    const helped = seen.filter((m) => m.candidates);
    assert.ok(helped.length >= 2, `${helped.length} chunks scanned by the helper`);
    assert.ok(helped.some((m) => m.candidates.some((c) => c.value === 7321)), 'the helper found 7321');
    // a chunk the helper could not scan is scanned by the searching thread
    port2.onmessage = ({ data }) => {
      if (!data.job) return;
      port2.postMessage({ id: data.id, starting: data.chunks.length - 1 });
      port2.postMessage({ id: data.id, chunk: data.chunks.length - 1, error: 'the worker is gone' });
      port2.postMessage({ id: data.id, starting: 14 });
      port2.postMessage({ id: data.id, chunk: 14, error: 'the worker is gone' });
    };
    assert.deepEqual(await diagnose({ printed, step: 'keys-values' }), alone);
  } finally {
    shareScans(null);
    port1.close();
  }
});

test('warmUp runs every stage of a search without changing an answer, and ends at a stage once unwanted', async () => {
  const printed = computeChapter(torch, { ...bookSettings(), seed: 42 }).keys.tensor.toString();
  const before = await diagnose({ printed, step: 'keys-values' });
  // (asked once the core is loaded, then between the search's stages)
  let asked = 0;
  await warmUp({ settings: bookSettings(), stillWanted: () => ++asked > 0 });
  assert.ok(asked > 5, `asked ${asked} times: the warm-up's search stopped before its last stages`);
  assert.deepEqual(await diagnose({ printed, step: 'keys-values' }), before);
  asked = 0;
  await warmUp({ settings: 'd_out=4&heads=2', stillWanted: () => ++asked < 2 });
  assert.equal(asked, 2, 'a search waiting ends the warm-up at the first stage after it');
  // settings the classes cannot run: nothing thrown, left for diagnose() to report
  await warmUp({ settings: 'd_out=5&heads=2' });
  await assert.rejects(diagnose({ printed, settings: 'd_out=5&heads=2' }), DiagnoseError);
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

// CausalAttention's forward step by step on the batch, with `vary` changing one stage (the book's lines otherwise)
function causalForward(module, x, vary = {}) {
  const [q, k, v] = ['W_query', 'W_key', 'W_value'].map((w) => (vary.project ?? ((l) => l.forward(x)))(module[w]));
  const n = x.shape[1];
  const future = torch.triu(torch.ones(n, n), 1).bool();
  const scores = q.matmul((vary.scoresFrom === 'values' ? v : k).transpose(1, 2));
  const masked = (vary.mask ?? ((s) => s.maskedFill(future, -Infinity)))(scores, future);
  const d_k = k.shape[2];
  const weights = torch.softmax((vary.scale ?? ((s) => s.div(d_k ** 0.5)))(masked, d_k), vary.dim ?? -1);
  return (vary.after ? vary.after(weights, future) : weights).matmul(v);
}
const bookBatch = () => torch.stack([torch.tensor(BOOK_EMBEDDINGS), torch.tensor(BOOK_EMBEDDINGS)], 0);
const causalMistakes = {
  'scores-from-values': { scoresFrom: 'values' },
  'no-scaling': { scale: (s) => s },
  'divide-by-d_k': { scale: (s, d_k) => s.div(d_k) },
  'softmax-dim0': { dim: 0 },
  'masked-fill-copy': { mask: (s) => s },
  'fill-zero': { mask: (s, future) => s.maskedFill(future, 0) },
  'mask-after-softmax': { mask: (s) => s, after: (w, future) => w.maskedFill(future, 0) },
};
for (const [id, vary] of Object.entries(causalMistakes)) {
  test(`mistake in CausalAttention.forward: ${id} is named as that mistake in that class`, async () => {
    torch.manualSeed(123);
    const printed = causalForward(new torch.CausalAttention(3, 2, 6, 0.0), bookBatch(), vary).toString();
    const answers = await diagnose({ printed });
    assert.deepEqual(first(answers).map((c) => [c.kind, c.name]), [['mistake', `${id}-in-ca`]]);
    assert.equal(answers.exact[0].step, 'causal-attention');
  });
}

test('mistake in the wrapper: the scores from the values in every head, named for the wrapper', async () => {
  torch.manualSeed(123);
  const wrapper = new torch.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2);
  const printed = torch.cat(wrapper.heads.map((h) => causalForward(h, bookBatch(), { scoresFrom: 'values' })), -1).toString();
  const answers = await diagnose({ printed, step: 'wrapper' });
  assert.deepEqual(first(answers).map((c) => [c.kind, c.name]), [['mistake', 'scores-from-values-in-wrapper']]);
});

test('mistake in MultiHeadAttention: d_k instead of √d_k in every head, named for that class', async () => {
  torch.manualSeed(123);
  const mha = new torch.MultiHeadAttention(3, 2, 6, 0.0, 2);
  const x = bookBatch();
  const split = (t) => t.view(2, 6, 2, 1).transpose(1, 2);
  const [q, k, v] = [mha.W_query, mha.W_key, mha.W_value].map((l) => split(l.forward(x)));
  const future = torch.triu(torch.ones(6, 6), 1).bool();
  const weights = torch.softmax(q.matmul(k.transpose(2, 3)).maskedFill(future, -Infinity).div(1), -1);
  // with head_dim 1, d_k and √d_k are both 1: the mistake prints the book's numbers and nothing has changed
  const same = await diagnose({ printed: mha.out_proj.forward(weights.matmul(v).transpose(1, 2).contiguous().view(2, 6, 2)).toString(), step: 'mha-output' });
  assert.deepEqual(first(same), []);
  torch.manualSeed(123);
  const wide = new torch.MultiHeadAttention(3, 4, 6, 0.0, 2);
  const split2 = (t) => t.view(2, 6, 2, 2).transpose(1, 2);
  const [q2, k2, v2] = [wide.W_query, wide.W_key, wide.W_value].map((l) => split2(l.forward(x)));
  const w2 = torch.softmax(q2.matmul(k2.transpose(2, 3)).maskedFill(future, -Infinity).div(2), -1);
  const printed = wide.out_proj.forward(w2.matmul(v2).transpose(1, 2).contiguous().view(2, 6, 4)).toString();
  const answers = await diagnose({ printed, settings: { d_out: 4 }, step: 'mha-output' });
  assert.deepEqual(first(answers).map((c) => [c.kind, c.name]), [['mistake', 'divide-by-d_k-in-mha']]);
});

test('mistake: nn.Linear weight without .T is tried only where it can run (d_in = d_out)', async () => {
  const settings = { d_out: 3, heads: 1 };
  torch.manualSeed(123);
  const ca = new torch.CausalAttention(3, 3, 6, 0.0);
  const printed = causalForward(ca, bookBatch(), { project: (l) => bookBatch().matmul(l.weight) }).toString();
  const answers = await diagnose({ printed, settings, step: 'causal-attention' });
  assert.deepEqual(first(answers).map((c) => [c.kind, c.name]), [['mistake', 'weight-without-T-in-ca']]);
});

for (const [cls, part, step, make] of [
  ['CausalAttention', 'ca', 'causal-attention', (p) => new torch.CausalAttention(3, 2, 6, p)],
  ['MultiHeadAttentionWrapper', 'wrapper', 'wrapper', (p) => new torch.MultiHeadAttentionWrapper(3, 2, 6, p, 2)],
]) {
  test(`setting: ${cls} built with dropout and left in training mode is named as training`, async () => {
    torch.manualSeed(123);
    const printed = make(0.1).forward(bookBatch()).toString();
    const answers = await diagnose({ printed, step });
    assert.deepEqual(first(answers), [{ kind: 'setting', name: 'training', to: true }]);
    assert.match(answers.exact[0].changes[0].code.to, new RegExp(`${part} = ${cls}\\(…, 0\\.1, …\\)  # training mode`));
    assert.equal(answers.exact[0].label, `${part}(batch), dropout 0.1, training mode`);
  });
}

test("one head's columns of the wrapper's and MultiHeadAttention's output are compared on what they hold", async () => {
  const results = computeChapter(torch, bookSettings());
  const columns = (t, a, b) => torch.tensor(t.toArray().map((copy) => copy.map((row) => row.slice(a, b))));
  const wrapperHead = await diagnose({ printed: columns(results.wrapper_out.tensor, 2, 4).toString(), step: 'wrapper' });
  assert.deepEqual([first(wrapperHead), wrapperHead.exact[0].result, wrapperHead.exact[0].label], [[], 'wrapper_out', 'mha(batch)[..., 2:4]']);
  const oneCopy = await diagnose({ printed: columns(results.wrapper_out.tensor, 0, 2).at(1).toString(), step: 'wrapper' });
  assert.deepEqual([first(oneCopy), oneCopy.exact[0].label, oneCopy.exact[0].at], [[], 'mha(batch)[..., 0:2]', [0]]);
  const mhaHead = await diagnose({ printed: columns(results.mha_context_merged.tensor, 1, 2).toString(), step: 'mha-merge' });
  assert.ok(mhaHead.exact.some((a) => a.result === 'mha_context_merged' && a.label.endsWith('[..., 1:2]') && a.changes.length === 0));
  const altered = columns(results.wrapper_out.tensor, 2, 4).toString().replace(/(\d\.\d{4})/, (d) => (Number(d) + 0.0001).toFixed(4));
  const near = await diagnose({ printed: altered, step: 'wrapper' });
  assert.deepEqual([near.exact.length, near.nearest.label, near.nearest.firstDifference.index], [0, 'mha(batch)[..., 2:4]', [0, 0, 2]]);
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
