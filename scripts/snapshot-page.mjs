// Everything the walk-through shows, as JSON, for refactoring with a before/after diff: under several
// settings, every result's values, labels, shape, marks, take-apart lines and operands for every cell, and
// every step's title, prose, formula, note, mistakes and equivalences as text. The PyTorch scripts are kept
// apart (--scripts) since they are allowed to change on their own.
//
//   node scripts/snapshot-page.mjs > before.json   (then change things)
//   node scripts/snapshot-page.mjs > after.json && cmp before.json after.json
import { loadAttention } from '../wasm/index.js';
import { computeChapter } from '../web/chapter/index.js';
import { STEPS } from '../web/steps/index.js';
import { resolveStep } from '../web/steps/words.js';
import { bookSettings } from '../web/state.js';
import { operandsOf } from '../web/operands.js';
import { indexTuples } from '../web/render/dom.js';
import { scriptForStep } from '../web/notebook/chapter-cells.js';

const book = bookSettings();
const SETTINGS = {
  book,
  other: { ...book, seed: 7, seedV2: 1, d_out: 4, heads: 4, p: 0.2, qkv_bias: true, profile: 'mkl',
    tokens: ['the', 'cat', 'sat', 'on', 'a', 'mat'],
    embeddings: [[0.1, 0.2, 0.3], [0.9, 0.8, 0.7], [0.25, 0.5, 0.75], [1, 0, 0.5], [0.05, 0.95, 0.4], [0.6, 0.3, 0.1]] },
  four: { ...book, d_out: 6, heads: 3, context_length: 10, tokens: ['we', 'read', 'the', 'book'],
    embeddings: [[0.1, -0.2, 0.3, 0.4, 0.5], [1.5, 0.25, -1, 0, 2], [0.3, 0.3, 0.3, 0.3, 0.3], [-0.7, 0.8, 0.05, 0.6, -0.1]] },
  one: { ...book, tokens: ['alone'], embeddings: [[0.6, -0.4]], p: 0 },
  randn: { ...book, inputs: 'randn', inputSeed: 42, d_out: 4, tokens: ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
    embeddings: Array.from({ length: 7 }, () => [0, 0, 0, 0]) },
  rejected: { ...book, d_out: 3, heads: 2 },
};

const scripts = process.argv.includes('--scripts');
const torch = await loadAttention();
// Plain data, with every function in it called as the page calls step functions: f(results, settings).
const evaluate = (v, results, settings) => {
  if (typeof v === 'function') return safe(() => evaluate(v(results, settings), results, settings));
  if (Array.isArray(v)) return v.map((x) => evaluate(x, results, settings));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, evaluate(x, results, settings)]));
  return v ?? null;
};
const out = {};
for (const [label, settings] of Object.entries(SETTINGS)) {
  if (scripts) {
    out[label] = Object.fromEntries(STEPS.map((s) => [s.id, scriptForStep(s.id, settings)]));
    continue;
  }
  let results;
  try {
    results = computeChapter(torch, settings);
  } catch (error) {
    out[label] = { error: error.message, settings: error.settings };
    continue;
  }
  const get = (name) => results[name];
  const snap = { results: {}, steps: {} };
  for (const [name, r] of Object.entries(results)) {
    if (!r.shape) { snap.results[name] = { value: r.value, label: r.label ?? null }; continue; }
    const cells = {};
    for (const index of indexTuples(r.shape)) {
      cells[index.join(',')] = {
        mark: r.marks?.(index) ?? null,
        explain: r.explain ? safe(() => r.explain(index)) : null,
        operands: operandsOf(get, name, index),
      };
    }
    snap.results[name] = { label: r.label, shape: r.shape, values: r.values, rows: r.rows ?? null, cols: r.cols ?? null,
      axes: r.axes ?? null, book: r.book, cells };
  }
  for (const step of STEPS) {
    const s = resolveStep(step, settings);
    snap.steps[step.id] = {
      title: s.title, prose: s.prose, formula: s.formula ?? null, show: s.show, view: s.view ?? null,
      ...evaluate({ note: s.note, mistakes: s.mistakes, equivalence: s.equivalence, layout: s.layout, controls: s.controls,
        recap: s.recap, query: s.query }, results, settings),
    };
  }
  out[label] = snap;
}
process.stdout.write(JSON.stringify(out, null, 1));

function safe(f) {
  try {
    return f();
  } catch (error) {
    return `throws ${error.message}`;
  }
}
