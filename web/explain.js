// "Take a number apart": for one cell of a displayed tensor, the arithmetic that produced it, with the
// actual operands. Each builder returns explain(index) -> lines of text, where index is the cell's
// position ([i] or [i, j] or [b, i, j]); the page shows the lines as text, never as HTML.

export const fmt = (v) => {
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (Number.isNaN(v)) return 'nan';
  const s = v.toFixed(4);
  return s.startsWith('-') ? `−${s.slice(1)}` : s;
};

// Row r of a 2-D nested array, or the vector itself for 1-D.
const rowOf = (nested, r) => (Array.isArray(nested[0]) ? nested[r] : nested);
const colOf = (nested, c) => nested.map((row) => (Array.isArray(row) ? row[c] : row));
const last = (index) => index[index.length - 1];
const at = (nested, index) => index.reduce((node, i) => node[i], nested);

/** out = a · b written out term by term. */
export function dotLine(name, a, b, out) {
  const terms = a.map((x, k) => `${fmt(x)}·${fmt(b[k])}`).join(' + ');
  return `${name} = ${terms} = ${fmt(out)}`;
}

/** C = A @ B (2-D, or batched with the same leading index in A, B and C). */
export function matmul(A, B, C, { name = 'c', aName = 'row', bName = 'column' } = {}) {
  return (index) => {
    const lead = index.slice(0, -2);
    const [i, j] = index.slice(-2);
    const a = rowOf(at(A, lead), i);
    const b = colOf(at(B, lead), j);
    return withUses([`${aName} ${i} · ${bName} ${j}:`, dotLine(`${name}[${index.join(',')}]`, a, b, at(C, index))], [
      { label: aName, where: String(i), values: a },
      { label: bName, where: String(j), values: b },
    ]);
  };
}

/** y = x @ W for a single vector x. */
export function vecmat(x, W, y, { name = 'y' } = {}) {
  return (index) => {
    const j = last(index);
    return [`x · column ${j} of W:`, dotLine(`${name}[${j}]`, x, colOf(W, j), y[j])];
  };
}

/** One dot product per row: out[i] = rows[i] · v. */
export function rowDots(rows, v, out, { name = 'ω' } = {}) {
  return (index) => {
    const i = last(index);
    return [dotLine(`${name}[${i}]`, rows[i], v, out[i])];
  };
}

/** softmax along the last dim: exp(x - max) / sum. */
export function softmax(X, Y) {
  return (index) => {
    const row = index.length > 1 ? at(X, index.slice(0, -1)) : X;
    const j = last(index);
    const finite = row.filter((v) => v !== -Infinity);
    const m = Math.max(...finite);
    const e = row.map((v) => (v === -Infinity ? 0 : Math.exp(v - m)));
    const s = e.reduce((a, b) => a + b, 0);
    const lines = [];
    if (row[j] === -Infinity) lines.push('masked with −∞, so exp(−∞) = 0 and the weight is 0');
    lines.push(`max of the row = ${fmt(m)}`);
    lines.push(`exp(${fmt(row[j])} − ${fmt(m)}) = ${fmt(e[j])}`);
    lines.push(`Σ exp over the row = ${e.map(fmt).join(' + ')} = ${fmt(s)}`);
    lines.push(`${fmt(e[j])} / ${fmt(s)} = ${fmt(at(Y, index))}`);
    return lines;
  };
}

/** softmax written as exp(x) / Σ exp(x), without subtracting the max (the naive version). */
export function naiveSoftmax(x, y) {
  return (index) => {
    const j = last(index);
    const e = x.map(Math.exp);
    const s = e.reduce((a, b) => a + b, 0);
    return [`exp(${fmt(x[j])}) = ${fmt(e[j])}`, `Σ exp = ${fmt(s)}`, `${fmt(e[j])} / ${fmt(s)} = ${fmt(y[j])}`];
  };
}

/** y = x / Σ x over the same row. */
export function divideBySum(X, Y) {
  return (index) => {
    const row = index.length > 1 ? at(X, index.slice(0, -1)) : X;
    const j = last(index);
    const s = row.reduce((a, b) => a + b, 0);
    return [`Σ of the row = ${row.map(fmt).join(' + ')} = ${fmt(s)}`, `${fmt(row[j])} / ${fmt(s)} = ${fmt(at(Y, index))}`];
  };
}

/** The sum of a vector, or of a row (keepdim / per-row sums). */
export function sumOf(X, out) {
  return (index) => {
    const row = Array.isArray(X[0]) ? X[last(index)] : X;
    return [`${row.map(fmt).join(' + ')} = ${fmt(Array.isArray(out) ? at(out, index) : out)}`];
  };
}

/** y = x / √d_k */
export function scale(X, Y, dk) {
  return (index) => [
    `scaled by √d_k = √${dk} = ${Math.sqrt(dk).toFixed(4)}`,
    `${fmt(at(X, index))} / ${Math.sqrt(dk).toFixed(4)} = ${fmt(at(Y, index))}`,
  ];
}

/** The context vector as a weighted sum of value rows. */
export function weightedSum(weights, values, out, { name = 'z' } = {}) {
  return (index) => {
    const lead = index.slice(0, -2);
    const i = index.length > 1 ? index[index.length - 2] : null;
    const j = last(index);
    const w = i === null ? weights : rowOf(at(weights, lead), i);
    const v = at(values, lead);
    const terms = w.map((a, k) => `${fmt(a)}·${fmt(v[k][j])}`).join(' + ');
    return withUses([`Σ_k weight_k · value_k[${j}]`, `${name}[${index.join(',')}] = ${terms} = ${fmt(at(out, index))}`], [
      { label: 'attention weights', where: i === null ? '' : `row ${i}`, values: w },
      { label: 'values', where: `column ${j}`, values: v.map((row) => row[j]) },
    ]);
  };
}

/** Elementwise product with a 0/1 mask. */
export function maskProduct(X, M, Y) {
  return (index) => [`${fmt(at(X, index))} × ${at(M, index)} = ${fmt(at(Y, index))}`];
}

/** masked_fill with −∞ above the diagonal. */
export function causalFill(X, Y) {
  return (index) => {
    const [i, j] = index.slice(-2);
    return j > i
      ? [`column ${j} is after row ${i}: a future token, filled with −∞`]
      : [`column ${j} ≤ row ${i}: kept, ${fmt(at(Y, index))}`];
  };
}

// p as typed (0.5, 0.2), not as 0.30000000000000004.
const plain = (v) => String(Number(v.toFixed(6)));

/** Position of a cell in row-major order. */
const flatIndex = (nested, index) => {
  let node = nested;
  return index.reduce((acc, i) => {
    const size = node.length;
    node = node[i];
    return acc * size + i;
  }, 0);
};

/**
 * Dropout: kept values scaled by 1/(1−p), dropped ones set to 0. With `uniforms` (default path) each cell
 * also shows the number that decided it; with profile 'mkl' it says where MKL's stream came from.
 */
export function dropout(X, Y, p, { seed = null, profile = 'default', uniforms = null } = {}) {
  const factor = 1 / (1 - p);
  const keepBelow = plain(1 - p);
  return (index) => {
    const x = at(X, index);
    const y = at(Y, index);
    if (p === 0) return [`p = 0: nothing is dropped or scaled, ${fmt(x)} stays ${fmt(y)}`];
    if (p === 1) return [`p = 1: every element is dropped, ${fmt(x)} × 0 = 0`];
    const k = flatIndex(X, index);
    const lines = [];
    let kept = y !== 0;
    if (profile === 'mkl') {
      lines.push(`MKL build: draw #1 after torch.manual_seed(${seed}) seeded MKL's own generator`);
      lines.push(`element ${k} (row-major) uses number ${k} of that stream; kept when it is below 1 − p = ${keepBelow}`);
    } else if (uniforms) {
      const u = uniforms[k];
      if (x === 0) kept = u < 1 - p; // 0 × anything is 0: only the draw tells
      lines.push(`element ${k} (row-major): draws #${2 * k + 1} and #${2 * k + 2} after torch.manual_seed(${seed}) make U ≈ ${fmt(u)}`);
      lines.push(`U ${kept ? '<' : '≥'} 1 − p = ${keepBelow}, so it is ${kept ? 'kept' : 'dropped'}`);
    }
    if (x === 0) {
      const fate = profile === 'mkl' || !uniforms ? 'kept or dropped' : kept ? 'kept and scaled' : 'dropped';
      lines.push(`the weight is already 0, so it stays 0 (${fate})`);
    } else if (kept) lines.push(`kept: ${fmt(x)} × 1/(1 − ${plain(p)}) = ${fmt(x)} × ${fmt(factor)} = ${fmt(y)}`);
    else lines.push(`dropped: ${fmt(x)} × 0 = 0`);
    return lines;
  };
}

/**
 * The default bernoulli_ path's uniforms, from torch.rand values of the same draws (two per element).
 * U = (low 21 bits of the first word · 2^32 + second word) / 2^53; torch.rand shows only the low 24 bits
 * of each word, so the second word's top 8 bits are unknown: U is exact to within 2.4e-7 (midpoint).
 */
export function doubleUniforms(rand) {
  const out = [];
  for (let k = 0; 2 * k + 1 < rand.length; k++) {
    const first = Math.round(rand[2 * k] * 2 ** 24) & 0x1fffff;
    const second = Math.round(rand[2 * k + 1] * 2 ** 24) + 127.5 * 2 ** 24;
    out.push(first / 2 ** 21 + second / 2 ** 53);
  }
  return out;
}

/** torch.rand: element k after the seed is draw number start + k. */
export function randDraws({ seed, start, shape, values }) {
  return (index) => {
    const flat = index.reduce((acc, i, d) => acc * shape[d] + i, 0);
    const v = at(values, index);
    const low24 = Math.round(v * 2 ** 24);
    return [
      `draw #${start + flat + 1} after torch.manual_seed(${seed})`,
      `the low 24 bits of that 32-bit word are ${low24}`,
      `${low24} / 2^24 = ${fmt(v)}`,
    ];
  };
}

/** nn.Linear's weight or bias: uniform(−b, b) from one draw per element. */
export function linearDraws({ seed, start, shape, values, bound, what }) {
  return (index) => {
    const flat = index.reduce((acc, i, d) => acc * shape[d] + i, 0);
    const v = at(values, index);
    const u = (v + bound) / (2 * bound);
    return [
      `${what}: draw #${start + flat + 1} after torch.manual_seed(${seed})`,
      `U = ${fmt(u)}, a uniform number in [0, 1) from that draw`,
      `U · 2b − b with b = ${fmt(bound)} (1/√in_features) = ${fmt(v)}`,
    ];
  };
}

/** A value copied from somewhere else (a view, a transpose, a reshape). */
export function copiedFrom(describe) {
  return (index) => [describe(index)];
}

/** y = x @ W.T + b, as nn.Linear computes it: one input row against one stored weight row. */
export function linear(X, W, bias, Y, { name = 'y', what = 'weight' } = {}) {
  const layer = what.split(/[ .]/)[0]; // 'out_proj' of 'out_proj.weight (…)'
  return (index) => {
    const j = last(index);
    const x = at(X, index.slice(0, -1));
    const terms = x.map((v, k) => `${fmt(v)}·${fmt(W[j][k])}`).join(' + ');
    const b = bias ? ` + ${fmt(bias[j])}` : '';
    return withUses(
      [
        `input row · row ${j} of ${what}${bias ? ` + bias[${j}]` : ''} (nn.Linear stores W transposed):`,
        `${name}[${index.join(',')}] = ${terms}${b} = ${fmt(at(Y, index))}`,
      ],
      [
        { label: 'input row', where: `[${index.slice(0, -1).join(', ')}]`, values: x },
        { label: `${layer}.weight`, where: `row ${j} of ${W.length}`, values: W[j] },
        bias ? { label: `${layer}.bias`, where: `entry ${j} of ${bias.length}`, values: [bias[j]] } : null,
      ],
    );
  };
}

/**
 * Lines that also carry the numbers they use (a module's weights, the rows and columns of a product): the
 * take-apart panel writes out those that its operands do not already show, so that every number in the
 * lines is on screen. `uses` entries are { label, where, values }.
 */
export function withUses(lines, uses) {
  return Object.assign(lines, { uses: uses.filter(Boolean) });
}

/** A cell of a causal mask: `keep` is the value that lets a token see another (1 for tril, 0 for triu). */
export function causalMaskCell(keep) {
  return (index) => {
    const [i, j] = index.slice(-2);
    return j > i
      ? [`column ${j} is a later token than row ${i}: ${keep ? 0 : 1} (hidden)`]
      : [`column ${j} is not later than row ${i}: ${keep} (visible)`];
  };
}

// ---------------------------------------------------------------- for the steps' notes

/** The largest |a − b| over two same-shaped nested arrays (or numbers). */
export function maxAbsDiff(a, b) {
  const x = [a].flat(Infinity);
  const y = [b].flat(Infinity);
  return x.reduce((m, v, i) => Math.max(m, Math.abs(v - y[i])), 0);
}

/** 'identical to the last bit', 'equal to within 6.0e-8', or (a NaN on one side) why they cannot be compared. */
export function closeness(d) {
  if (Number.isNaN(d)) return 'not comparable: one of them holds NaN (an e^x that overflowed to ∞, and ∞/∞ is NaN)';
  return d === 0 ? 'identical to the last bit' : `equal to within ${d.toExponential(1)}`;
}

/** Python's spelling of a boolean, as torch.allclose prints it. */
export const py = (b) => (b ? 'True' : 'False');
