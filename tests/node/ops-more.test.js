// The operations learners write beyond the chapter's lines (shape ops, reductions, element-wise math,
// indexing, bmm, baddbmm, einsum) against PyTorch 1.13 (tests/golden/ops_more.json from gen_ops_more.py), one
// test per case in both builds: shape, dtype, bits (or the printed text where PyTorch's CPU order is not the
// core's), grad_fn and the printed text; and the mistakes, each with PyTorch's message word for word.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { AttentionError } from '../../wasm/index.js';
import { floatsOfHex, hexOf, loadBuilds } from './support.mjs';

const golden = JSON.parse(readFileSync(new URL('../golden/ops_more.json', import.meta.url), 'utf8'));

for (const [flavour, torch] of await loadBuilds()) {
  describe(`operations beyond the chapter (${flavour})`, () => {
    const inputs = {};
    for (const [name, g] of Object.entries(golden.inputs)) {
      const flat = torch.tensor(Array.from(floatsOfHex(g.hex), (v) => (g.dtype === 'bool' ? v !== 0 : v)));
      inputs[name] = g.shape.length === 0 ? flat.view([]) : flat.view(g.shape);
    }
    inputs.g.requiresGrad_(true); // the leaf whose results name their grad_fn

    // A call of the fixture ([op, ...args]): a torch function, or else a method (or getter) of its first argument.
    // An argument names an input, is a call itself (a list whose first element is no input's name) or is a value.
    const run = ([op, ...args]) => {
      const values = args.map(argument);
      if (typeof torch[op] === 'function') return torch[op](...values);
      const [self, ...rest] = values;
      return typeof self[op] === 'function' ? self[op](...rest) : self[op];
    };
    function argument(a) {
      if (a === null) return undefined;
      if (typeof a === 'string') return a in inputs ? inputs[a] : a;
      if (Array.isArray(a) && typeof a[0] === 'string' && !(a[0] in inputs)) return run(a);
      if (Array.isArray(a)) return a.map(argument);
      return a;
    }

    const same = (got, want, bits, name) => {
      assert.deepEqual(got.shape, want.shape, `${name}: shape`);
      assert.equal(got.dtype, want.dtype, `${name}: dtype`);
      if (bits) assert.equal(hexOf(got).join(' '), want.hex, `${name}: bits`);
      assert.equal(got.toString(), want.printed, `${name}: printed`);
      assert.equal(got.gradFn, want.grad_fn, `${name}: grad_fn`);
    };

    for (const [name, { js, bits, result }] of Object.entries(golden.values)) {
      test(`${name} as PyTorch computes it`, () => {
        const got = run(js);
        if (Array.isArray(result)) {
          assert.equal(got.length, result.length, `${name}: how many`);
          result.forEach((want, i) => same(got[i], want, bits, `${name}[${i}]`));
        } else {
          same(got, result, bits, name);
        }
      });
    }

    test('the views share their input storage: a write through them reaches the input', () => {
      const views = {
        permute: (x) => x.permute(2, 0, 1), unbind: (x) => x.unbind(1)[2], chunk: (x) => x.chunk(2, 2)[1],
        split: (x) => x.splitWithSizes([1, 3], 2)[1], flatten: (x) => x.flatten(0, 1),
        squeeze: (x) => x.unsqueeze(1).squeeze(1), movedim: (x) => x.movedim(0, 2),
        expand: (x) => x.slice(0, 0, 1).expand(3, 3, 4),
      };
      for (const [name, view] of Object.entries(views)) {
        const x = torch.zeros(2, 3, 4);
        view(x).fill_(1);
        assert.ok(x.data.some((v) => v === 1), `${name}: the input did not change`);
      }
      const y = torch.zeros(2, 3);
      y.permute(1, 0).fill_(5);
      assert.deepEqual(y.toArray(), [[5, 5, 5], [5, 5, 5]]);
      const z = torch.zeros(2, 4);
      z.slice(1, 0, 4, 2).fill_(1);
      assert.deepEqual(z.toArray(), [[1, 0, 1, 0], [1, 0, 1, 0]]);
    });

    test('t[mask] = value and t[[i, j]] = value write through the tensor and its views', () => {
      const m = torch.tensor([[1, 2], [3, 1]]);
      m.indexPutMask_(m.eq(1), torch.tensor(9));
      assert.deepEqual(m.toArray(), [[9, 2], [3, 9]]);
      const t = torch.zeros(3, 2);
      t.T.indexPutRows_(1, [0, 2], torch.tensor([4, 5]));
      assert.deepEqual(t.toArray(), [[4, 4], [0, 0], [5, 5]]); // t.T[:, [0, 2]] = [4, 5]
      const rows = torch.zeros(2, 3);
      rows.indexPutMask_(torch.tensor([false, true]), torch.tensor([1, 2, 3]));
      assert.deepEqual(rows.toArray(), [[0, 0, 0], [1, 2, 3]]);
    });

    test('equal: the same shape and values', () => {
      for (const [pair, want] of Object.entries(golden.equal)) {
        const [a, b] = pair.split(', ');
        assert.equal(torch.equal(inputs[a], inputs[b]), want, pair);
      }
    });

    for (const [name, { js, message }] of Object.entries(golden.errors)) {
      test(`${name}: PyTorch's message`, () => {
        assert.throws(() => run(js), (e) => {
          assert.ok(e instanceof AttentionError, `${name}: ${e}`);
          assert.equal(e.message, message);
          return true;
        });
      });
    }
  });
}
