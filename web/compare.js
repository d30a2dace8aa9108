// Does a live tensor match what the book printed? Compares every value at the precision it was printed
// with (so 0.1455 matches anything that rounds to it), after reading the numbers out of PyTorch's text.

/** The numbers in a printed tensor, with the decimals each was printed with. */
export function parsePrinted(text) {
  const body = text.split('grad_fn')[0].split('requires_grad')[0];
  const numbers = [];
  for (const m of body.matchAll(/-?inf|nan|-?\d+\.\d*/g)) {
    const s = m[0];
    if (s === 'nan') numbers.push({ value: NaN, decimals: 0, text: s });
    else if (s.endsWith('inf')) numbers.push({ value: s.startsWith('-') ? -Infinity : Infinity, decimals: 0, text: s });
    else numbers.push({ value: Number(s), decimals: s.length - s.indexOf('.') - 1, text: s });
  }
  return numbers;
}

/** Whether a live value rounds to a printed number (printed with its decimals). */
function roundsTo(live, { value, decimals }) {
  if (Number.isNaN(value)) return Number.isNaN(live);
  if (!Number.isFinite(value)) return live === value;
  return Number(live.toFixed(decimals)) === value;
}

/**
 * Cell by cell, in row-major order: the number the book prints there and whether the live value rounds to
 * it; null when the printout holds another count of numbers (another shape: nothing to pair).
 */
export function bookCells(values, bookText) {
  const printed = parsePrinted(bookText);
  const live = flatValues(values).map(Number);
  if (printed.length !== live.length) return null;
  return printed.map((p, i) => ({ printed: p.text, matches: roundsTo(live[i], p) }));
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
  return printed.every((p, i) => roundsTo(live[i], p));
}
