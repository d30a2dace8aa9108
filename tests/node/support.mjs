// What the Node tests share: float32 bit patterns and their hex words, both WebAssembly builds, and reading
// PyTorch's printouts (the page's own parser, web/compare.js).
import { loadAttention } from '../../wasm/index.js';

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
