// The torch-like namespace that loadAttention gives: the generator, creation, ops, printing and modules,
// over one loaded WebAssembly module.
import { Sizes, makeCore } from './boundary.js';
import { AttentionError, choice, describe, enumNames, integer } from './checks.js';
import { defineModules } from './modules.js';
import { OPS } from './ops.js';
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

// torch.set_printoptions's keywords, with the types the core expects (the core checks their values).
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
    out[key] = key === 'threshold' ? v : integer('setPrintOptions', key, v);
  }
  if (given('sciMode')) out.sciMode = Boolean(options.sciMode);
  if (typeof options.profile === 'string') out.profile = options.profile;
  return out;
}

export function makeApi(wasm, backend) {
  const core = makeCore(wasm);
  const { Tensor, tensorOf, torchFunctions, tensorArg } = defineTensor(core, wasm);
  const modules = defineModules(wasm, core, { tensorOf, tensorArg });
  const profiles = enumNames(wasm.RngProfile), dtypes = enumNames(wasm.DType);

  return {
    backend,
    AttentionError,
    Tensor,
    /** The op table the Tensor methods and the torch functions below are made from (ops.js). */
    ops: OPS,

    manualSeed(seed) { core.call('manualSeed', seedText(seed)); },
    initialSeed() { return BigInt(core.call('initialSeed')); },
    setRngProfile(profile) { wasm.setRngProfile(choice('setRngProfile', 'profile', profiles.byName, profile)); },
    getRngProfile() { return profiles.nameOf(wasm.getRngProfile()); },
    rngDraws() { return Number(core.call('rngDraws')); },

    tensor(data) {
      if (data instanceof Tensor) return data.clone();
      const { shape, values, dtype } = flattenNested(data, wasm.maxDims);
      return tensorOf(core.tensor('fromValues', new Sizes(shape), new Float32Array(values), dtypes.byName.get(dtype)));
    },
    ...torchFunctions, // the torch functions of ops.js: rand, stack, matmul, linear, ...
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
