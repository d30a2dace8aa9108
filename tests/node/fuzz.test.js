// A seeded random fuzz of the API, as a careless user or tool would call it: a few thousand calls per flavour,
// each an op of the op table (wasm/api/ops.js) or another export (creation, the legacy constructor, modules
// and their parameters, print options, seeds), with arguments that are often hostile: negative, huge, NaN,
// of the wrong type, deleted modules, objects posing as tensors. Every outcome must be a value or an
// AttentionError (never a trap, a RangeError or Embind's own error), and afterwards the same instance must
// still compute the book's attention weights bit for bit, with no wasm memory left behind.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';

import BOOK from '../../book/chapter3.json' with { type: 'json' };
import { loadAttention } from '../../wasm/index.js';
import { bitsOf, loadBuilds } from './support.mjs';

const CALLS = 3000;
const SEEDS = { simd: 19, scalar: 1913, 'simd-threads': 1919 };

// mulberry32: a small seeded generator, so that a failure names the seed and call that reproduce it.
function randomSource(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { next, int, pick: (list) => list[int(list.length)], chance: (p) => next() < p };
}

// Integers at and past every limit. No size between ~100 and the limit: a legal 1 GiB tensor would only
// measure the machine.
const HOSTILE_NUMBERS = [0, -0, 1, 2, 3, 5, -1, -2, -7, 0.5, -2.25, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), 2 ** 32, 2 ** 53,
  2 ** 53 + 2, -(2 ** 53), 2 ** 63, -(2 ** 63), 1e12, 1e300, NaN, Infinity, -Infinity, Number.MIN_VALUE];
const SMALL = [0, 1, 2, 3, 4, 6, -1, -2];
const MODULES = ['Linear', 'Dropout', 'SelfAttention_v1', 'SelfAttention_v2', 'CausalAttention',
  'MultiHeadAttentionWrapper', 'MultiHeadAttention'];

/** The book's attention weights for x(2) (softmax of the scores), as printed, and their bits. */
function bookWeights(torch) {
  const inputs = torch.tensor(BOOK.embeddings);
  const weights = torch.softmax(inputs.matmul(inputs.at(1)), 0);
  return { printed: weights.toString(), bits: bitsOf(weights) };
}

function fuzz(torch, seed) {
  const rng = randomSource(seed);
  const tensors = [torch.tensor(BOOK.embeddings)];
  const modules = [];
  const created = []; // every module made, deleted at the end so that the memory can be compared

  // ---------------------------------------------------------------- values
  const randomValue = () => (rng.chance(0.2) ? rng.pick(HOSTILE_NUMBERS) : Math.round((rng.next() * 4 - 2) * 8) / 8);
  function randomNested(depth = rng.int(4)) {
    if (depth === 0) return randomValue();
    const n = rng.int(4);
    return Array.from({ length: n }, () => randomNested(depth - 1));
  }
  function newTensor() {
    switch (rng.int(6)) {
      case 0: return torch.rand(...Array.from({ length: rng.int(4) }, () => 1 + rng.int(4)));
      case 1: return torch.zeros(rng.int(3), 1 + rng.int(3));
      case 2: return torch.tensor(Array.from({ length: 1 + rng.int(3) }, () =>
        Array.from({ length: 3 }, randomValue)));
      case 3: return torch.tensor(randomValue());
      case 4: return torch.ones(2, 3).gt(0.5);
      default: return torch.randn(2, 3, 2).transpose(0, 2);
    }
  }
  const tensor = () => (rng.chance(0.15) || tensors.length === 0 ? newTensor() : rng.pick(tensors));
  function deletedModule() {
    const m = new torch.nn.Linear(2, 2);
    m.delete();
    return m;
  }
  function poser() { // passes `instanceof Tensor`, but is not one
    const fake = Object.create(torch.Tensor.prototype);
    if (rng.chance(0.5)) fake._tensorData = rng.pick([undefined, 0, 12345, { shape: [2], storage: [1, 2] }]);
    return fake;
  }
  const STRANGE = [() => undefined, () => null, () => 'a', () => '3', () => true, () => ({}), () => [], () => [1, 2],
    () => [[1], [2, 3]], () => 3n, () => () => 1, () => Symbol('s'), () => new Float32Array(2), deletedModule,
    () => rng.pick(modules) ?? null, poser, () => torch, () => rng.pick(HOSTILE_NUMBERS)];
  const strange = () => rng.pick(STRANGE)();

  function argument(kind) {
    if (rng.chance(0.2)) return strange();
    switch (kind) {
      case 'tensor': return tensor();
      case 'tensors': return Array.from({ length: rng.int(4) }, () => (rng.chance(0.9) ? tensor() : strange()));
      case 'int': return rng.chance(0.7) ? rng.pick(SMALL) : rng.pick(HOSTILE_NUMBERS);
      case 'number': case 'probability': return rng.chance(0.5) ? rng.next() : rng.pick(HOSTILE_NUMBERS);
      case 'operand': return rng.chance(0.6) ? tensor() : randomValue();
      default: return strange(); // bool: anything goes
    }
  }
  const sizes = () => Array.from({ length: rng.int(5) },
    () => (rng.chance(0.8) ? rng.pick(SMALL) : rng.chance(0.8) ? rng.pick(HOSTILE_NUMBERS) : strange()));

  // ---------------------------------------------------------------- calls: [description, run]
  function opCall() {
    const entry = rng.pick(torch.ops);
    const args = [];
    for (const a of entry.args.slice(1)) {
      if (a.kind === 'sizes') args.push(...(rng.chance(0.5) ? [sizes()] : sizes()));
      else if (a.named) args.push(rng.chance(0.5) ? undefined : { [a.name]: argument(a.kind) });
      else if (!rng.chance(0.1)) args.push(argument(a.kind));
    }
    const asMethod = entry.on.includes('tensor') && (!entry.on.includes('torch') || rng.chance(0.5));
    if (!asMethod) {
      const input = entry.args[0].kind === 'sizes' ? sizes() : argument(entry.args[0].kind);
      const all = entry.args[0].kind === 'sizes' ? [...input, ...args] : [input, ...args];
      return [`torch.${entry.name}(${all.map(show).join(', ')})`, () => torch[entry.name](...all)];
    }
    const self = rng.chance(0.9) ? tensor() : strange();
    const member = Object.getOwnPropertyDescriptor(torch.Tensor.prototype, entry.name);
    const run = entry.getter ? () => member.get.call(self) : () => member.value.apply(self, args);
    return [`${show(self)}.${entry.name}(${args.map(show).join(', ')})`, run];
  }
  function moduleCall() {
    const m = rng.pick(modules);
    if (m === undefined || rng.chance(0.2)) {
      const kind = rng.pick(MODULES);
      const args = Array.from({ length: rng.int(7) }, () => (rng.chance(0.7) ? rng.pick([1, 2, 3, 4, 6, 0.1]) :
        rng.chance(0.7) ? rng.pick(HOSTILE_NUMBERS) : strange()));
      const base = rng.chance(0.05), Class = torch[kind] ?? torch.nn[kind];
      const shown = base ? `new nn.Module(${[kind, ...args].map(show).join(', ')})` : `new ${kind}(${args.map(show).join(', ')})`;
      return [shown, () => {
        const made = base ? new torch.nn.Module(kind, ...args) : new Class(...args);
        created.push(made);
        modules.push(made);
        return made;
      }];
    }
    const name = m.constructor.name;
    switch (rng.int(7)) {
      case 0: return [`${name}.delete()`, () => { // kept in the pool half the time, to be called once deleted
        m.delete();
        if (rng.chance(0.5)) modules.splice(modules.indexOf(m), 1);
      }];
      case 1: return [`${name}.train(..)`, () => m.train(strange())];
      case 2: {
        const path = rng.pick(['auto', 'exact', 'fast', 'x', 1]);
        return [`${name}.setAttentionPath(${show(path)})`, () => m.setAttentionPath(path)];
      }
      case 3: {
        const args = [tensor(), argument('int'), argument('int')];
        return [`${name}.attentionWeights(${args.map(show).join(', ')})`, () => m.attentionWeights?.(...args)];
      }
      case 4: { // a parameter: changed in place, or assigned
        const path = rng.pick(['weight', 'bias', 'W_query.weight', 'out_proj.weight', 'heads.0.W_key.weight']);
        const parts = path.split('.'), key = parts.pop();
        const holder = () => parts.reduce((o, k) => o?.[k], m);
        const value = argument(rng.chance(0.5) ? 'number' : 'tensor');
        if (typeof value === 'number') {
          return [`${name}.${path}.fill_(${show(value)})`, () => holder()?.[key]?.fill_(value)];
        }
        return [`${name}.${path} = ${show(value)}`, () => {
          const h = holder();
          if (h && key in h) h[key] = value;
        }];
      }
      default: {
        const x = rng.chance(0.5) ? torch.rand(2, 4, rng.pick([2, 3, 4])) : tensor();
        return [`${name}.forward(${show(x)})`, () => m.forward(x)];
      }
    }
  }
  function otherCall() {
    switch (rng.int(7)) {
      case 0: {
        const data = rng.chance(0.7) ? randomNested() : strange();
        return [`torch.tensor(${show(data)})`, () => torch.tensor(data)];
      }
      case 1: {
        const args = rng.chance(0.5) ? sizes() : [rng.chance(0.5) ? randomNested() : strange()];
        return [`new torch.Tensor(${args.map(show).join(', ')})`, () => new torch.Tensor(...args)];
      }
      case 2: {
        const keys = ['precision', 'threshold', 'edgeitems', 'linewidth', 'sciMode', 'profile'];
        const options = Object.fromEntries(keys.filter(() => rng.chance(0.3))
          .map((k) => [k, rng.chance(0.6) ? rng.pick(HOSTILE_NUMBERS) : strange()]));
        const t = tensor();
        return [`setPrintOptions(${show(options)}); ${show(t)}.toString()`, () => {
          torch.setPrintOptions(options);
          return t.toString();
        }];
      }
      case 3: {
        const seed = rng.chance(0.5) ? rng.pick(HOSTILE_NUMBERS) : strange();
        return [`manualSeed(${show(seed)})`, () => torch.manualSeed(seed)];
      }
      case 4: {
        const t = tensor(), method = rng.pick(['size', 'stride']), dim = argument('int');
        return [`${show(t)}.${method}(${show(dim)})`, () => t[method](dim)];
      }
      case 5: {
        const t = tensor(), index = rng.chance(0.5) ? argument('int') : sizes(), value = argument('operand');
        return [`${show(t)}.set(${show(index)}, ${show(value)})`, () => t.set(index, value)];
      }
      default: {
        const t = rng.chance(0.9) ? tensor() : strange();
        return [`${show(t)}.toString()`, () => torch.Tensor.prototype.toString.call(t)];
      }
    }
  }

  // ---------------------------------------------------------------- the run
  const outcomes = { values: 0, errors: 0 };
  for (let i = 0; i < CALLS; i++) {
    const r = rng.next();
    const [what, run] = r < 0.6 ? opCall() : r < 0.8 ? moduleCall() : otherCall();
    try {
      const result = run();
      outcomes.values++;
      if (result instanceof torch.Tensor && result.numel() <= 4096) {
        if (tensors.length < 40) tensors.push(result);
        else tensors[rng.int(tensors.length)] = result;
      }
    } catch (error) {
      outcomes.errors++;
      if (!(error instanceof torch.AttentionError)) {
        assert.fail(`seed ${seed}, call ${i}: ${what} threw ${error?.name ?? typeof error}: ${error?.message ?? error}`);
      }
    }
  }
  for (const m of created) m.delete();
  torch.setPrintOptions({ profile: 'default' });
  torch.setRngProfile('default');
  return outcomes;
}

function show(value) {
  if (typeof value === 'symbol') return 'Symbol()';
  if (value?._tensorData?.shape) return `Tensor(${value._tensorData.shape})`;
  return inspect(value, { depth: 2, maxArrayLength: 6, breakLength: Infinity }).slice(0, 120);
}

const builds = [...await loadBuilds(), ['simd-threads', await loadAttention({ flavour: 'simd-threads', threads: 2 })]];

for (const [flavour, torch] of builds) {
  describe(`API fuzz (${flavour})`, () => {
    test(`${CALLS} seeded random calls: each a value or an AttentionError; the book right after, no memory kept`, () => {
      const book = bookWeights(torch);
      assert.equal(book.printed, BOOK.prints.attn_weights_2);
      const before = torch.memoryUsage().allocatedBytes;
      const outcomes = fuzz(torch, SEEDS[flavour]);
      // Both kinds of outcome happened often: the fuzz reached the core, and refused what it had to.
      assert.ok(outcomes.values > CALLS / 5 && outcomes.errors > CALLS / 5, inspect(outcomes));
      const after = bookWeights(torch);
      assert.equal(after.printed, BOOK.prints.attn_weights_2);
      assert.deepEqual(after.bits, book.bits);
      const grown = torch.memoryUsage().allocatedBytes - before;
      assert.ok(grown < 64 * 1024, `wasm bytes allocated grew by ${grown} over the fuzz`);
    });
  });
}
