// Does a live tensor match what the book printed? Compares every value at the precision it was printed
// with (so 0.1455 matches anything that rounds to it), after reading the numbers out of PyTorch's text.
import { DiagnoseError, parsePrinted as readPrinted, printsAs } from '../diagnose/parse.js';

/**
 * The numbers in a printed tensor, each with its text and the decimals it was printed with; none where the
 * text is not a tensor (a torch.Size, True). Read by diagnose/parse.js, the one reader of PyTorch's printouts.
 */
export function parsePrinted(text) {
  try {
    const printed = readPrinted(text);
    return printed.kind === 'tensor' ? printed.numbers : [];
  } catch (error) {
    if (error instanceof DiagnoseError) return [];
    throw error;
  }
}

/**
 * Cell by cell, in row-major order: the number the book prints there and whether the live value rounds to
 * it; null when the printout holds another count of numbers (another shape: nothing to pair).
 */
export function bookCells(values, bookText) {
  const printed = parsePrinted(bookText);
  const live = flatValues(values).map(Number);
  if (printed.length !== live.length) return null;
  return printed.map((p, i) => ({ printed: p.text, matches: printsAs(live[i], p) }));
}

/** Row-major numbers of a nested array (or a single number). */
export function flatValues(values) {
  return Array.isArray(values) ? values.flat(Infinity) : [values];
}

/** True when every live value rounds to the printed one. */
export function matchesBook(values, bookText) {
  const printed = parsePrinted(bookText);
  const live = flatValues(values).map(Number);
  if (printed.length !== live.length) return false;
  return printed.every((p, i) => printsAs(live[i], p));
}
