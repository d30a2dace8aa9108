// The torch-like namespace that loadAttention gives: the generator, creation, ops, printing and modules,
// over one loaded WebAssembly module.
import { Sizes, isWide, makeCore } from './boundary.js';
import { AttentionError, choice, describe, enumNames, integer, number, shapeArgs } from './checks.js';
import { defineModules } from './modules.js';
import { OPS } from './ops.js';
import { Scalar, defineTensor, flattenNested } from './tensor.js';

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

// A creation function's trailing { dtype } (or none), and the arguments before it.
function splitOptions(args) {
  const last = args[args.length - 1];
  const isOptions = last !== null && typeof last === 'object' && !Array.isArray(last);
  return isOptions ? [args.slice(0, -1), last] : [args, {}];
}

// A Python number's dtype, as torch.full and torch.arange infer it: a BigInt is an int, a boolean a bool,
// a number a float.
const numberDtype = (v) => (typeof v === 'bigint' ? 'int64' : typeof v === 'boolean' ? 'bool' : 'float32');

// A number argument of a creation function: a number, a BigInt or a boolean, as a Number.
function creationNumber(op, what, value) {
  if (typeof value === 'bigint' || typeof value === 'boolean') return Number(value);
  return number(op, what, value);
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

    /**
     * torch.tensor(data, { dtype }): numbers are float32, BigInts int64, booleans bool (PyTorch's inference for
     * Python floats, ints and bools), unless `dtype` says otherwise.
     */
    tensor(data, options = {}) {
      const dtype = options.dtype === undefined ? undefined : choice('tensor', 'dtype', dtypes.byName, options.dtype);
      if (data instanceof Tensor) return dtype === undefined ? data.clone() : data.to(options.dtype).clone();
      const flat = flattenNested(data, wasm.maxDims);
      const name = dtype === undefined ? flat.dtype : options.dtype;
      const shape = new Sizes(flat.shape), code = dtypes.byName.get(name);
      if (isWide(name) || flat.dtype === 'int64') {
        return tensorOf(core.tensor('fromDoubles', shape, new Float64Array(flat.values), code));
      }
      return tensorOf(core.tensor('fromValues', shape, new Float32Array(flat.values), code));
    },
    /** A number standing for a Python float, int or bool (kind 'float', 'int' or 'bool') where one is an operand. */
    scalar(value, kind) {
      const v = creationNumber('scalar', 'value', value);
      if (!['float', 'int', 'bool'].includes(kind)) {
        throw new AttentionError(`scalar: kind must be 'float', 'int' or 'bool', got ${describe(kind)}`);
      }
      return new Scalar(v, kind);
    },
    /** torch.full(size, value, { dtype }): the dtype follows the value's kind unless given. */
    full(size, value, options = {}) {
      const v = creationNumber('full', 'the value', value);
      const dtype = choice('full', 'dtype', dtypes.byName, options.dtype ?? numberDtype(value));
      return tensorOf(core.tensor('full', new Sizes(shapeArgs('full', [size])), v, dtype));
    },
    /**
     * torch.arange(end) or (start, end, step = 1), { dtype }: int64 when every argument is a BigInt, else
     * float32; ceil((end - start) / step) values.
     */
    arange(...args) {
      const [given, options] = splitOptions(args);
      if (given.length < 1 || given.length > 3) {
        throw new AttentionError(`arange: expected (end) or (start, end, step), got ${given.length} arguments`);
      }
      const [start, end, step] = given.length === 1 ? [0n, given[0], 1n] : [given[0], given[1], given[2] ?? 1n];
      const ints = [start, end, step].every((v) => typeof v === 'bigint');
      const dtype = choice('arange', 'dtype', dtypes.byName, options.dtype ?? (ints ? 'int64' : 'float32'));
      return tensorOf(core.tensor('arange', creationNumber('arange', 'start', start),
        creationNumber('arange', 'end', end), creationNumber('arange', 'step', step), dtype));
    },
    /** torch.linspace(start, end, steps, { dtype }): PyTorch's values, bit for bit. */
    linspace(start, end, steps, options = {}) {
      const dtype = choice('linspace', 'dtype', dtypes.byName, options.dtype ?? 'float32');
      return tensorOf(core.tensor('linspace', creationNumber('linspace', 'start', start),
        creationNumber('linspace', 'end', end), integer('linspace', 'steps', steps), dtype));
    },
    /** torch.eye(n, m = n, { dtype }). */
    eye(...args) {
      const [given, options] = splitOptions(args);
      const n = integer('eye', 'n', given[0]), m = given[1] === undefined ? n : integer('eye', 'm', given[1]);
      const dtype = choice('eye', 'dtype', dtypes.byName, options.dtype ?? 'float32');
      return tensorOf(core.tensor('eye', n, m, dtype));
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
