// The operations the notebook's torch adds to the API (comparisons, rsub, reciprocal, neg, float, functional
// linear and dropout, detach, Parameter flags), bit for bit and grad_fn for grad_fn against PyTorch 1.13
// (tests/golden/ops_extra.json from gen_ops_extra.py), in both builds; and their errors.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { AttentionError } from '../../wasm/index.js';
import { floatsOfHex, hexOf, loadBuilds } from './support.mjs';

const golden = JSON.parse(readFileSync(new URL('../golden/ops_extra.json', import.meta.url), 'utf8'));
const T = golden.tensors;

const hexText = (t) => hexOf(t).join(' ');

for (const [flavour, torch] of await loadBuilds()) {
  describe(`operations for the notebook (${flavour})`, () => {
    const make = (name) => {
      const g = T[name];
      const flat = torch.tensor(Array.from(floatsOfHex(g.hex), (v) => (g.dtype === 'bool' ? v !== 0 : v)));
      return g.shape.length === 0 ? flat.view([]) : flat.view(g.shape);
    };
    const same = (got, name) => {
      const want = T[name];
      assert.deepEqual(got.shape, want.shape, name);
      assert.equal(got.dtype, want.dtype, name);
      assert.equal(hexText(got), want.hex, name);
      assert.equal(got.gradFn, want.grad_fn, `${name}: grad_fn`);
    };
    test('comparisons: tensor, broadcast tensor and number operands, bool input', () => {
      const a = make('a'), b = make('b'), m = make('m').float();
      for (const op of ['eq', 'ne', 'lt', 'le', 'gt', 'ge']) {
        same(a[op](b), `${op}(a, b)`);
        same(a[op](0.1), `${op}(a, 0.1)`);
        same(m[op](a), `${op}(m, a)`);
      }
      same(make('m').float(), 'm.float()');
    });

    test('rsub, reciprocal, n / t as reciprocal * n, neg, with their grad_fn', () => {
      const a = make('a');
      same(a.rsub(1), '1 - a');
      same(a.rsub(0.3), '0.3 - a');
      same(a.reciprocal().mul(3), '3 / a');
      same(a.reciprocal().mul(0.7), '0.7 / a');
      same(a.reciprocal(), 'a.reciprocal()');
      same(a.neg(), '-a');
      const g = make('a').requiresGrad_(true);
      same(g.rsub(1), '1 - g');
      same(g.reciprocal().mul(3), '3 / g');
      same(g.neg(), '-g');
      same(g.reciprocal(), 'g.reciprocal()');
      same(g.gt(0), 'g > 0');
    });

    test('linear: 1-D, 2-D and 3-D input, with and without bias, a transposed weight view', () => {
      const w = make('w').asParameter(), bias = make('bias').asParameter();
      const wt = make('wt');
      same(wt, 'wt');
      for (const name of ['x1', 'x2', 'x3']) {
        const x = make(name);
        same(torch.linear(x, w), `linear(${name}, w)`);
        same(torch.linear(x, w, bias), `linear(${name}, w, bias)`);
        same(torch.linear(x, wt), `linear(${name}, wt)`);
      }
    });

    test('dropout: the same masks as nn.Dropout, identity in eval mode', () => {
      torch.setRngProfile('default');
      for (const p of ['0.1', '0.5']) {
        torch.manualSeed(123);
        const got = torch.dropout(torch.ones(4, 5), Number(p), true);
        assert.equal(hexText(got), T.dropout[p].hex, `p = ${p}`);
      }
      torch.manualSeed(123);
      assert.equal(hexText(torch.dropout(torch.ones(4, 5), 0.5, false)), T.dropout.eval.hex);
      assert.equal(torch.rngDraws(), 0);
    });

    test('detach and Parameter share storage and print as PyTorch prints them', () => {
      const P = golden.printed;
      const p = torch.tensor([[0.5, -1.0]]).asParameter(true);
      assert.equal(p.toString(), P['Parameter(requires_grad=True)']);
      assert.equal(p.isParameter, true);
      const frozen = torch.tensor([0.25, 2.0]).asParameter(false);
      assert.equal(frozen.toString(), P['Parameter(requires_grad=False)']);
      const q = torch.tensor([0.25, 2.0]).asParameter(true);
      assert.equal(q.detach().toString(), P['Parameter.detach()']);
      assert.equal(q.mul(2).toString(), P['(Parameter * 2)']);
      const d = q.detach();
      d.zero_(); // detach shares storage, like torch: the parameter sees the change
      assert.deepEqual([...q.data], [0, 0]);
    });

    test('bad arguments: an AttentionError naming the operation, and the module keeps working', () => {
      const a = torch.ones(2, 3);
      assert.throws(() => a.eq('x'), (e) => e instanceof AttentionError && /^eq: /.test(e.message));
      assert.throws(() => a.gt(torch.ones(4)), (e) => e instanceof AttentionError && /^The size of tensor a/.test(e.message));
      assert.throws(() => a.rsub(torch.ones(1)), (e) => e instanceof AttentionError && /^rsub: /.test(e.message));
      assert.throws(() => torch.linear(a, torch.ones(3)), /^AttentionError: linear: weight must be 2-D/);
      assert.throws(() => torch.linear(a, torch.ones(4, 3), torch.ones(3)), /linear: bias must have shape \[4\]/);
      assert.throws(() => torch.linear(a, torch.ones(4, 2)), /^AttentionError: mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x4\)$/);
      assert.throws(() => torch.dropout(a, 1.5), (e) => e instanceof AttentionError && /Dropout/.test(e.message));
      assert.throws(() => torch.dropout(a, 'half'), /^AttentionError: dropout: p must be a number/);
      const computed = torch.linear(a, torch.ones(4, 3).asParameter());
      assert.throws(() => computed.requiresGrad_(false), /^AttentionError: requiresGrad_: only a leaf/);
      assert.equal(a.add(1).gt(1.5).toString(), 'tensor([[True, True, True],\n        [True, True, True]])');
    });
  });
}
