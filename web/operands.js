// Where a cell's numbers come from: for a result of computeChapter() and the index of one of its cells, the
// cells of other results that went into it. The take-apart panel draws each source with those cells marked
// and outlines them where the source is on the same step.
//
// OPERANDS[name](index, get) -> [[sourceName, pattern], ...]. A pattern has one entry per dim of the
// source: a number (that index), ALL (every index) or an array of indices; e.g. ['inputs', [i, ALL]] is
// row i of inputs. Results without an entry are given, drawn or copied as they are (or their operands are
// internal to a module and not shown anywhere).

export const ALL = null;

const upTo = (i) => Array.from({ length: i + 1 }, (_, k) => k);
const row = (name, i) => [name, [i, ALL]];
const col = (name, j) => [name, [ALL, j]];
const same = (name, index) => [name, index];
const whole = (name, ndim) => [name, Array(ndim).fill(ALL)];
// the query token of 3.3.1 and 3.4.1: x(2), or x(1) when it is the only one
const queryRow = (get) => (get('inputs').shape[0] > 1 ? 1 : 0);

export const OPERANDS = {
  dot_x1_x2: () => [whole('x1', 1), whole('x2', 1)],
  query: ([j], get) => [['inputs', [queryRow(get), j]]],
  attn_scores_2: ([i]) => [row('inputs', i), whole('query', 1)],
  attn_weights_2_tmp: () => [whole('attn_scores_2', 1)],
  attn_weights_2_tmp_sum: () => [whole('attn_weights_2_tmp', 1)],
  attn_weights_2_naive: () => [whole('attn_scores_2', 1)],
  attn_weights_2_naive_sum: () => [whole('attn_weights_2_naive', 1)],
  attn_weights_2: () => [whole('attn_scores_2', 1)],
  attn_weights_2_sum: () => [whole('attn_weights_2', 1)],
  context_vec_2: ([j]) => [whole('attn_weights_2', 1), col('inputs', j)],

  attn_scores_loop: ([i, j]) => [row('inputs', i), row('inputs', j)],
  attn_scores: ([i, j]) => [row('inputs', i), row('inputs', j)],
  attn_weights: ([i]) => [row('attn_scores', i)],
  attn_weights_row_sums: ([i]) => [row('attn_weights', i)],
  all_context_vecs: ([i, j]) => [row('attn_weights', i), col('inputs', j)],

  x_2: ([j], get) => [['inputs', [queryRow(get), j]]],
  query_2: ([j]) => [whole('x_2', 1), col('W_query', j)],
  key_2: ([j]) => [whole('x_2', 1), col('W_key', j)],
  value_2: ([j]) => [whole('x_2', 1), col('W_value', j)],
  keys: ([i, j]) => [row('inputs', i), col('W_key', j)],
  values: ([i, j]) => [row('inputs', i), col('W_value', j)],
  attn_score_22: (_, get) => [whole('query_2', 1), row('keys', queryRow(get))],
  attn_scores_2_qk: ([i]) => [whole('query_2', 1), row('keys', i)],
  attn_scores_2_scaled: ([i]) => [['attn_scores_2_qk', [i]]],
  attn_weights_2_qk: () => [whole('attn_scores_2_scaled', 1)],
  context_vec_2_qk: ([j]) => [whole('attn_weights_2_qk', 1), col('values', j)],

  ex31_v1_after: ([i, j]) => [['ex31_v2_W_query', [j, i]]],

  causal_scores: ([i, j]) => [row('causal_queries', i), row('causal_keys', j)],
  causal_weights: ([i]) => [row('causal_scores', i)],
  masked_simple: (index) => [same('causal_weights', index), same('mask_simple', index)],
  masked_simple_norm: ([i]) => [row('masked_simple', i)],
  masked_scores: (index) => [same('causal_scores', index), same('causal_mask', index)],
  causal_attn_weights: ([i]) => [['masked_scores', [i, upTo(i)]]],
  dropout_weights: (index) => [same('causal_attn_weights', index)],

  batch: ([, i, j]) => [['inputs', [i, j]]],
  ca_context_vecs: ([b, i]) => [['batch', [b, upTo(i), ALL]]],

  bmm_out: ([b, hd, i, j]) => [['bmm_a', [b, hd, i === j ? i : [i, j], ALL]]],
  bmm_first_head: ([i, j]) => [['bmm_a', [0, 0, i === j ? i : [i, j], ALL]]],
  bmm_second_head: ([i, j]) => [['bmm_a', [0, 1, i === j ? i : [i, j], ALL]]],

  mha_queries_split: ([b, hd, t, j], get) => {
    const width = get('mha_queries_split').shape[3];
    return [['mha_queries', [b, t, hd * width + j]]];
  },
  mha_scores: ([b, hd, i]) => [['mha_queries_split', [b, hd, i, ALL]]],
  mha_weights: ([b, hd, i]) => [['mha_scores', [b, hd, i, upTo(i)]]],
  mha_context_heads: ([b, hd, i]) => [['mha_weights', [b, hd, i, upTo(i)]]],
  mha_context_merged: ([b, t, c], get) => {
    const width = get('mha_context_heads').shape[3];
    return [['mha_context_heads', [b, Math.floor(c / width), t, c % width]]];
  },
  mha_out: ([b, t]) => [['mha_context_merged', [b, t, ALL]]],
};

/** The operands of one cell: [{ name, pattern }] for the sources that exist; get(name) is a result or undefined. */
export function operandsOf(get, name, index) {
  const make = OPERANDS[name];
  if (!make) return [];
  return make(index, get)
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
