// Where a cell's numbers come from: each result of computeChapter() may declare, beside its explain(),
// operands(index) -> [[sourceName, pattern], ...], the cells of other results that went into the cell at
// `index`. The take-apart panel draws each source with those cells marked and outlines them where the
// source is on the same step. A pattern has one entry per dim of the source: a number (that index), ALL
// (every index) or an array of indices; e.g. row('inputs', i) = ['inputs', [i, ALL]]. Results without
// operands are given, drawn or copied as they are (or their operands are internal to a module and not
// shown anywhere).

export const ALL = null;

/** The indices 0..i: a causal row's keys. */
export const upTo = (i) => Array.from({ length: i + 1 }, (_, k) => k);
export const row = (name, i) => [name, [i, ALL]];
export const col = (name, j) => [name, [ALL, j]];
/** The cell at the same index of a source of the same shape. */
export const same = (name, index) => [name, index];
export const whole = (name, ndim) => [name, Array(ndim).fill(ALL)];

/** The operands of one cell: [{ name, pattern }] for the sources that exist; get(name) is a result or undefined. */
export function operandsOf(get, name, index) {
  const operands = get(name)?.operands;
  if (!operands) return [];
  return operands(index)
    .filter(([source]) => get(source)?.shape)
    .map(([source, pattern]) => ({ name: source, pattern }));
}

/** Whether the cell at `index` is one of the pattern's. */
export function matchesPattern(pattern, index) {
  return pattern.length === index.length && pattern.every((p, d) => p === ALL || (Array.isArray(p) ? p.includes(index[d]) : p === index[d]));
}

/** The pattern in words, with the source's axis labels: 'row 1 (“journey”)', 'column 2', 'all of it'. */
export function describePattern(pattern, result) {
  const n = pattern.length;
  const fixedLead = pattern.slice(0, Math.max(0, n - 2));
  const [r, c] = n >= 2 ? pattern.slice(-2) : [undefined, pattern[0]];
  const label = (labels, i) => (Array.isArray(labels) && labels[i] !== undefined ? ` (“${labels[i]}”)` : '');
  const list = (p, labels, one, many) =>
    Array.isArray(p) ? (p.length === 1 ? `${one} ${p[0]}${label(labels, p[0])}` : `${many} ${p.length > 2 && p.every((v, k) => v === k) ? `0–${p.at(-1)}` : p.join(' and ')}`) : `${one} ${p}${label(labels, p)}`;
  const parts = [];
  if (fixedLead.length) parts.push(`[${fixedLead.map((p) => (p === ALL ? ':' : p)).join(', ')}]`);
  if (n === 1) parts.push(c === ALL ? 'all of it' : list(c, result.cols, 'entry', 'entries'));
  else if (r === ALL && c === ALL) parts.push('all of it');
  else if (c === ALL) parts.push(list(r, result.rows, 'row', 'rows'));
  else if (r === ALL) parts.push(list(c, result.cols, 'column', 'columns'));
  else parts.push(`${list(r, result.rows, 'row', 'rows')}, ${list(c, result.cols, 'column', 'columns')}`);
  return parts.join(' ');
}
