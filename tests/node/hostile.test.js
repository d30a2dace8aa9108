// What a careless user or tool gives the API, beyond the errors-*.test.js misuses: ranks, sizes and integers at
// and past the core's limits, the exported constructors called by hand, print options that would break every
// later print, a module deleted while its call is being set up, and allclose at infinities (against PyTorch 1.13).
// Each refusal is an AttentionError that says what was wrong, leaks nothing and leaves the module working, in
// every flavour (the threaded one throws JavaScript exceptions where the others use WebAssembly's).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';

import BOOK from '../../book/chapter3.json' with { type: 'json' };
import { loadAttention } from '../../wasm/index.js';
import { loadBuilds, misuseTests, throwsAttention } from './support.mjs';

/** [[...[value]...]] nested `depth` deep, built without recursion. */
function nested(depth, value = 1) {
  let data = value;
  for (let i = 0; i < depth; i++) data = [data];
  return data;
}

const builds = [...await loadBuilds(), ['simd-threads', await loadAttention({ flavour: 'simd-threads', threads: 2 })]];

for (const [flavour, torch] of builds) {
  describe(`hostile input (${flavour})`, () => {
    const misuse = misuseTests(torch);
    const bookWeights = () => {
      const inputs = torch.tensor(BOOK.embeddings);
      return torch.softmax(inputs.matmul(inputs.at(1)), 0).toString();
    };

    // ------------------------------------------------------------ ranks
    test('a rank of 6000 is refused, 20 times over, and the module still computes the book', () => {
      const before = torch.memoryUsage().allocatedBytes;
      for (let i = 0; i < 20; i++) {
        throwsAttention(() => torch.ones(new Array(6000).fill(1)).toString(),
          /^ones: a tensor may have at most 64 dims, got 6000$/);
      }
      assert.equal(torch.memoryUsage().allocatedBytes, before, 'wasm bytes allocated after the errors');
      assert.equal(bookWeights(), BOOK.prints.attn_weights_2);
    });
    test('64 dims are made and printed; one more is refused by every op that adds a dim', () => {
      const deepest = torch.ones(new Array(64).fill(1));
      assert.equal(deepest.toString(), `tensor(${'['.repeat(64)}1.${']'.repeat(64)})`);
      const over = /a tensor may have at most 64 dims, got 65$/;
      throwsAttention(() => deepest.unsqueeze(0), /^unsqueeze: /, over);
      throwsAttention(() => torch.stack([deepest]), /^stack: /, over);
      throwsAttention(() => torch.ones(1).view(new Array(65).fill(1)), /^view: /, over);
      throwsAttention(() => torch.ones(1).reshape(new Array(65).fill(1)), /^reshape: /, over);
    });
    misuse('tensor: arrays nested 100,000 deep are refused by the core, not walked', {
      run: () => torch.tensor(nested(100000)),
      message: /^tensor: a tensor may have at most 64 dims, got 100000$/,
    });
    misuse('tensor: an array that contains itself', {
      setup: () => {
        const cycle = [];
        cycle.push(cycle);
        return { cycle };
      },
      run: ({ cycle }) => torch.tensor(cycle),
      message: /^tensor: the nested arrays contain themselves$/,
    });

    // ------------------------------------------------------------ sizes
    const besideZero = /is too large: even beside a size of 0, the other sizes may multiply to at most 268435456/;
    misuse('ones(3, 0, 6, 1e12): no size wraps, even beside a 0', {
      run: () => torch.ones(3, 0, 6, 1e12),
      message: [/^ones: shape \[3,0,6,1000000000000\] /, besideZero],
    });
    misuse('reshape([2 ** 31, 0]) of an empty tensor', {
      setup: () => ({ t: torch.ones(0) }),
      run: ({ t }) => t.reshape([2 ** 31, 0]),
      message: [/^reshape: shape \[2147483648,0\] /, besideZero],
    });
    misuse('view(0, 2 ** 31) of an empty tensor', {
      setup: () => ({ t: torch.ones(0) }),
      run: ({ t }) => t.view(0, 2 ** 31),
      message: [/^view: shape \[0,2147483648\] /, besideZero],
    });
    test('sizes below the limit beside a 0 still make an empty tensor, its strides exact', () => {
      const t = torch.zeros(0, 2 ** 14, 2 ** 14);
      assert.deepEqual(t.shape, [0, 2 ** 14, 2 ** 14]);
      assert.deepEqual(t.stride(), [2 ** 28, 2 ** 14, 1]);
      assert.deepEqual(torch.ones(0).reshape([2 ** 20, 0]).shape, [2 ** 20, 0]);
    });
    misuse('a size past int64 is refused by JavaScript', {
      run: () => torch.zeros(2 ** 64),
      message: /^zeros: size at position 0 must be a non-negative integer in \[-2\^63, 2\^63\), got 18446744073709552000$/,
    });

    // ------------------------------------------------------------ integers past 2^53
    test('triu/tril: a diagonal of ±2 ** 53 is an integer, beyond the size all zeroed or all kept (PyTorch)', () => {
      const m = torch.ones(3, 3);
      assert.deepEqual(Array.from(torch.triu(m, 2 ** 53).data), new Array(9).fill(0));
      assert.deepEqual(Array.from(torch.triu(m, -(2 ** 53)).data), new Array(9).fill(1));
      assert.deepEqual(Array.from(torch.tril(m, 2 ** 62).data), new Array(9).fill(1));
      assert.deepEqual(Array.from(torch.tril(m, -(2 ** 63)).data), new Array(9).fill(0));
      // BigInts are integers too (the notebook's large Python ints arrive as BigInts).
      assert.deepEqual(Array.from(torch.triu(m, 2n ** 53n + 1n).data), new Array(9).fill(0));
      assert.deepEqual(torch.zeros(2n, 3n).shape, [2, 3]);
    });
    misuse('a BigInt past int64', {
      run: () => torch.zeros(2n ** 64n),
      message: /^zeros: size at position 0 must be a non-negative integer in \[-2\^63, 2\^63\), got 18446744073709551616$/,
    });
    misuse('triu: a diagonal that is not an integer', {
      setup: () => ({ m: torch.ones(3, 3) }),
      run: ({ m }) => torch.triu(m, 2.5),
      message: /^triu: diagonal must be an integer, got 2\.5$/,
    });
    misuse('tril: a diagonal past int64 (PyTorch: overflow)', {
      setup: () => ({ m: torch.ones(3, 3) }),
      run: ({ m }) => torch.tril(m, 2 ** 63),
      message: /^tril: diagonal must be an integer in \[-2\^63, 2\^63\), got 9223372036854776000$/,
    });

    // ------------------------------------------------------------ exported constructors
    test('new torch.Tensor(2, 3) is PyTorch\'s legacy constructor: float32 zeros of those sizes', () => {
      const t = new torch.Tensor(2, 3);
      assert.ok(t instanceof torch.Tensor);
      assert.deepEqual(t.shape, [2, 3]);
      assert.equal(t.dtype, 'float32');
      assert.equal(t.toString(), 'tensor([[0., 0., 0.],\n        [0., 0., 0.]])');
      assert.equal(t.add(1).toString(), 'tensor([[1., 1., 1.],\n        [1., 1., 1.]])');
      assert.deepEqual(new torch.Tensor().shape, [0]);
      assert.deepEqual(new torch.Tensor(2n, 1).shape, [2, 1]);
      assert.equal(new torch.Tensor([[1, 2], [3, 4]]).toString(), 'tensor([[1., 2.],\n        [3., 4.]])');
      assert.equal(new torch.Tensor([true, false]).toString(), 'tensor([1., 0.])');
    });
    misuse('new torch.Tensor(-1)', {
      run: () => new torch.Tensor(-1).add(1),
      message: /sizes must be non-negative, got \[-1\]$/,
    });
    misuse('new torch.Tensor(\'a\')', {
      run: () => new torch.Tensor('a'),
      message: [/^Tensor: expected sizes \(new torch\.Tensor\(2, 3\)\) or nested arrays of numbers /,
        /, got 'a'; torch\.tensor\(data\)/],
    });
    misuse('new torch.Tensor(2.5, 3)', {
      run: () => new torch.Tensor(2.5, 3),
      message: /^Tensor: size at position 0 must be a non-negative integer, got 2\.5$/,
    });
    misuse('new torch.nn.Module(\'rand\', -(2 ** 31))', {
      run: () => new torch.nn.Module('rand', -(2 ** 31)),
      message: /^nn\.Module cannot be constructed itself: construct one of its kinds/,
    });
    misuse('MultiHeadAttentionWrapper with 2 ** 32 heads is refused before any head is made', {
      run: () => new torch.MultiHeadAttentionWrapper(2, 2, 3, 0, 2 ** 32),
      message: /^MultiHeadAttentionWrapper: shape \[4294967296,2,2\] is too large/,
    });
    misuse('a subclass of nn.Module naming something that is not a module', {
      run: () => {
        class Rand extends torch.nn.Module {
          constructor() { super('rand', -(2 ** 31)); }
        }
        return new Rand();
      },
      message: /^nn\.Module: 'rand' is not a kind of module; expected .*'Linear'.*'MultiHeadAttention'/,
    });

    // ------------------------------------------------------------ print options
    for (const [options, message] of [
      [{ edgeitems: -7 }, /^set_printoptions: edgeitems must be an integer in \[0, 2147483647\], got -7$/],
      [{ precision: 1e9 }, /^set_printoptions: precision must be an integer in \[0, 149\], got 1000000000$/],
      [{ precision: -1, profile: 'full' }, /^set_printoptions: precision must be an integer in \[0, 149\], got -1$/],
      [{ linewidth: 2 ** 40 }, /^set_printoptions: linewidth must be an integer in \[-2147483648, 2147483647\]/],
      [{ edgeitems: 2.5 }, /^setPrintOptions: edgeitems must be an integer, got 2\.5$/],
    ]) {
      test(`setPrintOptions(${inspect(options)}) is refused when set and the old options stay`, () => {
        const t = torch.ones(2000).div(3);
        torch.setPrintOptions({ profile: 'short' });
        try {
          const shown = t.toString();
          throwsAttention(() => torch.setPrintOptions(options), message);
          assert.equal(t.toString(), shown);
        } finally {
          torch.setPrintOptions({ profile: 'default' });
        }
      });
    }

    // ------------------------------------------------------------ Embind's errors
    test('a module deleted while its forward is being set up: an AttentionError naming the module', () => {
      torch.manualSeed(123);
      const m = new torch.SelfAttention_v1(3, 2);
      const x = torch.tensor(BOOK.embeddings);
      const data = x._tensorData, storage = data.storage;
      // A getter the API reads after its checks, as the call's arguments are written to the heap.
      Object.defineProperty(data, 'storage', { get() { m.delete(); return storage; } });
      throwsAttention(() => m.forward(x), /^forward: this SelfAttention_v1 was deleted before the call reached it$/);
      throwsAttention(() => m.forward(torch.tensor(BOOK.embeddings)), /^SelfAttention_v1\.forward: .*deleted/);
      assert.equal(bookWeights(), BOOK.prints.attn_weights_2);
    });

    // ------------------------------------------------------------ allclose at infinities
    // Each row's expectation is what torch.allclose (PyTorch 1.13) returned for the same call.
    for (const [a, b, options, expected] of [
      [[1], [Infinity], {}, false],
      [[Infinity], [-Infinity], {}, false],
      [[1e38], [Infinity], {}, false],
      [[Infinity], [Infinity], {}, true],
      [[-Infinity], [-Infinity], {}, true],
      [[1], [2], { atol: Infinity }, true],
      [[1], [Infinity], { atol: Infinity }, false],
      [[NaN], [NaN], {}, false],
      [[-1.8840049505233765], [-1.8858908414840698], { rtol: 1e-3, atol: 0 }, true], // float32 tolerance
    ]) {
      test(`allclose(${inspect(a)}, ${inspect(b)}, ${inspect(options)}) is ${expected}, as in PyTorch`, () => {
        assert.equal(torch.allclose(torch.tensor(a), torch.tensor(b), options), expected);
      });
    }
    misuse('allclose: a negative rtol (PyTorch\'s message)', {
      run: () => torch.allclose(torch.ones(1), torch.ones(1), { rtol: -1 }),
      message: /^allclose: rtol must be greater than or equal to zero, but got -1$/,
    });
  });
}
