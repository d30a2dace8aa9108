// Tensors: JavaScript objects over a TensorData (values in a Float32Array shared by views). Every method
// checks what only JavaScript can get wrong (types, arity) and asks the core for the rest.
import { Sizes, TensorData } from './boundary.js';
import { AttentionError, describe, integer, shapeArgs } from './checks.js';

// Nested arrays of numbers (or booleans) -> shape + row-major values, refusing ragged input.
export function flattenNested(data) {
  const shape = [];
  for (let level = data; Array.isArray(level); level = level[0]) shape.push(level.length);
  const values = [];
  let kind = null;
  const walk = (node, depth, path) => {
    if (depth === shape.length) {
      const k = typeof node;
      if (k !== 'number' && k !== 'boolean') {
        throw new AttentionError(`tensor: element ${path} must be a number or a boolean, got ${describe(node)}`);
      }
      if (kind !== null && kind !== k) throw new AttentionError('tensor: numbers and booleans cannot be mixed');
      kind = k;
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
  return { shape, values, dtype: kind === 'boolean' ? 'bool' : 'float32' };
}

// ------------------------------------------------------------ tensors

// The values of a tensor's view in row-major order, read from its JS storage (no call into wasm).
function rowMajor({ storage, shape, strides, offset }) {
  const rank = shape.length;
  let n = 1;
  for (const s of shape) n *= s;
  if (rank === 0) return storage.slice(offset, offset + 1);
  let contiguous = true;
  for (let d = rank - 1, expected = 1; d >= 0; expected *= shape[d], d--) {
    if (shape[d] !== 1 && strides[d] !== expected) contiguous = false;
  }
  if (contiguous || n === 0) return storage.slice(offset, offset + n);
  const out = new Float32Array(n);
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

/** The Tensor class over one loaded module's core (boundary.js); `compareOps` is Embind's Compare enum. */
export function defineTensor(core, compareOps) {
  const tensorOf = (data) => new Tensor(data);

  // A tensor, or a number that the core rounds to float32 like a Python float.
  function binary(op, a, b) {
    if (b instanceof Tensor) return tensorOf(core.tensor(op, a._w, b._w));
    if (typeof b === 'number') return tensorOf(core.tensor(`${op}Number`, a._w, b));
    throw new AttentionError(`${op}: the operand must be a tensor or a number, got ${describe(b)}`);
  }

  function compare(op, a, b) {
    const which = compareOps[op];
    if (b instanceof Tensor) return tensorOf(core.tensor('compare', a._w, b._w, which));
    if (typeof b === 'number') return tensorOf(core.tensor('compareNumber', a._w, b, which));
    throw new AttentionError(`${op}: the operand must be a tensor or a number, got ${describe(b)}`);
  }

  class Tensor {
    /** @param {TensorData} data the values and view, which the core reads and writes */
    constructor(data) {
      this._w = data;
      this._onChange = null; // set on a module's parameter: in-place changes are written back
    }

    get shape() { return this._w.shape.slice(); }
    get dtype() { return this._w.dtype; }
    get ndim() { return this._w.shape.length; }
    get requiresGrad() { return this._w.requiresGrad; }
    get gradFn() { return this._w.gradFn || null; }
    get isParameter() { return this._w.isParameter; }
    numel() { return this._w.shape.reduce((n, s) => n * s, 1); }
    size(dim) {
      if (dim === undefined) return this.shape;
      return core.call('size', this._w, integer('size', 'dim', dim));
    }

    /** How far apart in storage neighbours along each dim are, as PyTorch's t.stride() (the view the core made). */
    stride(dim) {
      const strides = this._w.strides.slice();
      if (dim === undefined) return strides;
      const d = integer('stride', 'dim', dim);
      if (d < -strides.length || d >= strides.length) {
        throw new AttentionError(`stride: dim ${d} is out of range for a ${strides.length}-d tensor`);
      }
      return strides[d < 0 ? d + strides.length : d];
    }
    /** Where the view starts in its storage, as PyTorch's t.storage_offset(). */
    storageOffset() { return this._w.offset; }
    /** Whether the strides are row-major for the shape (dims of size 1 aside), as PyTorch's t.is_contiguous(). */
    isContiguous() {
      const { shape, strides } = this._w;
      for (let d = shape.length - 1, expected = 1; d >= 0; expected *= shape[d], d--) {
        if (shape[d] !== 1 && strides[d] !== expected) return false;
      }
      return true;
    }

    /** Row-major copy of the values. */
    get data() { return rowMajor(this._w); }
    item() { return core.call('item', this._w); }
    toArray() {
      const flat = rowMajor(this._w);
      const { shape } = this._w;
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
    toString() { return core.call('tensorToString', this._w); }
    bool() { return tensorOf(core.tensor('toBool', this._w)); }
    float() { return tensorOf(core.tensor('toFloat', this._w)); }

    // autograd flags: tensors that share this one's storage (no copy), like PyTorch's
    /** The same values, cut from autograd: no grad_fn, no requires_grad (torch's detach()). */
    detach() { return this._flagged(false, false); }
    /** What nn.Parameter(t, requires_grad) holds: prints as "Parameter containing:". */
    asParameter(requiresGrad = true) { return this._flagged(Boolean(requiresGrad), true); }
    /** Sets requires_grad on this leaf tensor; returns it. */
    requiresGrad_(requiresGrad = true) {
      if (this._w.gradFn && !requiresGrad) {
        throw new AttentionError('requiresGrad_: only a leaf tensor (no grad_fn) can stop requiring grad; use detach()');
      }
      this._w.requiresGrad = Boolean(requiresGrad);
      return this;
    }
    _flagged(requiresGrad, isParameter) {
      const w = this._w;
      return tensorOf(new TensorData(w.storage, w.shape.slice(), w.strides.slice(), w.offset, w.dtype, requiresGrad, '',
        isParameter));
    }

    // views
    at(index) { return tensorOf(core.tensor('select', this._w, 0, integer('at', 'index', index))); }
    select(dim, index) {
      return tensorOf(core.tensor('select', this._w, integer('select', 'dim', dim), integer('select', 'index', index)));
    }
    slice(dim, start, end) {
      const stop = end === undefined ? Number.MAX_SAFE_INTEGER : integer('slice', 'end', end);
      const d = integer('slice', 'dim', dim), first = integer('slice', 'start', start);
      return tensorOf(core.tensor('slice', this._w, d, first, stop));
    }
    *[Symbol.iterator]() {
      if (this.ndim === 0) throw new AttentionError('iteration: a 0-d tensor cannot be iterated');
      for (let i = 0; i < this._w.shape[0]; i++) yield this.at(i);
    }
    get T() { return tensorOf(core.tensor('T', this._w)); }
    transpose(dim0, dim1) {
      const a = integer('transpose', 'dim0', dim0), b = integer('transpose', 'dim1', dim1);
      return tensorOf(core.tensor('transpose', this._w, a, b));
    }
    view(...shape) {
      return tensorOf(core.tensor('view', this._w, new Sizes(shapeArgs('view', shape, { allowInfer: true }))));
    }
    reshape(...shape) {
      return tensorOf(core.tensor('reshape', this._w, new Sizes(shapeArgs('reshape', shape, { allowInfer: true }))));
    }
    flatten() { return tensorOf(core.tensor('flatten', this._w)); }
    unsqueeze(dim) { return tensorOf(core.tensor('unsqueeze', this._w, integer('unsqueeze', 'dim', dim))); }
    contiguous() { return tensorOf(core.tensor('contiguous', this._w)); }
    clone() { return tensorOf(core.tensor('clone', this._w)); }

    // math
    matmul(other) { return tensorOf(core.tensor('matmul', this._w, tensorArg('matmul', 'other', other))); }
    dot(other) { return tensorOf(core.tensor('dot', this._w, tensorArg('dot', 'other', other))); }
    softmax(dim) { return tensorOf(core.tensor('softmax', this._w, integer('softmax', 'dim', dim))); }
    sum(dim, keepdim = false) {
      if (dim === undefined || dim === null) return tensorOf(core.tensor('sumAll', this._w));
      return tensorOf(core.tensor('sumDim', this._w, integer('sum', 'dim', dim), Boolean(keepdim)));
    }
    add(other) { return binary('add', this, other); }
    sub(other) { return binary('sub', this, other); }
    mul(other) { return binary('mul', this, other); }
    div(other) { return binary('div', this, other); }
    pow(other) { return binary('pow', this, other); }
    exp() { return tensorOf(core.tensor('exp', this._w)); }
    neg() { return tensorOf(core.tensor('neg', this._w)); }
    /** 1 / t; PyTorch computes \`n / t\` as t.reciprocal() * n. */
    reciprocal() { return tensorOf(core.tensor('reciprocal', this._w)); }
    /** n - t (Python's \`n - t\`). */
    rsub(n) {
      if (typeof n !== 'number') throw new AttentionError(`rsub: the operand must be a number, got ${describe(n)}`);
      return tensorOf(core.tensor('rsubNumber', this._w, n));
    }
    // comparisons: bool tensors
    eq(other) { return compare('eq', this, other); }
    ne(other) { return compare('ne', this, other); }
    lt(other) { return compare('lt', this, other); }
    le(other) { return compare('le', this, other); }
    gt(other) { return compare('gt', this, other); }
    ge(other) { return compare('ge', this, other); }
    maskedFill(mask, value) {
      const m = tensorArg('maskedFill', 'mask', mask);
      return tensorOf(core.tensor('maskedFill', this._w, m, fillValue('maskedFill', value)));
    }

    // in place: each returns this tensor
    maskedFill_(mask, value) {
      core.inPlace('maskedFill_', this._w, tensorArg('maskedFill_', 'mask', mask), fillValue('maskedFill_', value));
      return this._changed();
    }
    add_(other) {
      if (other instanceof Tensor) core.inPlace('add_', this._w, other._w);
      else if (typeof other === 'number') core.inPlace('addNumber_', this._w, other);
      else throw new AttentionError(`add_: the operand must be a tensor or a number, got ${describe(other)}`);
      return this._changed();
    }
    zero_() {
      core.inPlace('zero_', this._w);
      return this._changed();
    }
    fill_(value) {
      core.inPlace('fill_', this._w, fillValue('fill_', value));
      return this._changed();
    }
    /** t.set(i, v) is t[i] = v; t.set([i, j], v) is t[i, j] = v. */
    set(index, value) {
      const list = Array.isArray(index) ? index : [index];
      const idx = new Sizes(list.map((i, k) => integer('set', `index at position ${k}`, i)));
      if (value instanceof Tensor) core.inPlace('setTensor', this._w, idx, value._w);
      else if (typeof value === 'number' || typeof value === 'boolean') {
        core.inPlace('setNumber', this._w, idx, Number(value));
      }
      else throw new AttentionError(`set: the value must be a number or a tensor, got ${describe(value)}`);
      return this._changed();
    }
    _changed() {
      if (this._onChange) this._onChange(this);
      return this;
    }
  }

  function fillValue(op, value) {
    if (typeof value !== 'number') {
      throw new AttentionError(`${op}: the value must be a number, got ${describe(value)}`);
    }
    return value;
  }

  function tensorArg(op, what, value) {
    if (!(value instanceof Tensor)) throw new AttentionError(`${op}: ${what} must be a tensor, got ${describe(value)}`);
    return value._w;
  }

  return { Tensor, tensorOf, tensorArg };
}
