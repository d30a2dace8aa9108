// The attention core as a PyTorch-shaped JavaScript API, for browsers and Node >= 20.
//
//   import { loadAttention } from 'attention-lab';
//   const torch = await loadAttention();
//   torch.manualSeed(123);
//   const sa = new torch.SelfAttention_v1(3, 2);
//   console.log(sa.forward(inputs).toString());
//
// Tensors own their values in JavaScript (a Float32Array shared by views), so nothing ever needs to be
// freed by hand. Every call into WebAssembly converts its arguments, runs the C++ core and converts the
// result back; the core's errors come back as AttentionError.

/** The one error type of the API: bad input, with a message naming the operation and the argument. */
export class AttentionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AttentionError';
  }
}

// (module (func (result v128) i32.const 0 i8x16.splat i8x16.popcnt)): valid only where SIMD128 runs.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

const isNode = typeof process !== 'undefined' && process.versions != null && process.versions.node != null;

/**
 * Loads the WebAssembly module once and returns the API object.
 * @param {{ flavour?: 'simd' | 'scalar' }} [options] force a build; by default SIMD where the engine has it
 */
export async function loadAttention(options = {}) {
  const flavour = options.flavour ?? (WebAssembly.validate(SIMD_PROBE) ? 'simd' : 'scalar');
  if (flavour !== 'simd' && flavour !== 'scalar') {
    throw new AttentionError(`loadAttention: flavour must be 'simd' or 'scalar', got ${describe(flavour)}`);
  }
  const { default: create } =
    flavour === 'simd' ? await import('./dist/attention-simd.mjs') : await import('./dist/attention-scalar.mjs');
  const wasmUrl = new URL(`./dist/attention-${flavour}.wasm`, import.meta.url);
  const moduleOptions = {};
  if (isNode) {
    // Emscripten's web loader would fetch() a file path, which Node cannot: hand it the bytes.
    const { readFile } = await import('node:fs/promises');
    moduleOptions.wasmBinary = await readFile(wasmUrl);
  } else {
    moduleOptions.locateFile = (file) => new URL(`./dist/${file}`, import.meta.url).href;
  }
  const wasm = await create(moduleOptions);
  return makeApi(wasm, flavour === 'simd' ? 'wasm-simd128' : 'wasm-scalar');
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value}'`;
  if (value && value.constructor && value.constructor.name === 'Tensor') return 'a tensor';
  return typeof value;
}

function makeApi(wasm, backend) {
  // ------------------------------------------------------------ the wire (wasm/convert.hpp)
  //
  // Each call writes its arguments into two buffers of the wasm heap (f64 slots, UTF-8 bytes), calls the
  // export _attn_<name>, reads the result from the output buffers and releases them. A tensor's values are
  // copied into a buffer the core stages for them; a result's values are copied out into a new Float32Array.
  // Values are a tag slot and its payload, as listed in convert.hpp.
  const TAG = {
    undefined: 0, null: 1, false: 2, true: 3, number: 4, string: 5, bigint: 6, array: 7, object: 8, floats: 9,
    tensor: 10, other: 11, module: 12, error: 13,
  };
  const header = wasm._attn_wire() >> 2; // [in slots, capacity, in bytes, capacity, out slots, count, out bytes, count]
  let f64, f32, u8, u32; // the heap's views, renewed when a call into wasm has grown the heap
  const views = () => {
    if (u8 !== undefined && u8.length !== 0) return; // growing the heap detaches the old views (length 0)
    f64 = wasm.HEAPF64;
    f32 = wasm.HEAPF32;
    u8 = wasm.HEAPU8;
    u32 = wasm.HEAPU32;
  };
  views();
  const outOfMemory = () => new AttentionError('out of memory: the WebAssembly heap cannot grow further');

  let slotBase, slotCap, byteBase, byteCap; // the input buffers, from the header
  let sp = 0, bp = 0, staged = 0; // what this call has written so far
  const inputs = () => {
    slotBase = u32[header] >> 3;
    slotCap = u32[header + 1];
    byteBase = u32[header + 2];
    byteCap = u32[header + 3];
  };
  inputs();
  function room(slots, bytes) {
    if (sp + slots <= slotCap && bp + bytes <= byteCap) return;
    if (!wasm._attn_wire_reserve(Math.max(2 * slotCap, sp + slots), Math.max(2 * byteCap, bp + bytes))) throw outOfMemory();
    views();
    inputs();
  }
  const put = (x) => {
    if (sp === slotCap) room(1, 0);
    f64[slotBase + sp++] = x;
  };
  const encoder = new TextEncoder();
  function putText(text, tag = TAG.string) {
    let bytes = null;
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) > 127) {
        bytes = encoder.encode(text);
        break;
      }
    }
    const length = bytes ? bytes.length : text.length;
    room(3, length);
    put(tag);
    put(bp);
    put(length);
    if (bytes) u8.set(bytes, byteBase + bp);
    else for (let i = 0; i < length; i++) u8[byteBase + bp + i] = text.charCodeAt(i);
    bp += length;
  }
  // A float buffer for the next call, filled with `values`; returns its staging index.
  function stage(values) {
    const at = wasm._attn_stage(values.length);
    if (!at) throw outOfMemory();
    views();
    f32.set(values, at >> 2);
    return staged++;
  }
  class ModuleRef {
    constructor(id) {
      this.id = id;
    }
  }
  function encode(v) {
    if (v === undefined) return put(TAG.undefined);
    if (v === null) return put(TAG.null);
    switch (typeof v) {
      case 'boolean': return put(v ? TAG.true : TAG.false);
      case 'number':
        put(TAG.number);
        return put(v);
      case 'string': return putText(v);
      case 'bigint': return putText(v.toString(), TAG.bigint);
      case 'object': {
        if (Array.isArray(v)) {
          put(TAG.array);
          put(v.length);
          for (const x of v) encode(x);
          return undefined;
        }
        if (v instanceof Float32Array) {
          const index = stage(v);
          put(TAG.floats);
          put(index);
          return put(v.length);
        }
        if (v instanceof ModuleRef) {
          put(TAG.module);
          return put(v.id);
        }
        if (v.storage instanceof Float32Array) {
          const index = stage(v.storage);
          const { shape, strides } = v;
          put(TAG.tensor);
          put(index);
          put(v.storage.length);
          put(shape.length);
          for (const s of shape) put(s);
          for (const s of strides) put(s);
          put(v.offset);
          put(v.dtype === 'bool' ? 1 : 0);
          put(v.requiresGrad ? 1 : 0);
          put(v.isParameter ? 1 : 0);
          return putText(v.gradFn);
        }
        const keys = Object.keys(v);
        put(TAG.object);
        put(keys.length);
        for (const k of keys) {
          putText(k);
          encode(v[k]);
        }
        return undefined;
      }
      default: return putText(typeof v, TAG.other); // a function or a symbol: named in messages only
    }
  }

  let outSlots, outBytes, op; // the result being read
  const next = () => f64[outSlots + op++];
  const decoder = new TextDecoder();
  function readText() {
    next(); // the String tag
    const at = outBytes + next(), length = next();
    if (length < 48) {
      let text = '';
      for (let i = 0; i < length; i++) {
        const c = u8[at + i];
        if (c > 127) return decoder.decode(u8.subarray(at, at + length));
        text += String.fromCharCode(c);
      }
      return text;
    }
    return decoder.decode(u8.subarray(at, at + length));
  }
  function readTensor(args) {
    const shared = next(), at = next() >> 2, length = next(), rank = next();
    const shape = new Array(rank), strides = new Array(rank);
    for (let d = 0; d < rank; d++) shape[d] = next();
    for (let d = 0; d < rank; d++) strides[d] = next();
    const offset = next(), dtype = next() ? 'bool' : 'float32', requiresGrad = next() === 1;
    const isParameter = next() === 1, gradFn = readText();
    const storage = shared >= 0 ? args[shared].storage : f32.slice(at, at + length);
    return { storage, shape, strides, offset, dtype, requiresGrad, gradFn, isParameter };
  }
  function decode(args) {
    const tag = next();
    switch (tag) {
      case TAG.undefined: return undefined;
      case TAG.null: return null;
      case TAG.false: return false;
      case TAG.true: return true;
      case TAG.number: return next();
      case TAG.string:
        op--;
        return readText();
      case TAG.bigint:
        op--;
        return BigInt(readText());
      case TAG.array: {
        const n = next();
        const items = new Array(n);
        for (let i = 0; i < n; i++) items[i] = decode(args);
        return items;
      }
      case TAG.floats: {
        const at = next() >> 2;
        return f32.slice(at, at + next());
      }
      case TAG.tensor: return readTensor(args);
      case TAG.module: return next();
      case TAG.error: return { attentionError: readText() };
      default: throw new Error(`attention wire: unknown tag ${tag}`);
    }
  }

  // Runs the export _attn_<name> on args; the core reports bad input as { attentionError }.
  const exports = new Map(); // name -> the wasm function (Emscripten's glue wraps each export until its first call)
  function invoke(name, args) {
    try {
      sp = 1;
      bp = 0;
      staged = 0;
      for (const a of args) encode(a);
      f64[slotBase] = args.length;
      const fn = exports.get(name);
      if (fn !== undefined) fn();
      else {
        wasm[`_attn_${name}`]();
        exports.set(name, wasm[`_attn_${name}`]);
      }
      views();
      outSlots = u32[header + 4] >> 3;
      outBytes = u32[header + 6];
      op = 0;
      const result = decode(args);
      if (result !== null && typeof result === 'object' && 'attentionError' in result) return result;
      // arguments changed in place get their new values and flags
      for (let n = next(); n > 0; n--) {
        const target = args[next()];
        op++; // the Tensor tag
        const changed = readTensor(args);
        target.storage.set(changed.storage);
        target.dtype = changed.dtype;
        target.requiresGrad = changed.requiresGrad;
        target.gradFn = changed.gradFn;
        target.isParameter = changed.isParameter;
      }
      return result;
    } finally {
      wasm._attn_release();
      views();
      inputs();
    }
  }

  // ------------------------------------------------------------ calling the core

  function call(name, ...args) {
    const result = invoke(name, args);
    if (result !== null && typeof result === 'object' && 'attentionError' in result) {
      throw new AttentionError(result.attentionError);
    }
    return result;
  }
  function core(name, ...args) {
    try {
      return call(name, ...args);
    } catch (error) {
      // The heap running out is only noticed deep inside; say which operation needed the memory.
      if (error instanceof AttentionError && error.message.startsWith('out of memory')) {
        throw new AttentionError(`${name}: ${error.message}`);
      }
      throw error;
    }
  }
  const tensorOf = (wire) => new Tensor(wire);

  // One integer argument (a size, dim or index), checked before it reaches the core.
  function integer(op, what, value, { min = -Infinity } = {}) {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
      const expected = min === 0 ? 'a non-negative integer' : 'an integer';
      throw new AttentionError(`${op}: ${what} must be ${expected}, got ${describe(value)}`);
    }
    return value;
  }

  // (...sizes) or ([sizes]) -> number[]
  function shapeArgs(op, sizes, { allowInfer = false } = {}) {
    const list = sizes.length === 1 && Array.isArray(sizes[0]) ? sizes[0] : sizes;
    return list.map((s, i) => integer(op, `size at position ${i}`, s, { min: allowInfer && s === -1 ? -1 : 0 }));
  }

  function tensorArg(op, what, value) {
    if (!(value instanceof Tensor)) throw new AttentionError(`${op}: ${what} must be a tensor, got ${describe(value)}`);
    return value._w;
  }

  // A tensor, or a number that the core rounds to float32 like a Python float.
  function binary(op, a, b) {
    if (b instanceof Tensor) return tensorOf(core(op, a._w, b._w));
    if (typeof b === 'number') return tensorOf(core(`${op}Number`, a._w, b));
    throw new AttentionError(`${op}: the operand must be a tensor or a number, got ${describe(b)}`);
  }

  // Nested arrays of numbers (or booleans) -> shape + row-major values, refusing ragged input.
  function flatten(data) {
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

  class Tensor {
    /** @param {object} wire the storage-owning object the core reads and writes */
    constructor(wire) {
      this._w = wire;
      this._onChange = null; // set on a module's parameter: in-place changes are written back
    }

    get shape() { return this._w.shape.slice(); }
    get dtype() { return this._w.dtype; }
    get ndim() { return this._w.shape.length; }
    get requiresGrad() { return this._w.requiresGrad; }
    get gradFn() { return this._w.gradFn || null; }
    numel() { return this._w.shape.reduce((n, s) => n * s, 1); }
    size(dim) {
      if (dim === undefined) return this.shape;
      return core('size', this._w, integer('size', 'dim', dim));
    }

    /** Row-major copy of the values. */
    get data() { return rowMajor(this._w); }
    item() { return core('item', this._w); }
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
    toString() { return core('toString', this._w); }
    bool() { return tensorOf(core('toBool', this._w)); }

    // views
    at(index) { return tensorOf(core('select', this._w, 0, integer('at', 'index', index))); }
    select(dim, index) {
      return tensorOf(core('select', this._w, integer('select', 'dim', dim), integer('select', 'index', index)));
    }
    slice(dim, start, end) {
      const stop = end === undefined ? Number.MAX_SAFE_INTEGER : integer('slice', 'end', end);
      return tensorOf(core('slice', this._w, integer('slice', 'dim', dim), integer('slice', 'start', start), stop));
    }
    *[Symbol.iterator]() {
      if (this.ndim === 0) throw new AttentionError('iteration: a 0-d tensor cannot be iterated');
      for (let i = 0; i < this._w.shape[0]; i++) yield this.at(i);
    }
    get T() { return tensorOf(core('T', this._w)); }
    transpose(dim0, dim1) {
      return tensorOf(core('transpose', this._w, integer('transpose', 'dim0', dim0), integer('transpose', 'dim1', dim1)));
    }
    view(...shape) { return tensorOf(core('view', this._w, shapeArgs('view', shape, { allowInfer: true }))); }
    reshape(...shape) { return tensorOf(core('reshape', this._w, shapeArgs('reshape', shape, { allowInfer: true }))); }
    flatten() { return tensorOf(core('flatten', this._w)); }
    contiguous() { return tensorOf(core('contiguous', this._w)); }
    clone() { return tensorOf(core('clone', this._w)); }

    // math
    matmul(other) { return tensorOf(core('matmul', this._w, tensorArg('matmul', 'other', other))); }
    dot(other) { return tensorOf(core('dot', this._w, tensorArg('dot', 'other', other))); }
    softmax(dim) { return tensorOf(core('softmax', this._w, integer('softmax', 'dim', dim))); }
    sum(dim, keepdim = false) {
      if (dim === undefined || dim === null) return tensorOf(core('sumAll', this._w));
      return tensorOf(core('sumDim', this._w, integer('sum', 'dim', dim), Boolean(keepdim)));
    }
    add(other) { return binary('add', this, other); }
    sub(other) { return binary('sub', this, other); }
    mul(other) { return binary('mul', this, other); }
    div(other) { return binary('div', this, other); }
    pow(other) { return binary('pow', this, other); }
    exp() { return tensorOf(core('exp', this._w)); }
    maskedFill(mask, value) {
      return tensorOf(core('maskedFill', this._w, tensorArg('maskedFill', 'mask', mask), fillValue('maskedFill', value)));
    }

    // in place: each returns this tensor
    maskedFill_(mask, value) {
      core('maskedFill_', this._w, tensorArg('maskedFill_', 'mask', mask), fillValue('maskedFill_', value));
      return this._changed();
    }
    add_(other) {
      if (other instanceof Tensor) core('add_', this._w, other._w);
      else if (typeof other === 'number') core('addNumber_', this._w, other);
      else throw new AttentionError(`add_: the operand must be a tensor or a number, got ${describe(other)}`);
      return this._changed();
    }
    zero_() {
      core('zero_', this._w);
      return this._changed();
    }
    /** t.set(i, v) is t[i] = v; t.set([i, j], v) is t[i, j] = v. */
    set(index, value) {
      const list = Array.isArray(index) ? index : [index];
      const idx = list.map((i, k) => integer('set', `index at position ${k}`, i));
      if (value instanceof Tensor) core('setTensor', this._w, idx, value._w);
      else if (typeof value === 'number' || typeof value === 'boolean') core('setNumber', this._w, idx, Number(value));
      else throw new AttentionError(`set: the value must be a number or a tensor, got ${describe(value)}`);
      return this._changed();
    }
    _changed() {
      if (this._onChange) this._onChange(this);
      return this;
    }
  }

  function fillValue(op, value) {
    if (typeof value !== 'number') throw new AttentionError(`${op}: the value must be a number, got ${describe(value)}`);
    return value;
  }

  // ------------------------------------------------------------ modules

  // Frees a module's C++ object once its JavaScript wrapper is garbage-collected. Whatever can still call
  // into the module (its submodules' forward, a parameter tensor's write-back) holds the wrapper itself.
  const registry = new FinalizationRegistry((id) => wasm._attn_module_free(id));
  const REF = Symbol('module');

  // Mirrors the module tree: one object per submodule ('W_query', 'heads.0', ...) with a forward(x), and
  // a getter/setter per parameter ('W_query.weight', ...). Numeric segments make arrays (heads[0]).
  // The layout of a kind of module is worked out once (planTree); each instance then only creates its
  // objects and gives them the shared parameter accessors, which find the module through the object's [ROOT].
  const ROOT = Symbol('root');
  function planTree(moduleNames, parameterNames) {
    const containers = [{ parent: -1, part: null, array: false, descriptors: {}, forward: null }];
    const index = new Map([['', 0]]);
    const node = (path) => {
      let at = 0;
      path.forEach((part, i) => {
        const key = path.slice(0, i + 1).join('.');
        if (!index.has(key)) {
          index.set(key, containers.length);
          containers.push({ parent: at, part, array: i + 1 < path.length && /^\d+$/.test(path[i + 1]), descriptors: {},
            forward: null });
        }
        at = index.get(key);
      });
      return containers[at];
    };
    for (const name of moduleNames) node(name.split('.')).forward = name;
    for (const name of parameterNames) {
      const parts = name.split('.');
      node(parts.slice(0, -1)).descriptors[parts[parts.length - 1]] = {
        enumerable: true,
        get() {
          const root = this[ROOT];
          const t = tensorOf(call('moduleParameter', root[REF], name));
          t._onChange = (changed) => call('moduleLoadParameter', root[REF], name, changed._w);
          return t;
        },
        set(value) {
          call('moduleLoadParameter', this[ROOT][REF], name, tensorArg(`${name} =`, 'the value', value));
        },
      };
    }
    // nn.Linear without a bias has bias None: give null rather than undefined.
    for (const c of containers) c.nullBias = 'weight' in c.descriptors && !('bias' in c.descriptors);
    return containers;
  }
  function attachTree(target, plan) {
    const objects = [];
    for (const c of plan) {
      const object = c.parent < 0 ? target : (objects[c.parent][c.part] = c.array ? [] : {});
      object[ROOT] = target;
      Object.defineProperties(object, c.descriptors);
      if (c.forward) {  // a closure of its own: it works detached from the object too
        const name = c.forward;
        Object.defineProperty(object, 'forward', {
          value: (x) => tensorOf(call('moduleForwardSubmodule', target[REF], name, tensorArg(`${name}.forward`, 'x', x))),
        });
      }
      if (c.nullBias) object.bias = null;
      objects.push(object);
    }
  }

  // The tree's plan by constructor call: it depends only on the kind and its arguments.
  const treePlans = new Map();

  class Module {
    constructor(factory, ...args) {
      const id = call(factory, ...args);
      Object.defineProperty(this, REF, { value: new ModuleRef(id) });
      registry.register(this, id);
      const key = `${factory}(${args.join(',')})`;
      let plan = treePlans.get(key);
      if (plan === undefined) {
        plan = planTree(call('moduleModuleNames', this[REF]), call('moduleParameterNames', this[REF]));
        treePlans.set(key, plan);
      }
      attachTree(this, plan);
    }
    forward(x) {
      return tensorOf(call('moduleForward', this[REF], tensorArg(`${this.constructor.name}.forward`, 'x', x)));
    }
    train(mode = true) {
      call('moduleTrain', this[REF], Boolean(mode));
      return this;
    }
    eval() { return this.train(false); }
    get training() { return call('moduleIsTraining', this[REF]); }
    /**
     * How CausalAttention and MultiHeadAttention (here and in every submodule) compute attention:
     * 'auto' (the default: the fast path from 64 tokens on when dropout is inactive), 'exact' (PyTorch's
     * steps and bits) or 'fast' (tiled, online softmax, whenever dropout is inactive). Returns this module.
     */
    setAttentionPath(path) {
      if (path !== 'auto' && path !== 'exact' && path !== 'fast') {
        throw new AttentionError(`setAttentionPath: path must be 'auto', 'exact' or 'fast', got ${describe(path)}`);
      }
      call('moduleSetAttentionPath', this[REF], path);
      return this;
    }
  }

  // Constructor arguments are checked here so that messages name the module and the argument.
  const size = (op, what, v) => integer(op, what, v, { min: 0 });
  function probability(op, p) {
    if (typeof p !== 'number' || Number.isNaN(p)) {
      throw new AttentionError(`${op}: dropout must be a number in [0, 1], got ${describe(p)}`);
    }
    return p;
  }

  class Linear extends Module {
    constructor(inFeatures, outFeatures, bias = true) {
      super('newLinear', size('Linear', 'inFeatures', inFeatures), size('Linear', 'outFeatures', outFeatures),
        Boolean(bias));
      this.inFeatures = inFeatures;
      this.outFeatures = outFeatures;
    }
  }
  class Dropout extends Module {
    constructor(p = 0.5) {
      super('newDropout', probability('Dropout', p));
      this.p = p;
    }
  }
  class SelfAttention_v1 extends Module {
    constructor(d_in, d_out) {
      super('newSelfAttention_v1', size('SelfAttention_v1', 'd_in', d_in), size('SelfAttention_v1', 'd_out', d_out));
      this.d_out = d_out;
    }
  }
  class SelfAttention_v2 extends Module {
    constructor(d_in, d_out, qkv_bias = false) {
      super('newSelfAttention_v2', size('SelfAttention_v2', 'd_in', d_in), size('SelfAttention_v2', 'd_out', d_out),
        Boolean(qkv_bias));
      this.d_out = d_out;
    }
  }
  class CausalAttention extends Module {
    constructor(d_in, d_out, context_length, dropout, qkv_bias = false) {
      const op = 'CausalAttention';
      super('newCausalAttention', size(op, 'd_in', d_in), size(op, 'd_out', d_out),
        size(op, 'context_length', context_length), probability(op, dropout), Boolean(qkv_bias));
      this.d_out = d_out;
      this.context_length = context_length;
    }
  }
  class MultiHeadAttentionWrapper extends Module {
    constructor(d_in, d_out, context_length, dropout, num_heads, qkv_bias = false) {
      const op = 'MultiHeadAttentionWrapper';
      super('newMultiHeadAttentionWrapper', size(op, 'd_in', d_in), size(op, 'd_out', d_out),
        size(op, 'context_length', context_length), probability(op, dropout), size(op, 'num_heads', num_heads),
        Boolean(qkv_bias));
      this.num_heads = num_heads;
    }
  }
  class MultiHeadAttention extends Module {
    constructor(d_in, d_out, context_length, dropout, num_heads, qkv_bias = false) {
      const op = 'MultiHeadAttention';
      super('newMultiHeadAttention', size(op, 'd_in', d_in), size(op, 'd_out', d_out),
        size(op, 'context_length', context_length), probability(op, dropout), size(op, 'num_heads', num_heads),
        Boolean(qkv_bias));
      this.d_out = d_out;
      this.num_heads = num_heads;
      this.head_dim = d_out / num_heads;
      this.context_length = context_length;
    }
    /**
     * One head's attention weights (before dropout) for the first `rows` queries of x: [b, rows, T], or
     * [rows, T] for a 2-D x. PyTorch's bits, computed from only those rows: cheap at any size.
     */
    attentionWeights(x, head, rows) {
      const op = 'attentionWeights';
      return tensorOf(call('moduleAttentionWeights', this[REF], tensorArg(op, 'x', x), integer(op, 'head', head),
        integer(op, 'rows', rows)));
    }
  }

  // ------------------------------------------------------------ the torch-like namespace

  const gen = undefined; // the core's functions draw from its default generator
  const tensorList = (op, list) => {
    if (!Array.isArray(list) || list.length === 0) {
      throw new AttentionError(`${op}: expected a non-empty array of tensors, got ${describe(list)}`);
    }
    return list.map((t, i) => tensorArg(op, `element ${i}`, t));
  };

  return {
    backend,
    AttentionError,
    Tensor,

    manualSeed(seed) { core('manualSeed', seed); },
    initialSeed() { return core('initialSeed'); },
    setRngProfile(profile) { core('setRngProfile', profile); },
    getRngProfile() { return core('getRngProfile'); },
    rngDraws() { return Number(core('rngDraws')); },

    tensor(data) {
      if (data instanceof Tensor) return data.clone();
      const { shape, values, dtype } = flatten(data);
      return tensorOf(core('fromValues', shape, new Float32Array(values), dtype));
    },
    rand: (...shape) => tensorOf(core('rand', shapeArgs('rand', shape), gen)),
    randn: (...shape) => tensorOf(core('randn', shapeArgs('randn', shape), gen)),
    ones: (...shape) => tensorOf(core('ones', shapeArgs('ones', shape))),
    zeros: (...shape) => tensorOf(core('zeros', shapeArgs('zeros', shape))),
    empty: (...shape) => tensorOf(core('empty', shapeArgs('empty', shape))),
    stack: (list, dim = 0) => tensorOf(core('stack', tensorList('stack', list), integer('stack', 'dim', dim))),
    cat: (list, dim = 0) => tensorOf(core('cat', tensorList('cat', list), integer('cat', 'dim', dim))),
    triu: (t, diagonal = 0) => tensorOf(core('triu', tensorArg('triu', 'input', t), integer('triu', 'diagonal', diagonal))),
    tril: (t, diagonal = 0) => tensorOf(core('tril', tensorArg('tril', 'input', t), integer('tril', 'diagonal', diagonal))),
    softmax: (t, dim) => tensorArg('softmax', 'input', t) && t.softmax(dim),
    matmul: (a, b) => tensorOf(core('matmul', tensorArg('matmul', 'input', a), tensorArg('matmul', 'other', b))),
    dot: (a, b) => tensorOf(core('dot', tensorArg('dot', 'input', a), tensorArg('dot', 'other', b))),
    exp: (t) => tensorArg('exp', 'input', t) && t.exp(),
    sum: (t, dim, keepdim = false) => tensorArg('sum', 'input', t) && t.sum(dim, keepdim),
    allclose: (a, b, { rtol = 1e-5, atol = 1e-8 } = {}) =>
      core('allclose', tensorArg('allclose', 'input', a), tensorArg('allclose', 'other', b), rtol, atol),
    /** Bytes of the WebAssembly heap, and bytes of it allocated right now (to watch for leaks). */
    memoryUsage() { return { heapBytes: core('heapBytes'), allocatedBytes: core('allocatedBytes') }; },

    setPrintOptions(options = {}) {
      if (options === null || typeof options !== 'object') {
        throw new AttentionError(`setPrintOptions: expected an options object, got ${describe(options)}`);
      }
      core('setPrintOptions', options);
    },

    nn: { Linear, Dropout, Module },
    SelfAttention_v1,
    SelfAttention_v2,
    CausalAttention,
    MultiHeadAttentionWrapper,
    MultiHeadAttention,
  };
}
