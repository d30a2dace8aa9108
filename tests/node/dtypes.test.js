// int64, float64 and bool tensors through the JavaScript API, in both builds, against PyTorch 1.13
// (tests/golden/dtypes.json from gen_dtypes.py): every binary op between every kind of operand (its dtype,
// values and printed text, or PyTorch's error), the creation functions with their dtypes, torch.tensor's
// dtype inference, conversions, sums, argmax/argmin, max/min with and without dim, and printing.
// A JavaScript number stands for a Python float, a BigInt for a Python int, a boolean for a Python bool.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { AttentionError } from '../../wasm/index.js';
import { loadBuilds } from './support.mjs';

const golden = JSON.parse(readFileSync(new URL('../golden/dtypes.json', import.meta.url), 'utf8'));

// A fixture value with its Python kind ({ int: 3 }) as the JavaScript value that stands for it.
const jsValue = (typed) => {
  if (Array.isArray(typed)) return typed.map(jsValue);
  if ('int' in typed) return BigInt(typed.int);
  return 'bool' in typed ? typed.bool : typed.float;
};
// float.hex() text ("-0x1.8p+1", "nan", "inf") as a number.
function numberOf(text) {
  if (text === 'nan') return NaN;
  if (text.endsWith('inf')) return text.startsWith('-') ? -Infinity : Infinity;
  const m = /^(-?)0x([01])\.([0-9a-f]*)p([+-]\d+)$/.exec(text);
  assert.ok(m, `hex float ${text}`);
  const mantissa = Number.parseInt(m[2] + (m[3] || '0'), 16) / 16 ** (m[3] || '0').length;
  return (m[1] ? -1 : 1) * mantissa * 2 ** Number(m[4]);
}

for (const [flavour, torch] of await loadBuilds()) {
  // The result of `run` against the fixture's (dtype, shape, values, text) or PyTorch's message.
  const same = (run, want, what) => {
    if (want.error !== undefined) {
      assert.throws(run, (e) => e instanceof AttentionError && e.message === want.error, what);
      return;
    }
    const t = run();
    assert.equal(t.dtype, want.dtype, `${what}: dtype`);
    assert.deepEqual(t.shape, want.shape, `${what}: shape`);
    assert.deepEqual(Array.from(t.data), want.hex.map(numberOf), `${what}: values`);
    assert.equal(t.toString(), want.text, `${what}: text`);
  };
  const operand = (name) => {
    if (name in golden.numbers) {
      const { value, kind } = golden.numbers[name];
      return kind === 'int' ? BigInt(value) : value;
    }
    const { data, dtype } = golden.operands[name];
    return torch.tensor(Array.isArray(data) ? data : [data], { dtype }).view(Array.isArray(data) ? [-1] : []);
  };
  const METHOD = { bitwise_and: 'bitwiseAnd', bitwise_or: 'bitwiseOr', bitwise_xor: 'bitwiseXor' };

  describe(`dtypes (${flavour})`, () => {
    test('every binary op between bool/int64/float32/float64 tensors, 0-d tensors and Python numbers', () => {
      for (const c of golden.promotion) {
        same(() => operand(c.a)[METHOD[c.op] ?? c.op](operand(c.b)), c.result, `${c.a} ${c.op} ${c.b}`);
      }
      assert.ok(golden.promotion.length > 1000);
    });

    test('arange, linspace, eye, full, zeros, ones and empty: values, dtypes, bits and errors', () => {
      for (const c of golden.creation) {
        const args = jsValue(c.typed_args);
        const options = c.dtype === null ? [] : [{ dtype: c.dtype }];
        same(() => torch[c.fn](...args, ...options), c.result, `${c.fn}(${JSON.stringify(c.typed_args)}) ${c.dtype}`);
      }
    });

    test('torch.tensor infers int64, float32 and bool as PyTorch does, and converts to a dtype given', () => {
      for (const c of golden.tensor) {
        const data = jsValue(c.typed_data);
        const options = c.dtype === null ? {} : { dtype: c.dtype };
        // A bare Python number is a 0-d tensor; the API takes arrays, so it is viewed as 0-d.
        const make = () => (Array.isArray(data) ? torch.tensor(data, options) : torch.tensor([data], options).view([]));
        same(make, c.result, JSON.stringify(c.typed_data));
      }
    });

    test('conversions, sums, argmax/argmin and max/min with and without dim, keepdim', () => {
      const named = (name) => {
        if (name in golden.operands) return operand(name);
        const { hex, shape, dtype } = golden.method_operands[name];
        return torch.tensor(hex.map(numberOf), { dtype }).view(shape);
      };
      const call = (t, method, args) => {
        if (method === 'bitwise_not') return t.bitwiseNot();
        if (['bool', 'float', 'long', 'double', 'int'].includes(method)) return t[method]();
        return t[method](...args);
      };
      for (const c of golden.methods) {
        const what = `${c.operand}.${c.method}(${c.args.join(', ')})`;
        if ((c.method === 'max' || c.method === 'min') && c.args.length > 0 && c.result.error === undefined) {
          const { values, indices } = call(named(c.operand), c.method, c.args);
          same(() => values, c.result.values, `${what} values`);
          same(() => indices, c.result.indices, `${what} indices`);
          continue;
        }
        same(() => call(named(c.operand), c.method, c.args), c.result, what);
      }
    });

    test('printing: summarised int64 and bool, float64, empty tensors of each dtype', () => {
      for (const [name, want] of Object.entries(golden.print)) {
        let t = torch.tensor(want.hex.map(numberOf), { dtype: want.dtype }).view(want.shape);
        if (want.text.includes('requires_grad')) t = t.requiresGrad_(true);
        assert.equal(t.toString(), want.text, name);
      }
    });

    test('int64 and float64 tensors as views: shared storage, strides, toArray, item, set', () => {
      const t = torch.arange(6n).view(2, 3);
      const tt = t.T;
      tt.set([2, 1], 40n);
      assert.deepEqual(t.toArray(), [[0, 1, 2], [3, 4, 40]]);
      assert.deepEqual(tt.stride(), [1, 3]);
      assert.equal(t.at(1).at(2).item(), 40);
      assert.ok(t.data instanceof Float64Array);
      const d = torch.tensor([0.1], { dtype: 'float64' });
      assert.equal(d.item(), 0.1); // a double, not 0.1 rounded to float32
      assert.equal(torch.tensor([1n, 2n]).add(torch.tensor([0.5])).dtype, 'float32');
      assert.deepEqual(torch.cat([torch.arange(2n), torch.tensor([0.5], { dtype: 'float64' })]).toArray(), [0, 1, 0.5]);
    });

    test('errors: a dtype that does not exist, int64 beyond 2^53, float32-only ops on int64', () => {
      assert.throws(() => torch.zeros(2, { dtype: 'int16' }),
        /zeros: dtype must be 'float32', 'bool', 'int64', 'float64' or 'int32', got 'int16'/);
      assert.throws(() => torch.tensor([2n ** 60n]), /int64 values beyond \+-\(2\^53 - 1\)/);
      assert.throws(() => torch.arange(3n).matmul(torch.arange(3n)), /matmul: expected a float32 or bool tensor, got int64/);
      assert.throws(() => torch.arange(3n).add('2'), /add: the operand must be a tensor or a number, got '2'/);
    });
  });
}
