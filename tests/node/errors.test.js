// Every misuse the API contract lists throws AttentionError (an Error named 'AttentionError') whose message
// names the operation, the argument, what was expected and what was received; never an abort. After each
// error the same module instance must still compute the chapter's numbers, and the wasm allocator must be
// back where it was (nothing leaked on the error path).
//
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';

import { Worker } from 'node:worker_threads';

import { loadAttention, AttentionError } from '../../wasm/index.js';
import BOOK from '../../book/chapter3.json' with { type: 'json' };

const BOOK_ROWS = BOOK.embeddings;
const SA_V1_OUT =
  'tensor([[0.2996, 0.8053],\n' +
  '        [0.3061, 0.8210],\n' +
  '        [0.3058, 0.8203],\n' +
  '        [0.2948, 0.7939],\n' +
  '        [0.2927, 0.7891],\n' +
  '        [0.2990, 0.8040]], grad_fn=<MmBackward0>)';
const MHA_ROW0 = [0.319, 0.4858]; // MultiHeadAttention(3, 2, 6, 0.0, 2), seed 123: first printed row

// Runs in a worker: [2^14, 1] + [1, 2^14] is one 1 GiB result, but broadcasting needs more than the heap.
const OOM_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { loadAttention, AttentionError } = await import(workerData.url);
  const torch = await loadAttention({ flavour: workerData.flavour });
  const allocatedBefore = torch.memoryUsage().allocatedBytes;
  const result = { threw: false };
  try {
    torch.ones(2 ** 14, 1).add(torch.ones(1, 2 ** 14));
  } catch (e) {
    Object.assign(result, { threw: true, isAttentionError: e instanceof AttentionError, name: e.name, message: e.message });
  }
  result.allocatedAfter = torch.memoryUsage().allocatedBytes;
  result.allocatedBefore = allocatedBefore;
  result.heapBytes = torch.memoryUsage().heapBytes;
  result.dot = torch.dot(torch.tensor([0.4, 0.1, 0.8]), torch.tensor([0.5, 0.8, 0.6])).toString();
  torch.manualSeed(123);
  result.selfAttention = new torch.SelfAttention_v1(3, 2).forward(torch.tensor(workerData.rows)).toString();
  parentPort.postMessage(result);
})();
`;

// Asserts an AttentionError whose message matches every pattern given.
function throwsAttention(fn, ...patterns) {
  let caught = null;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== null, 'expected an AttentionError, nothing was thrown');
  assert.ok(caught instanceof AttentionError, `expected an AttentionError, got ${caught?.name}: ${caught?.message}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, 'AttentionError');
  for (const p of patterns) assert.match(caught.message, p);
  return caught;
}

for (const flavour of ['simd', 'scalar']) {
  describe(`errors (${flavour})`, () => {
    let torch;
    before(async () => {
      torch = await loadAttention({ flavour });
    });
    const inputs = () => torch.tensor(BOOK_ROWS);
    const batch = () => torch.stack([inputs(), inputs()]);

    // The instance still works: an op, a module built from the generator, and its printed text.
    function stillWorks() {
      assert.equal(torch.dot(torch.tensor([0.4, 0.1, 0.8]), torch.tensor([0.5, 0.8, 0.6])).toString(), 'tensor(0.7600)');
      torch.manualSeed(123);
      assert.equal(new torch.SelfAttention_v1(3, 2).forward(inputs()).toString(), SA_V1_OUT);
    }

    // One misuse: `setup` builds what the call needs (outside the leak check), `run` misbehaves.
    function misuse(name, { setup = () => ({}), run, message }) {
      test(name, () => {
        const ctx = setup();
        const before = torch.memoryUsage().allocatedBytes;
        throwsAttention(() => run(ctx), ...[message].flat());
        assert.equal(torch.memoryUsage().allocatedBytes, before, 'wasm bytes allocated after the error');
        stillWorks();
      });
    }

    // ------------------------------------------------------------ the contract's own example
    misuse('matmul: inner dims differ', {
      run: () => torch.matmul(torch.ones(6, 3), torch.ones(2, 3)),
      message: /^matmul: shapes \[6,3\] and \[2,3\] cannot be multiplied \(3 != 2\)$/,
    });
    misuse('matmul (method): batched inner dims differ', {
      run: () => torch.ones(2, 2, 3).matmul(torch.ones(3, 2, 2)),
      message: /^matmul: shapes \[2,2,3\] and \[3,2,2\] cannot be multiplied \(3 != 2\)/,
    });
    misuse('matmul: 1-D by 2-D with the wrong length', {
      run: () => torch.ones(4).matmul(torch.ones(3, 2)),
      message: [/^matmul: /, /\[4\]/, /\[3,2\]/, /4 != 3/],
    });
    misuse('matmul: a 0-d operand', {
      run: () => torch.matmul(torch.tensor(1), torch.ones(2, 2)),
      message: [/^matmul: /, /at least 1-D/, /0-D/],
    });
    misuse('matmul: other is not a tensor', {
      run: () => torch.ones(2, 2).matmul([[1, 2]]),
      message: /^matmul: other must be a tensor, got an array$/,
    });
    misuse('dot: lengths differ', {
      run: () => torch.dot(torch.ones(3), torch.ones(4)),
      message: [/^dot: /, /\[3\] and \[4\]/, /3 != 4/],
    });
    misuse('dot: 2-D operands', {
      run: () => torch.dot(torch.ones(2, 3), torch.ones(2, 3)),
      message: [/^dot: /, /1-D/, /\[2,3\]/],
    });

    // ------------------------------------------------------------ modules: shapes, ranks, configuration
    misuse('SelfAttention_v1.forward: wrong number of features', {
      setup: () => ({ sa: new torch.SelfAttention_v1(3, 2) }),
      run: ({ sa }) => sa.forward(torch.ones(6, 4)),
      message: [/^SelfAttention_v1: /, /\[6,4\]/, /4 features/, /d_in = 3/],
    });
    misuse('SelfAttention_v2.forward: rank 4', {
      setup: () => ({ sa: new torch.SelfAttention_v2(3, 2) }),
      run: ({ sa }) => sa.forward(torch.ones(1, 1, 6, 3)),
      message: [/^SelfAttention_v2: /, /1 to 3 dims/, /\[1,1,6,3\]/],
    });
    misuse('CausalAttention.forward: rank 1', {
      setup: () => ({ ca: new torch.CausalAttention(3, 2, 6, 0) }),
      run: ({ ca }) => ca.forward(torch.ones(3)),
      message: [/^CausalAttention: /, /2 to 3 dims/, /shape \[3\]/],
    });
    misuse('CausalAttention.forward: num_tokens > context_length', {
      setup: () => ({ ca: new torch.CausalAttention(3, 2, 4, 0) }),
      run: ({ ca }) => ca.forward(batch()),
      message: /^CausalAttention: the input has 6 tokens, more than context_length = 4$/,
    });
    misuse('MultiHeadAttention.forward: num_tokens > context_length', {
      setup: () => ({ mha: new torch.MultiHeadAttention(3, 2, 5, 0, 2) }),
      run: ({ mha }) => mha.forward(batch()),
      message: /^MultiHeadAttention: the input has 6 tokens, more than context_length = 5$/,
    });
    misuse('MultiHeadAttentionWrapper.forward: num_tokens > context_length', {
      setup: () => ({ w: new torch.MultiHeadAttentionWrapper(3, 2, 4, 0, 2) }),
      run: ({ w }) => w.forward(batch()),
      message: [/the input has 6 tokens, more than context_length = 4/],
    });
    misuse('MultiHeadAttention.forward: wrong d_in', {
      setup: () => ({ mha: new torch.MultiHeadAttention(3, 2, 6, 0, 2) }),
      run: ({ mha }) => mha.forward(torch.ones(2, 6, 5)),
      message: [/^MultiHeadAttention: /, /\[2,6,5\]/, /d_in = 3/],
    });
    misuse('forward: x is not a tensor', {
      setup: () => ({ ca: new torch.CausalAttention(3, 2, 6, 0) }),
      run: ({ ca }) => ca.forward(BOOK_ROWS),
      message: /^CausalAttention\.forward: x must be a tensor, got an array$/,
    });
    misuse('Linear.forward: wrong in_features', {
      setup: () => ({ linear: new torch.nn.Linear(3, 2) }),
      run: ({ linear }) => linear.forward(torch.ones(2, 4)),
      message: [/^Linear: /, /\[2,4\]/, /in_features = 3/],
    });
    misuse('MultiHeadAttention: d_out % num_heads != 0', {
      run: () => new torch.MultiHeadAttention(3, 5, 6, 0, 2),
      message: /^MultiHeadAttention: d_out must be divisible by num_heads, got d_out = 5 and num_heads = 2$/,
    });
    misuse('MultiHeadAttention: num_heads 0', {
      run: () => new torch.MultiHeadAttention(3, 2, 6, 0, 0),
      message: [/^MultiHeadAttention: /, /num_heads/, /positive/, /got 0/],
    });
    misuse('MultiHeadAttentionWrapper: num_heads is not a number', {
      run: () => new torch.MultiHeadAttentionWrapper(3, 2, 6, 0, '2'),
      message: [/^MultiHeadAttentionWrapper: num_heads must be /, /got '2'/],
    });
    misuse('CausalAttention: context_length 0', {
      run: () => new torch.CausalAttention(3, 2, 0, 0),
      message: [/^CausalAttention: context_length must be a positive integer, got 0$/],
    });
    misuse('SelfAttention_v1: d_in 0', {
      run: () => new torch.SelfAttention_v1(0, 2),
      message: [/^SelfAttention_v1: d_in must be a positive integer, got 0$/],
    });

    // ------------------------------------------------------------ parameter assignment: a shape check, then a copy
    misuse('assigning a weight of the wrong shape', {
      setup: () => ({ sa: new torch.SelfAttention_v1(3, 2) }),
      run: ({ sa }) => {
        sa.W_query = torch.ones(2, 3);
      },
      message: /^parameter 'W_query': expected shape \[3,2\], got \[2,3\]$/,
    });
    misuse("assigning a wrapper head's weight of the wrong shape", {
      setup: () => ({ w: new torch.MultiHeadAttentionWrapper(3, 2, 6, 0, 2) }),
      run: ({ w }) => {
        w.heads[1].W_key.weight = torch.ones(3, 2);
      },
      message: /^parameter 'heads\.1\.W_key\.weight': expected shape \[2,3\], got \[3,2\]$/,
    });
    misuse('assigning something that is not a tensor', {
      setup: () => ({ mha: new torch.MultiHeadAttention(3, 2, 6, 0, 2) }),
      run: ({ mha }) => {
        mha.out_proj.bias = [1, 2];
      },
      message: [/^out_proj\.bias =: the value must be a tensor, got an array$/],
    });
    test('a refused assignment leaves the parameter and the module as they were', () => {
      torch.manualSeed(123);
      const mha = new torch.MultiHeadAttention(3, 2, 6, 0.0, 2);
      const weight = mha.W_value.weight.toString();
      const out = mha.forward(batch()).toString();
      throwsAttention(() => {
        mha.W_value.weight = torch.ones(3, 2);
      }, /expected shape \[2,3\], got \[3,2\]/);
      assert.equal(mha.W_value.weight.toString(), weight);
      assert.equal(mha.forward(batch()).toString(), out);
      assert.deepEqual(Array.from(mha.forward(batch()).at(0).at(0).data, (v) => Number(v.toFixed(4))), MHA_ROW0);
    });
    test('a failing forward leaves the module usable', () => {
      torch.manualSeed(123);
      const sa = new torch.SelfAttention_v1(3, 2);
      throwsAttention(() => sa.forward(torch.ones(6, 2)), /d_in = 3/);
      assert.equal(sa.forward(inputs()).toString(), SA_V1_OUT);
    });

    // ------------------------------------------------------------ dim out of range
    misuse('softmax: dim out of range', {
      run: () => torch.softmax(torch.ones(2, 3), 5),
      message: /^softmax: dim 5 is out of range for a 2-D tensor \(expected a dim in \[-2, 1\]\)$/,
    });
    misuse('softmax: dim missing', {
      run: () => torch.ones(2, 3).softmax(),
      message: /^softmax: dim must be an integer, got undefined$/,
    });
    misuse('sum: dim out of range', {
      run: () => torch.ones(2, 3).sum(-3, true),
      message: [/^sum: dim -3 is out of range/, /\[-2, 1\]/],
    });
    misuse('transpose: dim out of range', {
      run: () => torch.ones(2, 3).transpose(0, 2),
      message: [/^transpose: dim 2 is out of range/, /\[2,3\]/, /\[-2, 1\]/],
    });
    misuse('cat: dim out of range', {
      run: () => torch.cat([torch.ones(2, 2), torch.ones(2, 2)], 2),
      message: [/^cat: dim 2 is out of range/, /\[-2, 1\]/],
    });
    misuse('stack: dim out of range', {
      run: () => torch.stack([torch.ones(2, 2), torch.ones(2, 2)], -4),
      message: [/^stack: dim -4 is out of range/, /\[-3, 2\]/],
    });
    misuse('size: dim out of range', {
      run: () => torch.ones(2, 3).size(2),
      message: [/^size: dim 2 is out of range/, /\[-2, 1\]/],
    });
    misuse('slice: dim out of range', {
      run: () => torch.ones(2, 3).slice(2, 0, 1),
      message: [/^slice: dim 2 is out of range/],
    });
    misuse('at: index out of range', {
      run: () => inputs().at(6),
      message: [/index 6 is out of range for dim 0 of size 6/],
    });
    misuse('set: index out of range', {
      run: () => torch.ones(2, 3).set([0, 5], 1),
      message: [/^set: /, /index 5/, /dim 1 of size 3/],
    });
    misuse('set: a value of the wrong shape', {
      run: () => torch.ones(2, 3).set(0, torch.ones(4)),
      message: [/\[3\] and \[4\]/],
    });

    // ------------------------------------------------------------ element-wise shapes and in-place safety
    misuse('add: shapes that do not broadcast', {
      run: () => torch.ones(2, 3).add(torch.ones(4)),
      message: /^add: shapes \[2,3\] and \[4\] cannot be broadcast together \(size 3 != 4 at dim 1\)$/,
    });
    misuse('mul: a string operand', {
      run: () => torch.ones(2).mul('2'),
      message: /^mul: the operand must be a tensor or a number, got '2'$/,
    });
    misuse('maskedFill: a mask that does not broadcast', {
      run: () => torch.ones(2, 3).maskedFill(torch.ones(3, 2).bool(), 0),
      message: [/^masked_?[fF]ill/, /\[3,2\]/, /\[2,3\]/],
    });
    test('maskedFill: a float mask counts nonzero as true (the API accepts bool or float masks)', () => {
      const mask = torch.tensor([[0, 2, 0], [-1, 0, 0.5]]);
      assert.deepEqual(torch.ones(2, 3).maskedFill(mask, 7).toArray(), [[1, 7, 1], [7, 1, 7]]);
    });
    misuse('maskedFill: a value that is not a number', {
      run: () => torch.ones(2, 3).maskedFill(torch.ones(2, 3).bool(), '-inf'),
      message: /^maskedFill: the value must be a number, got '-inf'$/,
    });
    misuse('view: a size that does not match', {
      run: () => torch.ones(2, 3).view(4),
      message: /^view: shape \[4\] is invalid for input of shape \[2,3\] \(6 elements\)$/,
    });
    misuse('view: a non-contiguous tensor', {
      run: () => torch.ones(2, 3).T.view(6),
      message: [/^view: /, /not contiguous/, /\[3,2\]/, /\[6\]/],
    });
    misuse('reshape: two -1', {
      run: () => torch.ones(2, 3).reshape(-1, -1),
      message: [/^reshape: only one dimension can be inferred/, /\[-1,-1\]/],
    });
    misuse('triu: a 1-D tensor', {
      run: () => torch.triu(torch.ones(3)),
      message: /^triu: expected a tensor with at least 2 dims, got shape \[3\]$/,
    });
    misuse('stack: shapes differ', {
      run: () => torch.stack([torch.ones(2), torch.ones(3)]),
      message: /^stack: tensor 1 has shape \[3\], expected \[2\]$/,
    });
    misuse('cat: shapes differ off the cat dim', {
      run: () => torch.cat([torch.ones(2, 2), torch.ones(3, 3)]),
      message: [/^cat: tensor 1 has shape \[3,3\]/, /\[2,2\]/],
    });
    misuse('stack: an empty list', {
      run: () => torch.stack([]),
      message: /^stack: expected a non-empty array of tensors/,
    });
    misuse('item: more than one element', {
      run: () => torch.ones(2, 3).item(),
      message: /^item: only a tensor with one element can be converted to a number, got shape \[2,3\]$/,
    });
    misuse('iterating a 0-d tensor', {
      run: () => [...torch.tensor(1)],
      message: /^iteration: a 0-d tensor cannot be iterated$/,
    });
    test('a refused add_ leaves the tensor unchanged', () => {
      const x = torch.tensor([[1, 2, 3], [4, 5, 6]]);
      throwsAttention(() => x.add_(torch.ones(4)), /^add: /);
      assert.deepEqual(x.toArray(), [[1, 2, 3], [4, 5, 6]]);
      x.add_(1);
      assert.deepEqual(x.toArray(), [[2, 3, 4], [5, 6, 7]]);
    });

    // ------------------------------------------------------------ dropout probability
    for (const p of [1.5, -0.1, 2]) {
      misuse(`Dropout(${p})`, {
        run: () => new torch.nn.Dropout(p),
        message: [/^Dropout: dropout probability must be in \[0, 1\], got /, new RegExp(`got ${String(p).replace('.', '\\.')}`)],
      });
    }
    misuse('Dropout(NaN)', {
      run: () => new torch.nn.Dropout(NaN),
      message: /^Dropout: dropout must be a number in \[0, 1\], got NaN$/,
    });
    misuse('CausalAttention with dropout 1.5', {
      run: () => new torch.CausalAttention(3, 2, 6, 1.5),
      message: [/^CausalAttention: dropout probability must be in \[0, 1\], got 1\.5/],
    });
    misuse('MultiHeadAttention with dropout -0.5', {
      run: () => new torch.MultiHeadAttention(3, 2, 6, -0.5, 2),
      message: [/^MultiHeadAttention: dropout probability must be in \[0, 1\], got -0\.5/],
    });
    misuse("MultiHeadAttentionWrapper with dropout '0.5'", {
      run: () => new torch.MultiHeadAttentionWrapper(3, 2, 6, '0.5', 2),
      message: /^MultiHeadAttentionWrapper: dropout must be a number in \[0, 1\], got '0\.5'$/,
    });

    // ------------------------------------------------------------ sizes that are not non-negative integers
    for (const [label, make, op, position, shown] of [
      ["zeros('a')", () => torch.zeros('a'), 'zeros', 0, "'a'"],
      ['ones(NaN)', () => torch.ones(2, NaN), 'ones', 1, 'NaN'],
      ['rand(2.5)', () => torch.rand(2.5), 'rand', 0, '2\\.5'],
      ['randn(-1)', () => torch.randn(-1), 'randn', 0, '-1'],
      ['empty(undefined)', () => torch.empty(undefined), 'empty', 0, 'undefined'],
      ['zeros([2, Infinity])', () => torch.zeros([2, Infinity]), 'zeros', 1, 'Infinity'],
    ]) {
      misuse(`size: ${label}`, {
        run: make,
        message: new RegExp(`^${op}: size at position ${position} must be a non-negative integer, got ${shown}$`),
      });
    }
    misuse('Linear with inFeatures NaN', {
      run: () => new torch.nn.Linear(NaN, 2),
      message: [/^Linear: /, /[iI]n_?[fF]eatures/, /got NaN/],
    });
    misuse("CausalAttention with context_length '6'", {
      run: () => new torch.CausalAttention(3, 2, '6', 0),
      message: [/^CausalAttention: context_length must be a non-negative integer, got '6'$/],
    });
    misuse('triu with diagonal 0.5', {
      run: () => torch.triu(torch.ones(2, 2), 0.5),
      message: /^triu: diagonal must be an integer, got 0\.5$/,
    });

    // ------------------------------------------------------------ nested arrays
    misuse('tensor: ragged rows', {
      run: () => torch.tensor([[1, 2], [3]]),
      message: /^tensor: nested arrays are ragged: expected length 2 at \[1\], got length 1$/,
    });
    misuse('tensor: a number where a row should be', {
      run: () => torch.tensor([[1, 2], 3]),
      message: /^tensor: nested arrays are ragged: expected length 2 at \[1\], got 3$/,
    });
    misuse('tensor: ragged deeper down', {
      run: () => torch.tensor([[[1], [2]], [[3], [4, 5]]]),
      message: /^tensor: nested arrays are ragged: expected length 1 at \[1\]\[1\], got length 2$/,
    });
    misuse('tensor: a string element', {
      run: () => torch.tensor([[1, 2], [3, 'a']]),
      message: /^tensor: element \[1\]\[1\] must be a number or a boolean, got 'a'$/,
    });
    misuse('tensor: numbers mixed with booleans', {
      run: () => torch.tensor([true, 1]),
      message: /^tensor: numbers and booleans cannot be mixed$/,
    });

    // ------------------------------------------------------------ generator and printing options
    misuse('manualSeed: above 2^64 - 1', {
      run: () => torch.manualSeed(2n ** 64n),
      message: /^manualSeed: seed must be in \[-2\^63, 2\^64 - 1\], got 18446744073709551616$/,
    });
    misuse('manualSeed: below -2^63', {
      run: () => torch.manualSeed(-(2n ** 63n) - 1n),
      message: /^manualSeed: seed must be in \[-2\^63, 2\^64 - 1\], got -9223372036854775809$/,
    });
    misuse('manualSeed: a string', {
      run: () => torch.manualSeed('123'),
      message: /^manualSeed: expected an integer or a BigInt seed, got string$/,
    });
    for (const bad of [1.5, NaN]) {
      misuse(`manualSeed(${bad})`, {
        run: () => torch.manualSeed(bad),
        message: [/^manualSeed: /, new RegExp(`got ${String(bad).replace('.', '\\.')}`)],
      });
    }
    misuse("setRngProfile('intel')", {
      run: () => torch.setRngProfile('intel'),
      message: /^setRngProfile: profile must be 'default' or 'mkl', got 'intel'$/,
    });
    misuse('setRngProfile(3)', {
      run: () => torch.setRngProfile(3),
      message: /^setRngProfile: profile must be 'default' or 'mkl', got 3$/,
    });
    misuse('setPrintOptions(3)', {
      run: () => torch.setPrintOptions(3),
      message: /^setPrintOptions: expected an options object, got 3$/,
    });
    misuse("setPrintOptions({ precision: 'x' })", {
      run: () => torch.setPrintOptions({ precision: 'x' }),
      message: /^setPrintOptions: precision must be a number, got string$/,
    });
    misuse('setPrintOptions({ precision: 1.5 })', {
      run: () => torch.setPrintOptions({ precision: 1.5 }),
      message: [/^setPrintOptions: /, /precision/, /1\.5/],
    });
    test('the generator is untouched by a refused seed', () => {
      torch.manualSeed(42);
      throwsAttention(() => torch.manualSeed(2n ** 64n), /^manualSeed/);
      assert.equal(torch.initialSeed(), 42n);
      assert.equal(torch.getRngProfile(), 'default');
      throwsAttention(() => torch.setRngProfile('intel'));
      assert.equal(torch.getRngProfile(), 'default');
    });
    test('loadAttention with an unknown flavour rejects with an AttentionError', async () => {
      await assert.rejects(loadAttention({ flavour: 'avx' }), (e) => {
        assert.ok(e instanceof AttentionError);
        assert.match(e.message, /^loadAttention: flavour must be 'simd' or 'scalar', got 'avx'$/);
        return true;
      });
    });

    // ------------------------------------------------------------ memory
    misuse('zeros over the 1 GiB tensor limit', {
      run: () => torch.zeros(2 ** 15, 2 ** 15),
      message: /^zeros: shape \[32768,32768\] is too large: one tensor may hold at most 268435456 elements \(1024 MiB\)$/,
    });
    misuse('rand over the tensor limit (nothing drawn)', {
      setup: () => torch.manualSeed(5),
      run: () => torch.rand(2 ** 29),
      message: [/^rand: shape \[536870912\] is too large/, /268435456 elements/],
    });
    test('a refused rand draws nothing', () => {
      torch.manualSeed(5);
      throwsAttention(() => torch.randn(2 ** 20, 2 ** 10), /too large/);
      assert.equal(torch.rngDraws(), 0);
    });
    misuse('matmul whose result is over the tensor limit', {
      run: () => torch.ones(2 ** 15, 1).matmul(torch.ones(1, 2 ** 15)),
      message: [/shape \[32768,32768\] is too large/, /268435456 elements/],
    });
    misuse('matmul over the tensor limit names the operation', {
      run: () => torch.ones(2 ** 15, 1).matmul(torch.ones(1, 2 ** 15)),
      message: [/^matmul: /, /too large/],
    });
    misuse('add whose broadcast result is over the tensor limit names the operation', {
      run: () => torch.ones(2 ** 15, 1).add(torch.ones(1, 2 ** 15)),
      message: [/^add: /, /too large/],
    });
    // Exhausting the 2 GiB heap leaves the instance's memory grown to about 1 GiB for good, so this runs in
    // a worker of its own, whose memory goes when it ends.
    test('an op that exhausts the 2 GiB wasm heap (each tensor under the limit), in a worker', async () => {
      const result = await new Promise((resolve, reject) => {
        const worker = new Worker(OOM_WORKER, {
          eval: true,
          workerData: { url: new URL('../../wasm/index.js', import.meta.url).href, flavour, rows: BOOK_ROWS },
        });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      assert.equal(result.threw, true, 'expected an error');
      assert.equal(result.isAttentionError, true);
      assert.equal(result.name, 'AttentionError');
      assert.match(result.message, /out of memory/);
      assert.match(result.message, /heap/);
      assert.equal(result.allocatedAfter, result.allocatedBefore);
      assert.ok(result.heapBytes > 2 ** 29, `the heap grew before it ran out (${result.heapBytes} bytes)`);
      assert.equal(result.dot, 'tensor(0.7600)');
      assert.equal(result.selfAttention, SA_V1_OUT);
    });
  });
}
