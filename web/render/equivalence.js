// "Two ways, one result": an equivalence the chapter states in words, with both sides computed live and
// compared bit for bit: the largest absolute difference (exactly 0 where every bit agrees), how many cells
// agree, a map of the cells that do not, and why. A step's `equivalence` data says what to compare:
//   { title, left: { code, values(results) }, right: { code, values(results) }, same, differ }
// where `same` says why the bits agree when they do and `differ` why float32 rounding can part them.
import { h, srOnly } from './dom.js';
import { flatValues } from '../compare.js';

/** The comparison itself: float32 values read as doubles, so equal bits are Object.is-equal numbers. */
export function compareSides(a, b) {
  const x = flatValues(a);
  const y = flatValues(b);
  if (x.length !== y.length) return { total: x.length, same: 0, maxDiff: Infinity, differs: x.map(() => true), lengths: [x.length, y.length] };
  const differs = x.map((v, i) => !Object.is(v, y[i])); // −0 and 0 have different bits; NaN is NaN
  // NaN against a number (or ∞ against ∞ of the other sign) is as far apart as can be
  const maxDiff = Math.max(0, ...x.map((v, i) => (differs[i] ? Math.abs(v - y[i]) : 0)).map((d) => (Number.isNaN(d) ? Infinity : d)));
  return { total: x.length, same: differs.filter((d) => !d).length, maxDiff, differs };
}

/** 5.960464477539063e-8 -> '5.96 × 10⁻⁸' (a difference is read by its size, not its digits). */
export function scientific(v) {
  if (v === 0) return '0';
  if (!Number.isFinite(v)) return String(v);
  const [m, e] = v.toExponential(2).split('e');
  const sup = String(Number(e)).replace('-', '⁻').replace(/\d/g, (d) => '⁰¹²³⁴⁵⁶⁷⁸⁹'[d]);
  return Number(e) >= -3 && Number(e) <= 3 ? String(Number(v.toPrecision(3))) : `${m} × 10${sup}`;
}

export function renderEquivalence(spec, results) {
  let left;
  let right;
  try {
    left = spec.left.values(results);
    right = spec.right.values(results);
  } catch {
    return null; // a side that these settings do not compute
  }
  const cmp = compareSides(left, right);
  const allSame = cmp.same === cmp.total;
  const cols = Array.isArray(left) ? lastLength(left) : 1;
  return h(
    'section',
    {
      class: `equivalence ${allSame ? 'is-exact' : 'is-rounded'}`,
      'aria-label': `Equivalence: ${spec.title}`,
      'data-equivalence': spec.title,
      'data-max-diff': String(cmp.maxDiff),
      'data-same': String(cmp.same),
      'data-total': String(cmp.total),
    },
    h('h3', {}, h('span', { class: 'eq-kicker' }, 'Two ways, one result? '), spec.title),
    h(
      'div',
      { class: 'eq-sides' },
      h('p', {}, h('span', { class: 'eq-side' }, 'left'), h('code', {}, spec.left.code)),
      h('p', { class: 'eq-vs', 'aria-hidden': 'true' }, 'vs'),
      h('p', {}, h('span', { class: 'eq-side' }, 'right'), h('code', {}, spec.right.code)),
    ),
    h(
      'div',
      { class: 'eq-result' },
      h(
        'p',
        { class: 'eq-diff' },
        'Largest absolute difference: ',
        h('strong', { class: 'eq-max' }, scientific(cmp.maxDiff)),
        allSame
          ? ` — every bit of all ${cmp.total} numbers agrees.`
          : ` — ${cmp.same} of ${cmp.total} numbers have the same bits; the other ${cmp.total - cmp.same} differ in the last bits of float32.`,
      ),
      allSame ? null : differenceMap(cmp.differs, cols),
    ),
    h('p', { class: 'eq-why' }, allSame ? spec.same : spec.differ),
  );
}

function lastLength(nested) {
  let node = nested;
  while (Array.isArray(node[0])) node = node[0];
  return node.length;
}

/** Every number as a square, row by row of the last dim; the ones whose bits differ are filled. */
function differenceMap(differs, cols) {
  return h(
    'div',
    { class: 'eq-map-wrap' },
    h('span', { class: 'ta-grid eq-map', 'aria-hidden': 'true', style: { '--cols': String(cols) } }, ...differs.map((d) => h('span', { class: d ? 'is-in' : '' }))),
    h('span', { class: 'eq-map-key', 'aria-hidden': 'true' }, 'filled: bits differ'),
    srOnly(`Cells whose bits differ, in row-major order: ${differs.map((d, i) => (d ? i : null)).filter((i) => i !== null).join(', ')}.`),
  );
}
