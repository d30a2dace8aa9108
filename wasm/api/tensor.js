// Tensors: JavaScript objects over a TensorData (values in a Float32Array shared by views). The methods that
// call the core are made from the op table (ops.js): each checks what only JavaScript can get wrong (types,
// arity) and asks the core for the rest.
import { Sizes, TensorData, TensorList, elementsOf } from './boundary.js';
import { AttentionError, choice, describe, enumNames, integer, number, probability, shapeArgs } from './checks.js';
import { OPS } from './ops.js';

// Nested arrays of numbers, BigInts or booleans -> shape + row-major values + dtype, refusing ragged input.
// The dtype is PyTorch's for the Python values these stand for: a JavaScript number is a float (float32), a
// BigInt an int (int64, unless numbers are there too), a boolean a bool. Arrays nested deeper than `maxDims`
// (the core's limit) are not walked: their shape alone is given, for the core to refuse with its message
// (walking them would only overflow the stack).
export function flattenNested(data, maxDims) {
  const shape = [];
  const seen = new Set();
  for (let level = data; Array.isArray(level); level = level[0]) {
    if (seen.has(level)) throw new AttentionError('tensor: the nested arrays contain themselves');
    seen.add(level);
    shape.push(level.length);
  }
  if (shape.length > maxDims) return { shape, values: [], dtype: 'float32' };
  const values = [];
  const kinds = new Set();
  const walk = (node, depth, path) => {
    if (depth === shape.length) {
      const k = typeof node;
      if (k !== 'number' && k !== 'boolean' && k !== 'bigint') {
        throw new AttentionError(`tensor: element ${path} must be a number, a BigInt or a boolean, got ${describe(node)}`);
      }
      kinds.add(k);
      if (kinds.has('number') && kinds.has('boolean')) {
        throw new AttentionError('tensor: numbers and booleans cannot be mixed');
      }
      values.push(Number(node));
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) {
      throw new AttentionError(
        `tensor: nested arrays are ragged: expected length ${shape[depth]} at ${path || 'the top'}, got ` +
          (Array.isArray(node) ? `length ${node.length}` : describe(node)),
      );
    }
    node.forEach((child, i) => walk(child, depth + 1, `${path}[${i}]`));
  };
  walk(data, 0, '');
  const dtype = kinds.has('number') ? 'float32' : kinds.has('bigint') ? 'int64' : kinds.has('boolean') ? 'bool' : 'float32';
  return { shape, values, dtype };
}

/**
 * A number with the Python kind it stands for ('float', 'int' or 'bool'), as torch.scalar(value, kind) makes
 * it: for callers whose numbers have lost that kind (Python's 2 and 2.0 both arrive as the Number 2).
 */
export class Scalar {
  constructor(value, kind) {
    this.value = value;
    this.kind = kind;
    Object.freeze(this);
  }
}

// ------------------------------------------------------------ tensors

// The values of a tensor's view in row-major order, read from its JS storage (no call into wasm).
function rowMajor({ storage: raw, shape, strides, offset, dtype }) {
  const storage = elementsOf(raw, dtype);
  const rank = shape.length;
  let n = 1;
  for (const s of shape) n *= s;
  if (rank === 0) return storage.slice(offset, offset + 1);
  let contiguous = true;
  for (let d = rank - 1, expected = 1; d >= 0; expected *= shape[d], d--) {
    if (shape[d] !== 1 && strides[d] !== expected) contiguous = false;
  }
  if (contiguous || n === 0) return storage.slice(offset, offset + n);
  const out = new storage.constructor(n);
  const index = new Array(rank).fill(0);
  const last = rank - 1, inner = shape[last], step = strides[last];
  for (let i = 0, at = offset; ; ) {
    for (let k = 0; k < inner; k++) out[i++] = storage[at + k * step];
    let d = last - 1; // advance the outer index like an odometer
    for (; d >= 0; d--) {
      at += strides[d];
      if (++index[d] < shape[d]) break;
      at -= strides[d] * shape[d];
      index[d] = 0;
    }
    if (d < 0) return out;
  }
}

// The number form of an operand's export: add -> addNumber, add_ -> addNumber_ (bindings.cpp's names).
const numberExport = (name) => name.replace(/_?$/, (end) => `Number${end}`);

/** The Tensor class over one loaded module's core (boundary.js), with a method for each op of ops.js. */
export function defineTensor(core, wasm) {
  const tensorOf = (data) => new Tensor(data);

  // PyTorch's legacy constructor torch.Tensor(*sizes) / torch.Tensor(data): float32 zeros of those sizes
  // (PyTorch leaves them uninitialised) or those values as float32; no argument is an empty 1-D tensor.
  function legacyTensorData(args) {
    const op = 'Tensor';
    if (args.length === 1 && Array.isArray(args[0])) {
      const { shape, values } = flattenNested(args[0], wasm.maxDims);
      return core.tensor('fromValues', new Sizes(shape), new Float32Array(values), wasm.DType.float32);
    }
    if (args.every((a) => typeof a === 'number' || typeof a === 'bigint')) {
      return core.tensor('zeros', new Sizes(shapeArgs(op, args.length > 0 ? args : [0])), wasm.DType.float32);
    }
    throw new AttentionError(`${op}: expected sizes (new torch.Tensor(2, 3)) or nested arrays of numbers ` +
      `(new torch.Tensor([[1, 2]])), got ${args.map(describe).join(', ')}; torch.tensor(data), torch.zeros(...) ` +
      'and torch.rand(...) make tensors too');
  }

  class Tensor {
    /**
     * new torch.Tensor(2, 3) or new torch.Tensor([[1, 2], [3, 4]]), as PyTorch's legacy constructor (float32
     * zeros of those sizes, or those values). The API itself makes each tensor over its TensorData.
     */
    constructor(...args) {
      this._tensorData = args.length === 1 && args[0] instanceof TensorData ? args[0] : legacyTensorData(args);
    }

    get shape() { return this._tensorData.shape.slice(); }
    get dtype() { return this._tensorData.dtype; }
    get ndim() { return this._tensorData.shape.length; }
    get requiresGrad() { return this._tensorData.requiresGrad; }
    get gradFn() { return this._tensorData.gradFn || null; }
    get isParameter() { return this._tensorData.isParameter; }
    numel() { return this._tensorData.shape.reduce((n, s) => n * s, 1); }
    size(dim) {
      if (dim === undefined) return this.shape;
      return core.call('size', dataOf('size', this), integer('size', 'dim', dim));
    }

    /** How far apart in storage neighbours along each dim are, as PyTorch's t.stride() (the view the core made). */
    stride(dim) {
      if (dim === undefined) return this._tensorData.strides.slice();
      return core.call('stride', dataOf('stride', this), integer('stride', 'dim', dim));
    }
    /** Where the view starts in its storage, as PyTorch's t.storage_offset(). */
    storageOffset() { return this._tensorData.offset; }
    /** Whether the strides are row-major for the shape (dims of size 1 aside), as PyTorch's t.is_contiguous(). */
    isContiguous() {
      const { shape, strides } = this._tensorData;
      for (let d = shape.length - 1, expected = 1; d >= 0; expected *= shape[d], d--) {
        if (shape[d] !== 1 && strides[d] !== expected) return false;
      }
      return true;
    }

    /** Row-major copy of the values: a Float32Array, or a Float64Array for int64 and float64 tensors. */
    get data() { return rowMajor(this._tensorData); }
    toArray() {
      const flat = rowMajor(this._tensorData);
      const { shape } = this._tensorData;
      const bool = this.dtype === 'bool';
      if (shape.length === 0) return bool ? flat[0] !== 0 : flat[0];
      let at = 0;
      const build = (dim) => {
        const n = shape[dim];
        const out = new Array(n);
        if (dim === shape.length - 1) {
          for (let i = 0; i < n; i++) out[i] = bool ? flat[at++] !== 0 : flat[at++];
        } else {
          for (let i = 0; i < n; i++) out[i] = build(dim + 1);
        }
        return out;
      };
      return build(0);
    }

    // autograd flags: tensors that share this one's storage (no copy), like PyTorch's
    /** The same values, cut from autograd: no grad_fn, no requires_grad (torch's detach()). */
    detach() { return this._flagged(false, false); }
    /** What nn.Parameter(t, requires_grad) holds: prints as "Parameter containing:". */
    asParameter(requiresGrad = true) { return this._flagged(Boolean(requiresGrad), true); }
    /** Sets requires_grad on this leaf tensor; returns it. */
    requiresGrad_(requiresGrad = true) {
      if (this._tensorData.gradFn && !requiresGrad) {
        throw new AttentionError('requiresGrad_: only a leaf tensor (no grad_fn) can stop requiring grad; use detach()');
      }
      this._tensorData.requiresGrad = Boolean(requiresGrad);
      return this;
    }
    _flagged(requiresGrad, isParameter) {
      const d = this._tensorData;
      return tensorOf(new TensorData(d.storage, d.shape.slice(), d.strides.slice(), d.offset, d.dtype, requiresGrad, '',
        isParameter));
    }

    *[Symbol.iterator]() {
      if (this.ndim === 0) throw new AttentionError('iteration: a 0-d tensor cannot be iterated');
      for (let i = 0; i < this._tensorData.shape[0]; i++) yield this.at(i);
    }

    /** t.set(i, v) is t[i] = v; t.set([i, j], v) is t[i, j] = v. */
    set(index, value) {
      const list = Array.isArray(index) ? index : [index];
      const idx = new Sizes(list.map((i, k) => integer('set', `index at position ${k}`, i)));
      if (value instanceof Tensor) core.inPlace('setTensor', dataOf('set', this), idx, checked('set', VALUE, value));
      else if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') {
        core.inPlace('setNumber', dataOf('set', this), idx, Number(value));
      }
      else throw new AttentionError(`set: the value must be a number or a tensor, got ${describe(value)}`);
      return this;
    }
  }

  // One argument of `op`, checked for its kind (ops.js) and turned into what the core takes.
  function checked(op, { kind, name, says = name }, value) {
    switch (kind) {
      case 'tensor':
        // A tensor is only what the API made: an object posing as one (its prototype set by hand) holds no TensorData.
        if (value instanceof Tensor && value._tensorData instanceof TensorData) return value._tensorData;
        throw new AttentionError(`${op}: ${says} must be a tensor, got ${describe(value)}`);
      case 'tensors':
        if (!Array.isArray(value) || value.length === 0) {
          throw new AttentionError(`${op}: expected a non-empty array of tensors, got ${describe(value)}`);
        }
        return new TensorList(value.map((t, i) => checked(op, { kind: 'tensor', name: `element ${i}` }, t)));
      case 'int': return integer(op, says, value);
      case 'number': return number(op, says, value);
      case 'probability': return probability(op, says, value);
      case 'bool': return Boolean(value);
      case 'dims': {
        const list = Array.isArray(value) ? value : [value];
        return new Sizes(list.map((d, i) => integer(op, `${says} at position ${i}`, d)));
      }
      case 'string':
        if (typeof value === 'string') return value;
        throw new AttentionError(`${op}: ${says} must be a string, got ${describe(value)}`);
      case 'dtype': return choice(op, says, dtypes.byName, value);
      case 'scalar':
        if (isScalar(value)) return scalarOf(value);
        throw new AttentionError(`${op}: ${says} must be a number, a BigInt or a boolean, got ${describe(value)}`);
      case 'operand':
        if (value instanceof Tensor) return checked(op, { kind: 'tensor', name, says }, value);
        if (isScalar(value)) return scalarOf(value);
        throw new AttentionError(`${op}: ${says} must be a tensor or a number, got ${describe(value)}`);
      default: throw new Error(`ops.js: unknown kind '${kind}'`);
    }
  }

  const isOptions = (v) => v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Tensor);
  // A Python number as the core takes it: its kind decides the result's dtype (PyTorch's type promotion).
  const isScalar = (v) => typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' || v instanceof Scalar;
  const scalarKinds = { number: 'float', bigint: 'int', boolean: 'bool' };
  const scalarOf = (v) => (v instanceof Scalar
    ? { value: Number(v.value), kind: wasm.ScalarKind[v.kind] }
    : { value: Number(v), kind: wasm.ScalarKind[scalarKinds[typeof v]] });
  const dtypes = enumNames(wasm.DType);

  /** The function that runs one entry of ops.js on its arguments (the input first): checks, then the core. */
  function runner(entry) {
    const { name } = entry;
    const positional = entry.args.filter((a) => !a.named), named = entry.args.filter((a) => a.named);
    const enumValue = entry.enum && wasm[entry.enum[0]][entry.enum[1]];
    return (given) => {
      let exported = entry.core ?? name;
      const wired = [];
      // Creation functions take { dtype } after their sizes.
      let dtype = wasm.DType.float32;
      if (entry.dtype && given.length > 0 && isOptions(given[given.length - 1])) {
        const options = given[given.length - 1];
        given = given.slice(0, -1);
        if (options.dtype !== undefined) dtype = checked(name, { kind: 'dtype', says: 'dtype' }, options.dtype);
      }
      for (let i = 0; i < positional.length; i++) {
        const a = positional[i];
        if (a.kind === 'sizes') {
          wired.push(new Sizes(shapeArgs(name, given.slice(i))));
          break;
        }
        const value = given[i] === undefined && 'default' in a ? a.default : given[i];
        if (a.absent && (value === undefined || value === null)) {
          exported = a.absent;
          break;
        }
        if (a.kind === 'operand' && isScalar(value)) exported = numberExport(exported);
        wired.push(checked(name, a, value));
        if (i === 0 && entry.fixed) wired.push(...entry.fixed);
      }
      if (named.length > 0) {
        const options = given[positional.length] ?? {};
        for (const a of named) {
          const value = options[a.name];
          wired.push(checked(name, a, value === undefined ? a.default : value));
        }
      }
      if (entry.dtype) wired.push(dtype);
      if (enumValue !== undefined) wired.push(enumValue);
      if (entry.returns === 'pair' && exported === (entry.core ?? name)) {
        const [values, indices] = core.tensors(exported, ...wired);
        return { values: tensorOf(values), indices: tensorOf(indices) };
      }
      if (entry.returns === 'value') return core.call(exported, ...wired);
      if (entry.returns === 'self') return core.inPlace(exported, ...wired);
      if (entry.returns === 'tensors') return core.tensors(exported, ...wired).map(tensorOf);
      return tensorOf(core.tensor(exported, ...wired));
    };
  }

  // The Tensor methods (and getters) of ops.js, whose input is the tensor itself; in-place ones return it.
  const torchFunctions = {};
  for (const entry of OPS) {
    const run = runner(entry);
    if (entry.on.includes('torch')) torchFunctions[entry.name] = (...args) => run(args);
    if (!entry.on.includes('tensor')) continue;
    const method = entry.returns === 'self'
      ? function (...args) { run([this, ...args]); return this; }
      : function (...args) { return run([this, ...args]); };
    const property = entry.getter ? { get: method } : { value: method, writable: true };
    Object.defineProperty(Tensor.prototype, entry.name, { ...property, configurable: true });
  }

  const tensorArg = (op, says, value) => checked(op, { kind: 'tensor', says }, value);
  // The receiver of a method the table does not make (size, stride, set), checked as the table's are.
  const dataOf = (op, self) => checked(op, { kind: 'tensor', says: 'input' }, self);
  const VALUE = { kind: 'tensor', says: 'the value' };
  return { Tensor, tensorOf, torchFunctions, tensorArg };
}
