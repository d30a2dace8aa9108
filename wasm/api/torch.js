// The torch-like namespace that loadAttention gives: the generator, creation, ops, printing and modules,
// over one loaded WebAssembly module.
import { Sizes, TensorList, makeCore } from './boundary.js';
import { AttentionError, choice, describe, enumNames, integer, number, shapeArgs } from './checks.js';
import { defineModules } from './modules.js';
import { defineTensor, flattenNested } from './tensor.js';

const SEED_MIN = -(2n ** 63n), SEED_MAX = 2n ** 64n - 1n;

// torch.manual_seed's argument as the core takes it: [0, 2^64) in decimal (a negative seed wraps, as in PyTorch).
function seedText(seed) {
  let value;
  if (typeof seed === 'bigint') value = seed;
  else if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed)) throw new AttentionError(`manualSeed: expected an integer seed, got ${seed}`);
    value = BigInt(seed);
  } else {
    const kind = seed === null ? 'null' : typeof seed;
    throw new AttentionError(`manualSeed: expected an integer or a BigInt seed, got ${kind}`);
  }
  if (value < SEED_MIN || value > SEED_MAX) {
    throw new AttentionError(`manualSeed: seed must be in [-2^63, 2^64 - 1], got ${value}`);
  }
  return BigInt.asUintN(64, value).toString();
}

// torch.set_printoptions's keywords, with the types the core expects.
function printOptions(options) {
  if (options === null || typeof options !== 'object') {
    throw new AttentionError(`setPrintOptions: expected an options object, got ${describe(options)}`);
  }
  const given = (key) => options[key] !== undefined && options[key] !== null;
  const out = {};
  for (const key of ['precision', 'threshold', 'edgeitems', 'linewidth']) {
    if (!given(key)) continue;
    const v = options[key];
    if (typeof v !== 'number') throw new AttentionError(`setPrintOptions: ${key} must be a number, got ${typeof v}`);
    if (key !== 'threshold' && !Number.isSafeInteger(v)) {
      throw new AttentionError(`setPrintOptions: ${key} must be an integer, got ${v}`);
    }
    out[key] = v;
  }
  if (given('sciMode')) out.sciMode = Boolean(options.sciMode);
  if (typeof options.profile === 'string') out.profile = options.profile;
  return out;
}

export function makeApi(wasm, backend) {
  const core = makeCore(wasm);
  const { Tensor, tensorOf, tensorArg } = defineTensor(core, wasm.Compare);
  const modules = defineModules(wasm, core, { tensorOf, tensorArg });
  const profiles = enumNames(wasm.RngProfile), dtypes = enumNames(wasm.DType);

  const tensorList = (op, list) => {
    if (!Array.isArray(list) || list.length === 0) {
      throw new AttentionError(`${op}: expected a non-empty array of tensors, got ${describe(list)}`);
    }
    return new TensorList(list.map((t, i) => tensorArg(op, `element ${i}`, t)));
  };
  const created = (op, shape) => tensorOf(core.tensor(op, new Sizes(shapeArgs(op, shape))));

  return {
    backend,
    AttentionError,
    Tensor,

    manualSeed(seed) { core.call('manualSeed', seedText(seed)); },
    initialSeed() { return BigInt(core.call('initialSeed')); },
    setRngProfile(profile) { wasm.setRngProfile(choice('setRngProfile', 'profile', profiles.byName, profile)); },
    getRngProfile() { return profiles.nameOf(wasm.getRngProfile()); },
    rngDraws() { return Number(core.call('rngDraws')); },

    tensor(data) {
      if (data instanceof Tensor) return data.clone();
      const { shape, values, dtype } = flattenNested(data);
      return tensorOf(core.tensor('fromValues', new Sizes(shape), new Float32Array(values), dtypes.byName.get(dtype)));
    },
    rand: (...shape) => created('rand', shape),
    randn: (...shape) => created('randn', shape),
    ones: (...shape) => created('ones', shape),
    zeros: (...shape) => created('zeros', shape),
    empty: (...shape) => created('empty', shape),
    stack: (list, dim = 0) => tensorOf(core.tensor('stack', tensorList('stack', list), integer('stack', 'dim', dim))),
    cat: (list, dim = 0) => tensorOf(core.tensor('cat', tensorList('cat', list), integer('cat', 'dim', dim))),
    triu: (t, diagonal = 0) =>
      tensorOf(core.tensor('triu', tensorArg('triu', 'input', t), integer('triu', 'diagonal', diagonal))),
    tril: (t, diagonal = 0) =>
      tensorOf(core.tensor('tril', tensorArg('tril', 'input', t), integer('tril', 'diagonal', diagonal))),
    softmax: (t, dim) => tensorArg('softmax', 'input', t) && t.softmax(dim),
    matmul: (a, b) => tensorOf(core.tensor('matmul', tensorArg('matmul', 'input', a), tensorArg('matmul', 'other', b))),
    dot: (a, b) => tensorOf(core.tensor('dot', tensorArg('dot', 'input', a), tensorArg('dot', 'other', b))),
    exp: (t) => tensorArg('exp', 'input', t) && t.exp(),
    neg: (t) => tensorArg('neg', 'input', t) && t.neg(),
    /** nn.functional.linear: x @ weight.T + bias with nn.Linear's bits and grad_fn (bias null: none). */
    linear(x, weight, bias = null) {
      const args = [tensorArg('linear', 'input', x), tensorArg('linear', 'weight', weight)];
      if (bias === null || bias === undefined) return tensorOf(core.tensor('linearNoBias', ...args));
      return tensorOf(core.tensor('linear', ...args, tensorArg('linear', 'bias', bias)));
    },
    /** nn.functional.dropout: nn.Dropout's masks (under the current RNG profile) without a module. */
    dropout(x, p = 0.5, training = true) {
      if (typeof p !== 'number' || Number.isNaN(p)) {
        throw new AttentionError(`dropout: p must be a number in [0, 1], got ${describe(p)}`);
      }
      return tensorOf(core.tensor('dropout', tensorArg('dropout', 'input', x), p, Boolean(training)));
    },
    sum: (t, dim, keepdim = false) => tensorArg('sum', 'input', t) && t.sum(dim, keepdim),
    allclose: (a, b, { rtol = 1e-5, atol = 1e-8 } = {}) =>
      core.call('allclose', tensorArg('allclose', 'input', a), tensorArg('allclose', 'other', b),
        number('allclose', 'rtol', rtol), number('allclose', 'atol', atol)),
    /** Bytes of the WebAssembly heap, and bytes of it allocated right now (to watch for leaks). */
    memoryUsage() { return core.call('memoryUsage'); },

    setPrintOptions(options = {}) { core.call('setPrintOptions', printOptions(options)); },

    nn: { Linear: modules.Linear, Dropout: modules.Dropout, Module: modules.Module },
    SelfAttention_v1: modules.SelfAttention_v1,
    SelfAttention_v2: modules.SelfAttention_v2,
    CausalAttention: modules.CausalAttention,
    MultiHeadAttentionWrapper: modules.MultiHeadAttentionWrapper,
    MultiHeadAttention: modules.MultiHeadAttention,
  };
}
