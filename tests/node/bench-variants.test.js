// The bench page's bonus replay (web/bench/variants.js): every way of computing the same multi-head attention,
// built from one set of random weights through the API, gives the chapter's MultiHeadAttention's output; the
// comparison is sharp enough to catch a weight copied to the wrong place; the data the page shows is complete.
// Small sizes (odd token counts, a head_dim that is not 64, and one past the fast path's 64 tokens), both builds.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { PUBLISHED, REFERENCE, SIZES, VARIANTS, largestDifference, replayInputs } from '../../web/bench/variants.js';
import { replaySizes } from '../../web/bench/replay.js';
import { loadBuilds } from './support.mjs';

const SAME_WITHIN = 1e-5; // what the page and the e2e test accept

const CASES = [
  { batch: 2, tokens: 7, dIn: 12, dOut: 12, heads: 3 },
  { batch: 1, tokens: 5, dIn: 10, dOut: 8, heads: 2 }, // d_in ≠ d_out: the einsum's and wrapper's shapes differ
  { batch: 2, tokens: 70, dIn: 32, dOut: 48, heads: 3 }, // head_dim 16; 70 tokens: 'auto' would take the fast path
];

const sizeName = (s) => `${s.batch} × ${s.tokens} × ${s.dIn} → ${s.dOut}, ${s.heads} heads`;

/** Every variant's output at one size, seeded as the page seeds it. */
function outputs(torch, size, seed) {
  const { weights, x } = replayInputs(torch, size, seed);
  return { weights, x, ys: new Map(VARIANTS.map((v) => [v.id, v.build(torch, weights, size)(x)])) };
}

for (const [flavour, torch] of await loadBuilds()) {
  describe(`bonus replay variants (${flavour})`, () => {
    for (const size of CASES) {
      test(`every variant gives the chapter’s MultiHeadAttention output: ${sizeName(size)}`, () => {
        const { ys } = outputs(torch, size, 123);
        const reference = ys.get(REFERENCE);
        assert.deepEqual(reference.shape, [size.batch, size.tokens, size.dOut]);
        const values = reference.data;
        assert.ok(values.every(Number.isFinite), 'the reference is finite');
        assert.ok(Math.max(...values.map(Math.abs)) > 0.01, 'the reference is not all zeros');
        for (const v of VARIANTS) {
          const d = largestDifference(ys.get(v.id), reference);
          assert.ok(d <= SAME_WITHIN, `${v.id}: largest difference ${d}`);
          // and with each other, not only with the reference
          for (const w of VARIANTS) {
            const e = largestDifference(ys.get(v.id), ys.get(w.id));
            assert.ok(e <= 2 * SAME_WITHIN, `${v.id} against ${w.id}: ${e}`);
          }
        }
      });
    }

    test('another seed gives other outputs, and the variants still agree', () => {
      const size = CASES[0];
      const a = outputs(torch, size, 123).ys, b = outputs(torch, size, 7).ys;
      assert.ok(largestDifference(a.get(REFERENCE), b.get(REFERENCE)) > 1e-3, 'the seed matters');
      for (const v of VARIANTS) assert.ok(largestDifference(b.get(v.id), b.get(REFERENCE)) <= SAME_WITHIN, v.id);
    });

    test('the check is sharp: weights copied to the wrong place give a large difference', () => {
      const size = CASES[0];
      const { weights, x, ys } = outputs(torch, size, 123);
      const reference = ys.get(REFERENCE);
      const headDim = size.dOut / size.heads;
      // heads 0 and 1 of W_query swapped: the attention of those heads changes
      const q = weights.W_query;
      const swapped = torch.cat([q.slice(0, headDim, 2 * headDim), q.slice(0, 0, headDim), q.slice(0, 2 * headDim)], 0);
      const wrong = [
        ['two heads of W_query swapped', { ...weights, W_query: swapped }],
        ['W_key and W_value exchanged', { ...weights, W_key: weights.W_value, W_value: weights.W_key }],
        ['W_query transposed', { ...weights, W_query: q.T.contiguous() }],
      ];
      for (const v of VARIANTS) {
        for (const [what, w] of wrong) {
          const d = largestDifference(v.build(torch, w, size)(x), reference);
          assert.ok(d > 1e-3, `${v.id} with ${what}: largest difference only ${d}`);
        }
      }
    });

    test('the fused fast path at 64 tokens and more gives its own bits, the chapter’s class PyTorch’s steps', () => {
      const size = CASES[2];
      const { ys } = outputs(torch, size, 123);
      const fused = ys.get('fused').data, chapter = ys.get(REFERENCE).data;
      // different arithmetic order: not the same bits everywhere, yet within the tolerance (above)
      assert.ok(fused.some((value, i) => value !== chapter[i]), 'the fast path is not the exact path in disguise');
    });
  });
}

test('the data the page shows: unique ids, a sentence and code for each, every published row mapped', () => {
  const ids = VARIANTS.map((v) => v.id);
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.includes(REFERENCE));
  for (const v of VARIANTS) {
    for (const key of ['name', 'code', 'plain', 'why']) assert.ok(typeof v[key] === 'string' && v[key].length > 10, `${v.id}.${key}`);
    assert.equal(typeof v.build, 'function');
  }
  // the notebook's eight CPU times, as published, each beside a variant here
  assert.deepEqual(PUBLISHED.rows.map((r) => r.ms), [179, 166, 190, 196, 110, 99.5, 198, 168]);
  for (const row of PUBLISHED.rows) assert.ok(ids.includes(row.variant), `${row.name} → ${row.variant}`);
  for (const v of VARIANTS) assert.ok(PUBLISHED.rows.some((r) => r.variant === v.id), `${v.id} has a published time`);
  assert.deepEqual(SIZES.notebook, { batch: 8, tokens: 1024, dIn: 768, dOut: 768, heads: 12 });
  assert.deepEqual(SIZES.quick, { ...SIZES.notebook, batch: 1 });
});

test('?replay-tokens= shortens both sizes, and only to a whole number of tokens from 1 to 1024', () => {
  const sizes = (query) => replaySizes(new URLSearchParams(query));
  assert.equal(sizes('replay-tokens=32').quick.tokens, 32);
  assert.equal(sizes('replay-tokens=32').notebook.batch, 8);
  assert.equal(sizes('replay-tokens=32').notebook.tokens, 32);
  for (const bad of ['', 'replay-tokens=0', 'replay-tokens=1025', 'replay-tokens=2.5', 'replay-tokens=x']) {
    assert.deepEqual(sizes(bad), { quick: SIZES.quick, notebook: SIZES.notebook }, bad);
  }
});
