// Tensor.uniform_(from, to) and Tensor.normal_(mean, std) through the JS API, under both builds: PyTorch 1.13's
// values bit for bit (tests/golden/nn_more.json, from gen_nn_more.py), the draws they use, transposed
// tensors filled along their storage, the normal spare shared with randn, and PyTorch's messages for the
// arguments it refuses. The nn.init cases of the fixture are the same fills with bounds computed in Python
// (by the notebook's torch.nn.init); here each is one uniform_/normal_ with that bound, computed the same way.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { hexOf, loadBuilds, throwsAttention } from './support.mjs';

const golden = JSON.parse(readFileSync(new URL('../golden/nn_more.json', import.meta.url), 'utf8'));

// nn.init's fan arithmetic (torch/nn/init.py), in doubles as Python computes it.
function fans(shape) {
  const receptive = shape.slice(2).reduce((a, b) => a * b, 1);
  return [shape[1] * receptive, shape[0] * receptive];
}
const INIT = {
  xavier_uniform_: (shape) => {
    const [fanIn, fanOut] = fans(shape);
    const a = Math.sqrt(3.0) * Math.sqrt(2.0 / (fanIn + fanOut));
    return ['uniform_', [-a, a]];
  },
  xavier_normal_: (shape) => {
    const [fanIn, fanOut] = fans(shape);
    return ['normal_', [0, Math.sqrt(2.0 / (fanIn + fanOut))]];
  },
  kaiming_uniform_: (shape, [a = 0] = []) => {
    const bound = Math.sqrt(3.0) * (Math.sqrt(2.0 / (1 + a ** 2)) / Math.sqrt(fans(shape)[0]));
    return ['uniform_', [-bound, bound]];
  },
  kaiming_normal_: (shape, [a = 0] = []) => ['normal_', [0, Math.sqrt(2.0 / (1 + a ** 2)) / Math.sqrt(fans(shape)[0])]],
};

// The draws each call takes (torch-rng.md §7); the < 16 normal path depends on the spare, so it is counted
// only where the case starts with no spare and makes even pairs.
function run(torch, { op, shape, args = [], transposed = false }) {
  if (op === 'randn') return torch.randn(...shape);
  const [fill, fillArgs] = INIT[op] ? INIT[op](shape, args) : [op, args];
  const target = transposed ? torch.empty(...[...shape].reverse()).T : torch.empty(...shape);
  const result = target[fill](...fillArgs);
  assert.equal(result, target, `${fill} returns the tensor it filled`);
  return target;
}

const storageHex = (t, transposed) => hexOf(transposed ? t.T : t).join(' ');

for (const [flavour, torch] of await loadBuilds()) {
  describe(`uniform_ and normal_ (${flavour})`, () => {
    for (const { seed, calls, hex } of golden.cases) {
      const name = calls.map((c) =>
        `${c.op}(${c.shape}${c.transposed ? ', transposed' : ''}${c.args ? `; ${c.args}` : ''})`);
      test(`seed ${seed}: ${name.join(', ')}`, () => {
        torch.manualSeed(seed);
        calls.forEach((call, i) => {
          const t = run(torch, call);
          assert.deepEqual(t.shape, call.shape);
          assert.equal(storageHex(t, call.transposed), hex[i], `call ${i} (${name[i]})`);
        });
      });
    }

    test('uniform_ takes one draw per element, normal_ from 16 elements n + 16 for a ragged end', () => {
      torch.manualSeed(3);
      torch.empty(7, 3).uniform_(-2, 2);
      assert.equal(torch.rngDraws(), 21);
      torch.manualSeed(3);
      torch.empty(17).normal_(1, 2);
      assert.equal(torch.rngDraws(), 17 + 16);
      torch.manualSeed(3);
      torch.empty(4).normal_(1, 2);
      assert.equal(torch.rngDraws(), 2 * 4); // two pairs of double uniforms, no spare left
    });

    test('defaults: uniform_() is rand, normal_() is randn', () => {
      torch.manualSeed(9);
      const rand = hexOf(torch.rand(20));
      torch.manualSeed(9);
      assert.deepEqual(hexOf(torch.empty(20).uniform_()), rand);
      torch.manualSeed(9);
      const randn = hexOf(torch.randn(5, 5));
      torch.manualSeed(9);
      assert.deepEqual(hexOf(torch.empty(5, 5).normal_()), randn);
    });

    test('a view is filled in place: the tensor it views sees the draws', () => {
      torch.manualSeed(4);
      const base = torch.zeros(3, 4);
      base.at(1).uniform_(5, 6);
      const rows = base.toArray();
      assert.deepEqual(rows[0], [0, 0, 0, 0]);
      assert.ok(rows[1].every((v) => v >= 5 && v < 6), `row 1 is in [5, 6): ${rows[1]}`);
      assert.deepEqual(rows[2], [0, 0, 0, 0]);
    });

    for (const { op, args, message } of golden.errors) {
      test(`${op}(${args.join(', ')}) is refused with PyTorch's message`, () => {
        const values = args.map(Number);
        const t = torch.zeros(3);
        torch.manualSeed(1);
        const error = throwsAttention(() => t[op](...values));
        assert.equal(error.message, message);
        assert.equal(torch.rngDraws(), 0, 'a refused call draws nothing');
        assert.deepEqual(t.toArray(), [0, 0, 0], 'a refused call leaves the tensor as it was');
      });
    }

    test('a bool tensor is refused as PyTorch refuses it', () => {
      const mask = torch.zeros(2).bool();
      throwsAttention(() => mask.uniform_(), /"check_uniform_bounds" not implemented for 'Bool'/);
      throwsAttention(() => mask.normal_(), /"normal_kernel_cpu" not implemented for 'Bool'/);
    });

    test('arguments that are not numbers are named', () => {
      throwsAttention(() => torch.zeros(2).uniform_('0', 1), /uniform_: from must be a number, got/);
      throwsAttention(() => torch.zeros(2).normal_(0, null), /normal_: std must be a number, got/);
    });
  });
}
