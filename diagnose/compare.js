// A pasted printout against one result: the result as a whole, or any part of it that has the paste's shape
// (one copy of a stacked batch, one head, one row), each number compared at the precision it was printed with.
import { printsAs } from './parse.js';

const withoutLeadingOnes = (shape) => {
  let i = 0;
  while (i < shape.length - 1 && shape[i] === 1) i++;
  return shape.slice(i);
};
const product = (dims) => dims.reduce((a, b) => a * b, 1);

/** The index prefixes of the parts of `shape` that have the shape `wanted` (leading 1s aside). */
export function partsOfShape(shape, wanted) {
  const target = withoutLeadingOnes(wanted).join();
  const parts = [];
  const lastPrefix = shape.length === 0 ? 0 : shape.length - 1;
  for (let p = 0; p <= lastPrefix; p++) {
    if (withoutLeadingOnes(shape.slice(p)).join() !== target) continue;
    const outer = shape.slice(0, p);
    for (let b = 0; b < product(outer); b++) {
      const at = [];
      let rest = b;
      for (let d = outer.length - 1; d >= 0; d--) {
        at.unshift(rest % outer[d]);
        rest = Math.floor(rest / outer[d]);
      }
      parts.push({ at, start: b * product(shape.slice(p)), size: product(shape.slice(p)), inner: shape.slice(p) });
    }
  }
  return parts;
}

// A block's flat index -> its index in the result.
const unflatten = (flat, dims) => {
  const index = [];
  for (let d = dims.length - 1; d >= 0; d--) {
    index.unshift(flat % dims[d]);
    flat = Math.floor(flat / dims[d]);
  }
  return index;
};

/**
 * The best part of `result` against `paste` (from parsePrinted): { at, equal, total, first, matches } where `at`
 * is the index prefix of the part ([] for the whole), `first` the first cell that differs, { index, yours, ours },
 * or null, and `matches` whether each pasted number is equal (null for a torch.Size). Null when no part has the paste's shape.
 */
export function compareResult(result, paste, headWidth = null) {
  if (!result?.shape) return null;
  const whole = compareParts(result.shape, () => (result.shape.length === 0 ? [result.values] : result.values.flat(Infinity)), paste);
  if ((whole && whole.equal === whole.total) || !headWidth || result.shape.length === 0) return whole;
  const heads = headsView(result, headWidth);
  if (!heads) return whole;
  const one = compareParts(heads.shape, heads.flat, paste, 1);
  if (!one || (whole && whole.equal >= one.equal)) return whole;
  // one head's columns, [..., h*w:(h+1)*w]: `at` is then the part of that slice
  const [h, ...at] = one.at;
  return { ...one, at, columns: [h * headWidth, (h + 1) * headWidth], first: one.first && { ...one.first, index: columnIndex(one.first.index, headWidth) } };
}

// A result whose last dimension puts heads of `width` columns side by side, as [heads, ...outer, width].
function headsView(result, width) {
  const shape = result.shape;
  const last = shape[shape.length - 1];
  if (last <= width || last % width !== 0) return null;
  const count = last / width;
  const outer = shape.slice(0, -1);
  return {
    shape: [count, ...outer, width],
    flat: () => {
      const flat = result.values.flat(Infinity);
      const rows = product(outer);
      const out = new Array(flat.length);
      for (let h = 0; h < count; h++) for (let r = 0; r < rows; r++) for (let j = 0; j < width; j++) out[(h * rows + r) * width + j] = flat[r * last + h * width + j];
      return out;
    },
  };
}
// An index in the head view, [h, ...outer, j], as an index in the result.
const columnIndex = ([h, ...rest], width) => [...rest.slice(0, -1), h * width + rest[rest.length - 1]];

// The best of the parts of `shape` (from `minPrefix` index dimensions on) against the paste.
function compareParts(shape, flatOf, paste, minPrefix = 0) {
  const parts = partsOfShape(shape, paste.shape).filter((p) => p.at.length >= minPrefix);
  if (parts.length === 0) return null;
  if (paste.kind === 'size') return { at: [], equal: 1, total: 1, first: null, matches: null };
  const flat = flatOf();
  let best = null;
  for (const part of parts) {
    let equal = 0;
    let first = null;
    const matches = [];
    for (let i = 0; i < part.size; i++) {
      const ours = Number(flat[part.start + i]);
      matches.push(printsAs(ours, paste.numbers[i]));
      if (matches[i]) equal++;
      else first ??= { index: [...part.at, ...unflatten(i, part.inner)], yours: paste.numbers[i].text, ours };
    }
    if (!best || equal > best.equal) best = { at: part.at, equal, total: part.size, first, matches };
    if (equal === part.size) break;
  }
  return best;
}
