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
export function compareResult(result, paste) {
  if (!result?.shape) return null;
  const parts = partsOfShape(result.shape, paste.shape);
  if (parts.length === 0) return null;
  if (paste.kind === 'size') return { at: [], equal: 1, total: 1, first: null, matches: null };
  const flat = result.shape.length === 0 ? [result.values] : result.values.flat(Infinity);
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
