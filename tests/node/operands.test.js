// The take-apart panel's operands (each result's operands(index), read through web/operands.js): for every
// cell of every result that declares them, each source exists, each pattern has the source's rank and stays
// inside its shape; and where a cell is a copy or a dot product, the cells named really give its value.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings } from '../../web/state.js';
import { ALL, operandsOf, matchesPattern } from '../../web/operands.js';

let torch;
before(async () => {
  torch = await loadAttention();
});

const SETTINGS = {
  book: bookSettings(),
  'd_out 4, 2 heads': { ...bookSettings(), d_out: 4, heads: 2 },
  'three words, 6 heads of 1': { ...bookSettings(), tokens: ['a', 'b', 'c'], embeddings: bookSettings().embeddings.slice(0, 3), d_out: 6, heads: 6 },
};

const cellsOf = (shape) => shape.reduce((out, n) => out.flatMap((pre) => Array.from({ length: n }, (_, i) => [...pre, i])), [[]]);
const valueAt = (values, index) => index.reduce((v, i) => v[i], values);
/** Every index of `shape` the pattern selects. */
const selected = (shape, pattern) => cellsOf(shape).filter((index) => matchesPattern(pattern, index));

for (const [what, settings] of Object.entries(SETTINGS)) {
  test(`every operand names a shown result and cells inside it (${what})`, () => {
    const results = computeChapter(torch, settings);
    const get = (name) => results[name];
    let checked = 0;
    const declaring = Object.values(results).filter((result) => result.operands);
    for (const { name, shape, operands: declared } of declaring) {
      for (const index of cellsOf(shape)) {
        const operands = operandsOf(get, name, index);
        assert.ok(operands.length > 0, `${name}[${index}] has no operands`);
        assert.equal(operands.length, declared(index).length, `${name}[${index}] names a result that is not shown`);
        for (const { name: source, pattern } of operands) {
          const shape = results[source].shape;
          assert.equal(pattern.length, shape.length, `${name}[${index}]: pattern for ${source} has rank ${pattern.length}, not ${shape.length}`);
          pattern.forEach((p, d) => {
            for (const i of p === ALL ? [] : [p].flat()) assert.ok(Number.isInteger(i) && i >= 0 && i < shape[d], `${name}[${index}]: ${source} index ${i} outside dim ${d} (${shape[d]})`);
          });
          assert.ok(selected(shape, pattern).length > 0, `${name}[${index}]: no cell of ${source} selected`);
          checked++;
        }
      }
    }
    assert.ok(declaring.length > 40, `only ${declaring.length} results declare operands`);
    assert.ok(checked > 500, `only ${checked} operand patterns checked`);
  });
}

test('a copied, scaled or dropped-out cell names the one cell it comes from', () => {
  const settings = SETTINGS['d_out 4, 2 heads'];
  const results = computeChapter(torch, settings);
  const get = (name) => results[name];
  for (const name of ['query', 'x_2', 'ex31_v1_after', 'batch', 'mha_queries_split', 'mha_context_merged', 'attn_scores_2_scaled', 'dropout_weights']) {
    const result = results[name];
    for (const index of cellsOf(result.shape)) {
      const [{ name: source, pattern }] = operandsOf(get, name, index);
      const cells = selected(results[source].shape, pattern);
      assert.equal(cells.length, 1, `${name}[${index}] names ${cells.length} cells of ${source}`);
      const from = valueAt(results[source].values, cells[0]);
      const value = valueAt(result.values, index);
      const expected = name === 'attn_scores_2_scaled' ? from / Math.sqrt(results.keys.shape[1]) : name === 'dropout_weights' && value !== 0 ? from / (1 - settings.p) : value === 0 && name === 'dropout_weights' ? 0 : from;
      assert.ok(Math.abs(value - expected) <= 1e-6 * Math.max(1, Math.abs(expected)), `${name}[${index}] = ${value}, from ${source}[${cells[0]}] = ${from}`);
    }
  }
});

test('a score cell names the two rows whose dot product it is', () => {
  const results = computeChapter(torch, SETTINGS.book);
  const get = (name) => results[name];
  for (const name of ['attn_scores', 'causal_scores', 'keys', 'all_context_vecs']) {
    const result = results[name];
    for (const index of cellsOf(result.shape)) {
      const [a, b] = operandsOf(get, name, index).map(({ name: source, pattern }) => selected(results[source].shape, pattern).map((i) => valueAt(results[source].values, i)));
      assert.equal(a.length, b.length, `${name}[${index}]: operands of different lengths`);
      const dot = a.reduce((s, v, k) => s + v * b[k], 0);
      assert.ok(Math.abs(dot - valueAt(result.values, index)) < 1e-5, `${name}[${index}] = ${valueAt(result.values, index)}, the named cells give ${dot}`);
    }
  }
});
