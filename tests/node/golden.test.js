// Replays tests/golden/golden.json (PyTorch 1.13.1 CPU results: generator streams, ops, the chapter's modules)
// and tests/golden/print.json (str(tensor) under set_printoptions) through the JS API, bit for bit, in both
// builds. The native counterparts are tests/native/test_golden.cpp and test_print.cpp.
//
// What the JS API cannot express, and how it is handled:
// * Tensor.uniform_ has no JS entry point. A "uniform" step draws the same words with torch.rand (one word
//   per element, torch-rng.md §2-3) and applies the spec's fmaf(U, to - from, from) in JS; its values are
//   checked too, and the generator stays in step for the rest of the case.
// * requires_grad, grad_fn and Parameter cannot be set on a JS tensor. Print cases with flags are replayed
//   only when a module parameter can carry them: a Parameter with requires_grad=True of 1 or 2 dims is
//   loaded into an nn.Linear's bias or weight. The other flagged cases are counted and skipped.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { bitsOf, floatOfBits, hex, isNaNBits, loadBuilds, wordsOfHex } from './support.mjs';

const goldenDir = new URL('../golden/', import.meta.url);
// Seeds beyond 2^53 (2^63, 2^64 - 1) must stay exact: read every "seed" as a string, then as a BigInt.
const readJson = (name) =>
  JSON.parse(readFileSync(new URL(name, goldenDir), 'utf8').replace(/"seed":\s*(-?\d+)/g, '"seed":"$1"'));
const golden = readJson('golden.json');
const printCases = readJson('print.json').cases;

// fmaf(a, b, c) for float32 a, b, c, correctly rounded: a*b is exact in double (24 + 24 bits); the sum is
// rounded to odd in double (53 >= 24 + 2 bits), which makes the final rounding to float32 correct.
const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);
function fmaf(a, b, c) {
  const p = a * b;
  const s = p + c;
  const bb = s - p;
  const err = p - (s - bb) + (c - bb); // s + err == p + c exactly
  if (err === 0 || s === 0) return Math.fround(s);
  f64[0] = s;
  if ((u64[0] & 1n) === 0n) u64[0] += (err > 0) === (s > 0) ? 1n : -1n; // to the odd neighbour, towards err
  return Math.fround(f64[0]);
}

// "difference" as test_golden.cpp words it: empty when shape and bits agree (any NaN matches any NaN).
function difference(got, expected) {
  if (JSON.stringify(got.shape) !== JSON.stringify(expected.shape)) {
    return `shape [${got.shape}], expected [${expected.shape}]`;
  }
  const want = wordsOfHex(expected.hex);
  const have = bitsOf(got);
  if (have.length !== want.length) return `${have.length} values, expected ${want.length}`;
  let first = -1;
  let count = 0;
  for (let i = 0; i < want.length; i++) {
    if (have[i] !== want[i] && !(isNaNBits(have[i]) && isNaNBits(want[i]))) {
      if (first < 0) first = i;
      count++;
    }
  }
  if (first < 0) return '';
  return (
    `element ${first}: got ${hex(have[first])}, expected ${hex(want[first])} ` +
    `(${floatOfBits(have[first])} vs ${floatOfBits(want[first])}); ${count} of ${want.length} elements differ`
  );
}

const expectSame = (where, got, expected) => assert.equal(difference(got, expected), '', where);

for (const [flavour, torch] of await loadBuilds()) {
  describe(`golden data (${flavour})`, () => {
    before(() => {
      torch.setRngProfile('default'); // golden.json comes from a build without MKL
    });

    // A tensor from {shape, hex[, views]}: a flat tensor reshaped, then the views applied.
    function decode(t) {
      const values = wordsOfHex(t.hex).map(floatOfBits);
      let out = t.shape.length === 0 ? torch.tensor(values[0]) : torch.tensor(values).reshape(t.shape);
      for (const [kind, ...args] of t.views ?? []) {
        if (kind === 'T') out = out.T;
        else if (kind === 'transpose') out = out.transpose(args[0], args[1]);
        else throw new Error(`unknown view ${kind}`);
      }
      return out;
    }
    const expectDraws = (where, expected) => assert.equal(torch.rngDraws(), expected, `${where}: generator draws`);

    // ------------------------------------------------------------ group a: generator streams
    describe('rng: streams after manualSeed', () => {
      for (const c of golden.rng) {
        test(c.name, () => {
          let prev = null; // the last rand/uniform/randn result, the input of a following "prev" dropout
          c.steps.forEach((step, index) => {
            const where = `${c.name} step ${index} (${step.op})`;
            switch (step.op) {
              case 'seed':
                torch.manualSeed(BigInt(step.seed));
                break;
              case 'rand':
                prev = torch.rand(step.shape);
                expectSame(where, prev, step.out);
                break;
              case 'uniform': {
                const from = Math.fround(step.from);
                const range = Math.fround(Math.fround(step.to) - from);
                const u = Array.from(torch.rand(step.shape).data, (x) => fmaf(x, range, from));
                prev = torch.tensor(u).reshape(step.shape);
                expectSame(where, prev, step.out);
                break;
              }
              case 'randn':
                prev = torch.randn(step.shape);
                expectSame(where, prev, step.out);
                break;
              case 'linear': {
                const linear = new torch.nn.Linear(step.in_features, step.out_features, step.bias);
                expectSame(`${where} weight`, linear.weight, step.weight);
                if (step.bias) expectSame(`${where} bias`, linear.bias, step.bias_value);
                else assert.equal(linear.bias, null, `${where}: bias`);
                break;
              }
              case 'dropout': {
                const dropout = new torch.nn.Dropout(step.p); // modules start in training mode
                const x = step.input === 'ones' ? torch.ones(step.shape) : prev;
                expectSame(where, dropout.forward(x), step.out);
                break;
              }
              default:
                assert.fail(`${where}: unknown op`);
            }
            expectDraws(where, step.draws);
          });
        });
      }
    });

    // ------------------------------------------------------------ group b: ops on given inputs
    describe('ops: tensor operations on given inputs', () => {
      for (const c of golden.ops) {
        test(c.name, () => {
          switch (c.op) {
            case 'sum':
              expectSame(c.name, decode(c.x).sum(), c.out);
              expectSame(`${c.name} (torch.sum)`, torch.sum(decode(c.x)), c.out);
              break;
            case 'sum_dim': {
              const x = decode(c.x);
              for (const o of c.outs) expectSame(`${c.name} dim=${o.dim} keepdim=${o.keepdim}`, x.sum(o.dim, o.keepdim), o.out);
              break;
            }
            case 'softmax': {
              const x = decode(c.x);
              for (const o of c.outs) expectSame(`${c.name} dim=${o.dim}`, torch.softmax(x, o.dim), o.out);
              break;
            }
            case 'exp':
              expectSame(c.name, torch.exp(decode(c.x)), c.out);
              break;
            case 'matmul':
              expectSame(c.name, torch.matmul(decode(c.a), decode(c.b)), c.out);
              expectSame(`${c.name} (method)`, decode(c.a).matmul(decode(c.b)), c.out);
              break;
            case 'dot':
              expectSame(c.name, torch.dot(decode(c.a), decode(c.b)), c.out);
              break;
            case 'div':
            case 'mul':
            case 'add':
            case 'sub':
              expectSame(c.name, decode(c.x)[c.op](c.s), c.out);
              break;
            case 'linear': {
              const [outFeatures, inFeatures] = c.weight.shape;
              const linear = new torch.nn.Linear(inFeatures, outFeatures, 'bias' in c);
              linear.weight = decode(c.weight);
              if ('bias' in c) linear.bias = decode(c.bias);
              expectSame(c.name, linear.forward(decode(c.x)), c.out);
              break;
            }
            default:
              assert.fail(`${c.name}: unknown op ${c.op}`);
          }
        });
      }
    });

    // ------------------------------------------------------------ group c: modules
    describe('modules: attention modules after manualSeed', () => {
      function build(kind, cfg) {
        const { d_in, d_out, qkv_bias = false, context_length, dropout = 0, num_heads } = cfg;
        switch (kind) {
          case 'SelfAttention_v1':
            return new torch.SelfAttention_v1(d_in, d_out);
          case 'SelfAttention_v2':
            return new torch.SelfAttention_v2(d_in, d_out, qkv_bias);
          case 'CausalAttention':
            return new torch.CausalAttention(d_in, d_out, context_length, dropout, qkv_bias);
          case 'MultiHeadAttentionWrapper':
            return new torch.MultiHeadAttentionWrapper(d_in, d_out, context_length, dropout, num_heads, qkv_bias);
          case 'MultiHeadAttention':
            return new torch.MultiHeadAttention(d_in, d_out, context_length, dropout, num_heads, qkv_bias);
          default:
            throw new Error(`unknown module ${kind}`);
        }
      }
      // 'heads.0.W_query.weight' -> module.heads[0].W_query.weight
      const lookup = (module, name) => name.split('.').reduce((owner, part) => owner?.[part], module);

      for (const c of golden.modules) {
        test(c.name, () => {
          // 1. manualSeed, build: the parameters are drawn in attribute order
          torch.manualSeed(BigInt(c.seed));
          const module = build(c.module, c.config);
          for (const [name, expected] of Object.entries(c.params ?? {})) {
            const p = lookup(module, name);
            assert.ok(p instanceof torch.Tensor, `${c.name}: no parameter ${name}`);
            expectSame(`${c.name} param ${name}`, p, expected);
          }
          if (c.params) {
            // a Linear whose bias is not in the state dict has bias null
            for (const prefix of Object.keys(c.params).filter((n) => n.endsWith('.weight')).map((n) => n.slice(0, -7))) {
              if (!(`${prefix}.bias` in c.params)) assert.equal(lookup(module, `${prefix}.bias`), null, `${prefix}.bias`);
            }
          }
          expectDraws(`${c.name} after build`, c.draws.build);

          // 2. the input: drawn with rand after building, or given
          let x;
          if (c.input === 'rand') {
            x = torch.rand(c.x.shape);
            expectSame(`${c.name} input`, x, c.x);
          } else {
            x = decode(c.x);
          }
          expectDraws(`${c.name} after input`, c.draws.input);

          // 3. forward (dropout draws its masks here in training mode)
          assert.equal(module.training, true);
          if (c.mode === 'eval') assert.equal(module.eval().training, false);
          expectSame(`${c.name} output`, module.forward(x), c.out);
          expectDraws(`${c.name} after forward`, c.draws.forward);
        });
      }
    });

    // ------------------------------------------------------------ print.json
    describe('print: str(tensor) under set_printoptions', () => {
      after(() => torch.setPrintOptions({ profile: 'default' }));

      const toOptions = (o) => {
        const options = {};
        for (const key of ['profile', 'precision', 'threshold', 'edgeitems', 'linewidth']) {
          if (key in o) options[key] = o[key];
        }
        if (o.sci_mode !== null && o.sci_mode !== undefined) options.sciMode = o.sci_mode;
        return options;
      };

      // How a case's flags can be carried: 'plain' (none), 'weight'/'bias' (a Parameter with
      // requires_grad=True loaded into an nn.Linear), or null (requires_grad, grad_fn: not expressible).
      function carrier(c) {
        if (!c.requires_grad && !c.is_parameter && c.grad_fn === null) return 'plain';
        if (c.is_parameter && c.requires_grad && c.grad_fn === null && !c.shape.includes(0)) {
          if (c.shape.length === 2) return 'weight';
          if (c.shape.length === 1) return 'bias';
        }
        return null;
      }

      function tensorOf(c, how) {
        const t = decode({ shape: c.shape, hex: c.values.join(' ') });
        const value = c.dtype === 'bool' ? t.bool() : t;
        if (how === 'plain') return value;
        const linear = how === 'weight' ? new torch.nn.Linear(c.shape[1], c.shape[0]) : new torch.nn.Linear(1, c.shape[0]);
        linear[how] = value;
        return linear[how];
      }

      test('which cases the JS API can express', () => {
        const count = (how) => printCases.filter((c) => carrier(c) === how).length;
        assert.equal(printCases.length, 383);
        assert.equal(count('plain'), 296);
        assert.equal(count('weight') + count('bias'), 6);
        assert.equal(count(null), 81);
      });

      printCases.forEach((c, i) => {
        const flags = [c.is_parameter && 'Parameter', c.requires_grad && 'requires_grad', c.grad_fn].filter(Boolean);
        const name = `case ${i}: ${c.dtype} [${c.shape}] ${JSON.stringify(c.options)} ${flags.join(' ')}`.trimEnd();
        const how = carrier(c);
        test(name, { skip: how ? false : 'requires_grad/grad_fn cannot be set on a JS tensor' }, () => {
          torch.setPrintOptions({ profile: 'default' });
          const t = tensorOf(c, how);
          assert.equal(t.dtype, c.dtype);
          torch.setPrintOptions(toOptions(c.options));
          assert.equal(t.toString(), c.str);
        });
      });
    });
  });
}
