// The one error type of the API, and the checks that only JavaScript needs: the type and arity of an
// argument (a number that is an integer, a tensor, an array). What a value means is the core's to check.

/** The one error type of the API: bad input, with a message naming the operation and the argument. */
export class AttentionError extends Error {
  constructor(message) {
    super(message);
    this.name = 'AttentionError';
  }
}

/** How an unexpected value is named in a message: numbers by value, strings quoted, else its kind. */
export function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return `'${value}'`;
  if (value && value.constructor && value.constructor.name === 'Tensor') return 'a tensor';
  return typeof value;
}

// The core's integers are int64: every integral Number in [-2^63, 2^63) crosses exactly (as a float64 that
// convert.hpp turns into an int64), 2 ** 53 included. A BigInt (what Python's large ints become in the
// notebook) crosses as the nearest Number: past 2^53 every size, dim and index is out of range anyway, and a
// diagonal that far out has the same effect.
const INT64_MIN = -(2 ** 63), INT64_END = 2 ** 63;

/**
 * One integer argument (a size, dim, index or diagonal), any int64. Only the type: which integers are valid is
 * the core's to say. `expected` is what the message asks for.
 */
export function integer(op, what, value, expected = 'an integer') {
  const integral = typeof value === 'bigint' || (typeof value === 'number' && Number.isInteger(value));
  if (!integral) throw new AttentionError(`${op}: ${what} must be ${expected}, got ${describe(value)}`);
  if (value < INT64_MIN || value >= INT64_END) {
    throw new AttentionError(`${op}: ${what} must be ${expected} in [-2^63, 2^63), got ${describe(value)}`);
  }
  return Number(value);
}

/** A size (of a shape, or of a module) as an integer; the core refuses the negative ones. */
export const size = (op, what, value) => integer(op, what, value, 'a non-negative integer');

/** (...sizes) or ([sizes]) -> number[] */
export function shapeArgs(op, sizes) {
  const list = sizes.length === 1 && Array.isArray(sizes[0]) ? sizes[0] : sizes;
  return list.map((s, i) => size(op, `size at position ${i}`, s));
}

/** A probability: a number, NaN aside (the core refuses those outside [0, 1], and NaN would pass its check). */
export function probability(op, what, value) {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new AttentionError(`${op}: ${what} must be a number in [0, 1], got ${describe(value)}`);
  }
  return value;
}

/** A number argument (NaN and infinities included: the core decides what they mean). */
export function number(op, what, value) {
  if (typeof value !== 'number') throw new AttentionError(`${op}: ${what} must be a number, got ${describe(value)}`);
  return value;
}

/**
 * One of an Embind enum's values, by name: `choices` maps each name the C++ side registered to its value.
 * The message lists those names, so they are written once, in bindings.cpp.
 */
export function choice(op, what, choices, value) {
  if (typeof value === 'string' && choices.has(value)) return choices.get(value);
  const names = [...choices.keys()].map((n) => `'${n}'`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}` : names[0];
  throw new AttentionError(`${op}: ${what} must be ${list}, got ${describe(value)}`);
}

/** An Embind enum as name -> value and value -> name maps. */
export function enumNames(embindEnum) {
  const byName = new Map(), byValue = new Map();
  for (const [name, value] of Object.entries(embindEnum)) {
    if (name === 'values') continue;
    byName.set(name, value);
    byValue.set(value.value, name);
  }
  return { byName, nameOf: (value) => byValue.get(value.value) };
}
