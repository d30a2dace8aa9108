// Calling the core. The exports are Embind's (wasm/bindings.cpp); what Embind cannot carry is done here,
// as wasm/convert.hpp describes: tensors stay JavaScript's and cross as records in the heap, and errors
// come back as a message that is thrown as an AttentionError.
import { AttentionError, describe } from './checks.js';

/**
 * A tensor's values and view, owned by JavaScript: views share `storage` (a Float32Array), and nothing in
 * the wasm heap outlives the call that used it, so nothing needs to be freed. An int64 or float64 tensor's
 * storage holds each element as a float64 in two of its floats (`wideValues` reads them).
 */
export class TensorData {
  constructor(storage, shape, strides, offset, dtype, requiresGrad, gradFn, isParameter) {
    this.storage = storage;
    this.shape = shape;
    this.strides = strides;
    this.offset = offset;
    this.dtype = dtype;
    this.requiresGrad = requiresGrad;
    this.gradFn = gradFn;
    this.isParameter = isParameter;
  }
}

/** The dtypes whose storage holds a float64 per element, two floats each. */
export const isWide = (dtype) => dtype === 'int64' || dtype === 'float64' || dtype === 'int32';

/** The elements of a storage as numbers: the Float32Array itself, or a Float64Array over its bytes. */
export function elementsOf(storage, dtype) {
  if (!isWide(dtype)) return storage;
  // A storage copied out of the heap starts its own buffer, so it is 8-byte aligned.
  return new Float64Array(storage.buffer, storage.byteOffset, storage.length / 2);
}

/** A shape or an index as one argument: integers, written to the heap as float64 (convert.hpp's SizeList). */
export class Sizes {
  constructor(values) {
    this.values = values;
  }
}

/** A list of tensors as one argument (stack, cat). */
export class TensorList {
  constructor(items) {
    this.items = items;
  }
}

// The heap block where a call's tensor arguments are written. It keeps this size between calls; a call
// that needs more gets a larger block, given back when the call returns.
const ARENA_BYTES = 1 << 16;
const GRAD_FN_BYTES = 32; // TensorRecord::grad_fn, NUL included

export function makeCore(wasm) {
  const L = wasm.recordLayout(); // TensorRecord's field offsets (convert.hpp)
  const dtypeCode = new Map(), dtypeName = new Map(); // attn::DType's values, as bindings.cpp registers them
  for (const [name, value] of Object.entries(wasm.DType)) {
    if (name === 'values') continue;
    dtypeCode.set(name, value.value);
    dtypeName.set(value.value, name);
  }
  const outOfMemory = (op) => new AttentionError(`${op}: out of memory: the WebAssembly heap cannot grow further`);

  let arena = wasm._malloc(ARENA_BYTES);
  let arenaBytes = ARENA_BYTES;
  if (!arena) throw outOfMemory('loadAttention');

  const align8 = (n) => (n + 7) & ~7;
  const recordBytes = (t) => align8(L.headerBytes + 8 * t.shape.length) + 4 * t.storage.length;
  function bytesFor(args) {
    let bytes = 0;
    for (const a of args) {
      if (a instanceof TensorData) bytes += align8(recordBytes(a));
      else if (a instanceof Sizes) bytes += 8 + 8 * a.values.length;
      else if (a instanceof TensorList) {
        bytes += align8(4 + 4 * a.items.length);
        for (const t of a.items) bytes += align8(recordBytes(t));
      }
    }
    return bytes;
  }
  function reserve(op, bytes) {
    if (bytes <= arenaBytes) return;
    const bigger = wasm._malloc(bytes);
    if (!bigger) throw outOfMemory(op);
    wasm._free(arena);
    arena = bigger;
    arenaBytes = bytes;
  }
  function shrink() {
    if (arenaBytes === ARENA_BYTES) return;
    wasm._free(arena);
    arena = wasm._malloc(ARENA_BYTES);
    arenaBytes = arena ? ARENA_BYTES : 0; // 0: the next call asks again
  }

  // Writes t's record at `at` (header, shape, strides, then the whole storage); returns the next free byte.
  function writeRecord(t, at) {
    const i32 = wasm.HEAP32, u8 = wasm.HEAPU8;
    const rank = t.shape.length;
    const valuesAt = at + align8(L.headerBytes + 8 * rank);
    i32[(at + L.values) >> 2] = valuesAt;
    i32[(at + L.length) >> 2] = t.storage.length;
    i32[(at + L.rank) >> 2] = rank;
    i32[(at + L.offset) >> 2] = t.offset;
    i32[(at + L.dtype) >> 2] = dtypeCode.get(t.dtype);
    i32[(at + L.requiresGrad) >> 2] = t.requiresGrad ? 1 : 0;
    i32[(at + L.isParameter) >> 2] = t.isParameter ? 1 : 0;
    i32[(at + L.shared) >> 2] = -1;
    const name = t.gradFn;
    const n = Math.min(name.length, GRAD_FN_BYTES - 1); // the core's names are short ASCII
    for (let i = 0; i < n; i++) u8[at + L.gradFn + i] = name.charCodeAt(i);
    u8[at + L.gradFn + n] = 0;
    const dims = (at + L.headerBytes) >> 2;
    for (let d = 0; d < rank; d++) {
      i32[dims + d] = t.shape[d];
      i32[dims + rank + d] = t.strides[d];
    }
    wasm.HEAPF32.set(t.storage, valuesAt >> 2);
    return align8(valuesAt + 4 * t.storage.length);
  }

  // run(wired) on args with their tensors written to the arena (an Embind export, a method of a module's
  // handle, a constructor); `op` names the call in messages. Throws the core's error.
  const wired = [];
  const exported = (op) => (w) => wasm[op](...w);
  function call(op, args, run = exported(op), handle = null) {
    reserve(op, bytesFor(args));
    let at = arena;
    wired.length = args.length;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (a instanceof TensorData) {
        wired[i] = at;
        at = writeRecord(a, at);
      } else if (a instanceof Sizes) {
        wasm.HEAP32[at >> 2] = a.values.length;
        wasm.HEAPF64.set(a.values, (at + 8) >> 3);
        wired[i] = at;
        at += 8 + 8 * a.values.length;
      } else if (a instanceof TensorList) {
        const list = at;
        wasm.HEAP32[list >> 2] = a.items.length;
        at = align8(list + 4 + 4 * a.items.length);
        a.items.forEach((t, k) => {
          wasm.HEAP32[(list >> 2) + 1 + k] = at;
          at = writeRecord(t, at);
        });
        wired[i] = list;
      } else {
        wired[i] = a;
      }
    }
    let result;
    try {
      result = run(wired);
    } catch (error) {
      throw fromEmbind(op, error, handle);
    } finally {
      if (arenaBytes !== ARENA_BYTES) shrink();
    }
    const error = wasm.attnError;
    if (error !== undefined) {
      wasm.attnError = undefined;
      // The heap running out is noticed deep inside; say which operation needed the memory.
      throw new AttentionError(error.startsWith('out of memory') ? `${op}: ${error}` : error);
    }
    return result;
  }

  // Embind's own errors (a handle deleted while its call was being set up, an argument it cannot pass) as
  // AttentionErrors naming the call and, for a deleted handle, the module it was. Anything else (a trap) is a
  // bug and goes through as it is.
  function fromEmbind(op, error, handle) {
    if (!(error instanceof wasm.BindingError || error instanceof wasm.InternalError)) return error;
    if (handle !== null && handle.isDeleted()) {
      const kind = handle.$$?.ptrType?.registeredClass?.name ?? 'module'; // Embind's record of the handle's class
      return new AttentionError(`${op}: this ${kind} was deleted before the call reached it`);
    }
    return new AttentionError(`${op}: ${error.message}`);
  }

  // The Embind classes that are modules (bindings.cpp's class_<..., base<nn::Module>>), by name.
  const moduleKinds = Object.keys(wasm).filter((name) => wasm[name]?.prototype instanceof wasm.Module);
  function moduleClass(kind) {
    if (moduleKinds.includes(kind)) return wasm[kind];
    throw new AttentionError(
      `nn.Module: ${describe(kind)} is not a kind of module; expected ${moduleKinds.map((k) => `'${k}'`).join(', ')}`);
  }

  // The tensor whose record is at `address` (a result of the last call); a view of an argument's storage
  // keeps that argument's Float32Array, any other storage is copied out of the heap.
  function readTensor(address, args) {
    const i32 = wasm.HEAP32, u8 = wasm.HEAPU8;
    const rank = i32[(address + L.rank) >> 2], shared = i32[(address + L.shared) >> 2];
    const dims = (address + L.headerBytes) >> 2;
    const shape = new Array(rank), strides = new Array(rank);
    for (let d = 0; d < rank; d++) {
      shape[d] = i32[dims + d];
      strides[d] = i32[dims + rank + d];
    }
    let gradFn = '';
    for (let i = address + L.gradFn; u8[i] !== 0; i++) gradFn += String.fromCharCode(u8[i]);
    return new TensorData(
      shared >= 0 ? args[shared].storage : values(address),
      shape, strides, i32[(address + L.offset) >> 2], dtypeName.get(i32[(address + L.dtype) >> 2]),
      i32[(address + L.requiresGrad) >> 2] === 1, gradFn, i32[(address + L.isParameter) >> 2] === 1,
    );
  }
  // The storage a result record points at: a copy, or (copy false) a view of the heap until the next call.
  function values(address, copy = true) {
    const at = wasm.HEAPU32[(address + L.values) >> 2] >> 2, end = at + wasm.HEAPU32[(address + L.length) >> 2];
    return copy ? wasm.HEAPF32.slice(at, end) : wasm.HEAPF32.subarray(at, end);
  }

  // In-place writes per storage, counted for the storages a module shares with JavaScript (its parameters,
  // modules.js): the module copies one back into the core before it runs when its count has moved.
  const writes = new WeakMap();

  return {
    call: (op, ...args) => call(op, args),
    /** The export's tensor result. */
    tensor: (op, ...args) => readTensor(call(op, args), args),
    /** The export's array of tensor results (unbind, split, chunk; max/min along a dim: values, indices). */
    tensors: (op, ...args) => Array.from(call(op, args), (address) => readTensor(address, args)),
    /** A method of a module's Embind handle, and its tensor result. */
    method: (handle, op, ...args) => call(op, args, (w) => handle[op](...w), handle),
    methodTensor: (handle, op, ...args) => readTensor(call(op, args, (w) => handle[op](...w), handle), args),
    /** A new Embind handle of the class_ `name` (a module: any other name is refused). */
    construct(name, ...args) {
      const Class = moduleClass(name);
      return call(name, args, (w) => new Class(...w));
    },
    /** An in-place method: `target` (the first argument) gets the core's new values and flags. */
    inPlace(op, target, ...rest) {
      const args = [target, ...rest];
      const address = call(op, args);
      target.storage.set(values(address, false));
      if (writes.has(target.storage)) writes.set(target.storage, writes.get(target.storage) + 1);
      const changed = readTensor(address, args);
      target.dtype = changed.dtype;
      target.requiresGrad = changed.requiresGrad;
      target.gradFn = changed.gradFn;
      target.isParameter = changed.isParameter;
    },
    /** The in-place writes to `storage` (a Float32Array) since it was first asked about: counting starts then. */
    writeCount(storage) {
      if (!writes.has(storage)) writes.set(storage, 0);
      return writes.get(storage);
    },
  };
}
