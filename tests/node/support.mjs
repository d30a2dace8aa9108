// What the Node tests share: float32 bit patterns and their hex words, both WebAssembly builds, reading
// PyTorch's printouts (the page's own parser, web/compare.js), the checks of the errors-*.test.js files and
// a forced garbage collection (for what a FinalizationRegistry frees), and the chapter's results as the page
// reads them (the tests of the chapter computed in parts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { AttentionError, loadAttention } from '../../wasm/index.js';
import BOOK from '../../book/chapter3.json' with { type: 'json' };
import { STEPS } from '../../web/steps/index.js';

export { parsePrinted } from '../../web/compare.js';

// ---------------------------------------------------------------- float32 bits

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The bit pattern of one number rounded to float32. */
export const bitsOfFloat = (x) => ((f32[0] = x), u32[0]);
/** The float32 whose bit pattern is `word`. */
export const floatOfBits = (word) => ((u32[0] = word), f32[0]);
/** A 32-bit word as 8 hex digits. */
export const hex = (word) => word.toString(16).padStart(8, '0');
/** Hex words separated by white space (or already an array of them) as numbers. */
export const wordsOfHex = (text) =>
  (Array.isArray(text) ? text : text.split(/\s+/).filter(Boolean)).map((w) => parseInt(w, 16));
/** Hex words as the float32 values they are the bits of. */
export const floatsOfHex = (text) => new Float32Array(new Uint32Array(wordsOfHex(text)).buffer);
/** Whether a bit pattern is a NaN (any payload, either sign). */
export const isNaNBits = (word) => (word & 0x7f800000) === 0x7f800000 && (word & 0x007fffff) !== 0;

/** The bit patterns of a tensor's values, row-major. */
export function bitsOf(t) {
  const f = t.data;
  return Array.from(new Uint32Array(f.buffer, f.byteOffset, f.length));
}
/** The bit patterns of a tensor's values, row-major, as hex words. */
export const hexOf = (t) => bitsOf(t).map(hex);

// ---------------------------------------------------------------- the builds

export const FLAVOURS = ['simd', 'scalar'];

/** Each build's API, freshly loaded: [flavour, torch] pairs, SIMD first. */
export const loadBuilds = () => Promise.all(FLAVOURS.map(async (flavour) => [flavour, await loadAttention({ flavour })]));

/** The backend name each flavour reports. */
export const backendOf = (flavour) => (flavour === 'simd' ? 'wasm-simd128' : 'wasm-scalar');

// ---------------------------------------------------------------- errors (the errors-*.test.js files)

/** Asserts that fn throws an AttentionError whose message matches every pattern given; returns the error. */
export function throwsAttention(fn, ...patterns) {
  let caught = null;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== null, 'expected an AttentionError, nothing was thrown');
  assert.ok(caught instanceof AttentionError, `expected an AttentionError, got ${caught?.name}: ${caught?.message}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, 'AttentionError');
  for (const p of patterns) assert.match(caught.message, p);
  return caught;
}

/**
 * The misuse(name, { setup, run, message }) test maker for one build. Each misuse is a test: `setup` builds
 * what the call needs (outside the leak check), `run` misbehaves and must throw an AttentionError whose
 * message matches `message` (a pattern or a list of them), never abort; then the wasm allocator must be back
 * where it was (nothing leaked on the error path) and the same instance must still compute the chapter.
 */
export function misuseTests(torch) {
  function stillWorks() {
    assert.equal(torch.dot(torch.tensor([0.4, 0.1, 0.8]), torch.tensor([0.5, 0.8, 0.6])).toString(), 'tensor(0.7600)');
    torch.manualSeed(123);
    assert.equal(new torch.SelfAttention_v1(3, 2).forward(torch.tensor(BOOK.embeddings)).toString(), BOOK.prints.sa_v1_out);
  }
  return function misuse(name, { setup = () => ({}), run, message }) {
    test(name, () => {
      const ctx = setup();
      const before = torch.memoryUsage().allocatedBytes;
      throwsAttention(() => run(ctx), ...[message].flat());
      assert.equal(torch.memoryUsage().allocatedBytes, before, 'wasm bytes allocated after the error');
      stillWorks();
    });
  };
}

// ---------------------------------------------------------------- garbage collection

/** A way to force a full GC, or null: --expose-gc, or the flag turned on at run time. */
export const forceGc = (() => {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    return typeof gc === 'function' ? gc : null;
  } catch {
    return null;
  }
})();
const nextTask = () => new Promise((resolve) => setImmediate(resolve));
/** A few full collections, each followed by a task: FinalizationRegistry callbacks run as tasks after one. */
export async function settle() {
  for (let i = 0; i < 5; i++) {
    forceGc();
    await nextTask();
  }
}

// ---------------------------------------------------------------- the chapter in parts

/** What the page reads of each result: shape and values of a tensor, a fact's value (a check's kind). */
export const readable = (results) =>
  Object.fromEntries(
    Object.entries(results).map(([name, r]) => [
      name,
      'value' in r ? (typeof r.value === 'function' ? 'function' : r.value) : { shape: r.shape, values: r.values },
    ]),
  );

// One step of each section (its first), so that every split between sections is tried once.
export const firstOfSection = STEPS.filter((step, i) => i === 0 || STEPS[i - 1].section !== step.section);
