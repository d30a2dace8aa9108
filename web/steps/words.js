// Sizes in a step's text, written from the settings: "six tokens", "a 6 × 3 tensor". A step's title, prose
// (or any paragraph of it) and formula may be functions of the settings; resolveStep() turns them into text.
import { queryIndex } from '../state.js';

const NAMES = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];

/** 6 -> 'six', 14 -> '14'. */
export const count = (n) => NAMES[n] ?? String(n);

/** The number of words and of numbers per word. */
export const sizes = (s) => ({ n: s.tokens.length, d: s.embeddings[0]?.length ?? 0 });

/** '6 tokens' style with the right plural: plural(1, 'token') -> 'one token'. */
export const plural = (n, noun) => `${count(n)} ${noun}${n === 1 ? '' : 's'}`;

/** '6 tokens' in digits, for the notes that print counts: counted(1, 'token') -> '1 token'. */
export const counted = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** 'all six keys', or 'the one key' for a single word. */
export const allOf = (n, noun) => (n === 1 ? `the one ${noun}` : `all ${count(n)} ${noun}s`);

/** 'six tokens' -> 'Six tokens'. */
export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** The step with its title, prose and formula as text for these settings (the step itself when nothing varies). */
export function resolveStep(step, settings) {
  const text = (v) => (typeof v === 'function' ? v(settings) : v);
  const varies = [step.title, step.formula, ...[step.prose ?? []].flat(), step.prose].some((v) => typeof v === 'function');
  if (!varies) return step;
  return { ...step, title: text(step.title), formula: text(step.formula), prose: [text(step.prose) ?? []].flat().map(text) };
}

const ORDINALS = ['first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth', 'eleventh',
  'twelfth', 'thirteenth', 'fourteenth', 'fifteenth', 'sixteenth'];

/**
 * The query of the one-query steps as their text names it: i (1-based: the book's 2), x ('x(2)'), its word,
 * nth ('second') and row (its 0-based row, as the code indexes it).
 */
export function theQuery(s) {
  const row = queryIndex(s);
  return { i: row + 1, row, x: `x(${row + 1})`, word: s.tokens[row], nth: ORDINALS[row] ?? `${row + 1}th` };
}

/** `query = inputs[1]`: the line that picks the query row, naming the word when it is not the book's x(2). */
export function queryLine(name, s) {
  const { row, x, word } = theQuery(s);
  return `${name} = inputs[${row}]${row === 1 ? '' : `  # ${x}, “${word}”, as the query`}`;
}
