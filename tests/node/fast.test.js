// The fast path through the JS API: setAttentionPath, the rule that picks the path, the fast path against
// the exact one at the same sizes (a size-scaled tolerance), attentionWeights (the exact path's bits), and
// GPT-2 size against PyTorch (tests/golden/gpt2_mha.json; SIMD build only, to keep the run short).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { AttentionError } from '../../wasm/index.js';
import { bitsOf, bitsOfFloat, floatsOfHex, loadBuilds, wordsOfHex } from './support.mjs';

const EPS = 2 ** -23; // float32 epsilon
const gpt2 = JSON.parse(readFileSync(new URL('../golden/gpt2_mha.json', import.meta.url), 'utf8'));
function maxError(got, want) {
  let err = 0, scale = 0;
  for (let i = 0; i < want.length; i++) {
    err = Math.max(err, Math.abs(got[i] - want[i]));
    scale = Math.max(scale, Math.abs(want[i]));
  }
  return { err, scale };
}

for (const [flavour, torch] of await loadBuilds()) {
  describe(`fast path (${flavour})`, () => {

    test('setAttentionPath takes auto, exact or fast and returns the module', () => {
      const mha = new torch.MultiHeadAttention(8, 8, 70, 0.0, 2);
      assert.equal(mha.setAttentionPath('fast'), mha);
      assert.throws(() => mha.setAttentionPath('flash'), (e) => e instanceof AttentionError &&
        e.message === "setAttentionPath: path must be 'auto', 'exact' or 'fast', got 'flash'");
      assert.equal(new torch.SelfAttention_v1(3, 2).setAttentionPath('exact').d_out, 2); // no attention path: no-op
    });

    test('fast and exact agree within a size-scaled tolerance (batch 2, 3 heads, 100 tokens)', () => {
      torch.manualSeed(123);
      const [b, T, d, heads] = [2, 100, 36, 3];
      const mha = new torch.MultiHeadAttention(d, d, T, 0.0, heads, true);
      const x = torch.rand(b, T, d);
      const exact = mha.setAttentionPath('exact').forward(x).data;
      const fast = mha.setAttentionPath('fast').forward(x).data;
      const { err, scale } = maxError(fast, exact);
      assert.ok(err <= 4 * EPS * (T + d) * Math.max(1, scale), `max |fast - exact| = ${err}`);
      assert.ok(err > 0, 'the fast path ran');
      // CausalAttention (2-D input) and the wrapper, through the wrapper's own setAttentionPath
      const ca = new torch.CausalAttention(d, 8, T, 0.0);
      const x2 = x.at(0);
      const caErr = maxError(ca.setAttentionPath('fast').forward(x2).data, ca.setAttentionPath('exact').forward(x2).data);
      assert.ok(caErr.err <= 4 * EPS * T * Math.max(1, caErr.scale), `CausalAttention: ${caErr.err}`);
      const wrapper = new torch.MultiHeadAttentionWrapper(d, 4, T, 0.0, 2);
      const wErr = maxError(wrapper.setAttentionPath('fast').forward(x).data, wrapper.setAttentionPath('exact').forward(x).data);
      assert.ok(wErr.err > 0 && wErr.err <= 4 * EPS * T * Math.max(1, wErr.scale), `wrapper: ${wErr.err}`);
    });

    test("the rule: 'auto' is exact below 64 tokens and whenever dropout is active", () => {
      torch.manualSeed(7);
      const mha = new torch.MultiHeadAttention(16, 16, 80, 0.5, 4).eval();
      const x63 = torch.rand(1, 63, 16);
      const x64 = torch.rand(1, 64, 16);
      assert.deepEqual(bitsOf(mha.forward(x63)), bitsOf(mha.setAttentionPath('exact').forward(x63)));
      assert.deepEqual(bitsOf(mha.setAttentionPath('auto').forward(x64)), bitsOf(mha.setAttentionPath('fast').forward(x64)));
      assert.notDeepEqual(bitsOf(mha.setAttentionPath('auto').forward(x64)), bitsOf(mha.setAttentionPath('exact').forward(x64)));
      mha.train().setAttentionPath('fast'); // dropout 0.5 draws: the exact path, whatever was asked
      torch.manualSeed(3);
      const forced = bitsOf(mha.forward(x64));
      torch.manualSeed(3);
      assert.deepEqual(bitsOf(mha.setAttentionPath('exact').forward(x64)), forced);
    });

    test("attentionWeights: one head's first rows, the exact path's bits", () => {
      torch.manualSeed(21);
      const [b, T, d, heads] = [2, 70, 24, 3];
      const hd = d / heads;
      const mha = new torch.MultiHeadAttention(d, d, T, 0.0, heads, true);
      const x = torch.rand(b, T, d);
      const split = (t) => t.view(b, T, heads, hd).transpose(1, 2);
      const scores = split(mha.W_query.forward(x)).matmul(split(mha.W_key.forward(x)).transpose(2, 3));
      const future = torch.triu(torch.ones(T, T), 1).bool();
      const weights = torch.softmax(scores.maskedFill(future, -Infinity).div(hd ** 0.5), -1);
      const got = mha.attentionWeights(x, 2, 5);
      assert.deepEqual(got.shape, [b, 5, T]);
      assert.deepEqual(bitsOf(got), bitsOf(weights.select(1, 2).slice(1, 0, 5)));
      assert.deepEqual(mha.attentionWeights(x.at(1), 0, 3).shape, [3, T]);
      assert.throws(() => mha.attentionWeights(x, 3, 1), /^AttentionError: attentionWeights: head must be in \[0, 2\], got 3$/);
      assert.throws(() => mha.attentionWeights(x, 0, 1.5), /attentionWeights: rows must be an integer, got 1\.5/);
    });

    test('GPT-2 size: the fast path agrees with PyTorch, the projections are its bits', { skip: flavour !== 'simd' }, () => {
      const c = gpt2.config;
      torch.manualSeed(c.seed);
      const mha = new torch.MultiHeadAttention(c.d_in, c.d_out, c.context_length, c.dropout, c.num_heads, c.qkv_bias).eval();
      const x = torch.rand(c.batch, c.num_tokens, c.d_in);
      const pick = (t) => {
        const v = t.data, out = [];
        for (const r of gpt2.rows) for (const col of gpt2.cols) out.push(v[r * c.d_out + col]);
        return out;
      };
      const y = mha.forward(x);
      const { err, scale } = maxError(pick(y), floatsOfHex(gpt2.out));
      assert.ok(err <= 4 * EPS * (c.num_tokens + c.d_out) * Math.max(1, scale), `max |fast - torch| = ${err}`);
      const sums = y.sum(-1).data; // float32 sums: compare loosely with torch's float64 ones
      gpt2.row_sums.forEach((s, r) => assert.ok(Math.abs(sums[r] - Number(s)) < 1e-3, `row ${r}: ${sums[r]} vs ${s}`));
      assert.deepEqual(pick(mha.W_query.forward(x)).map(bitsOfFloat), wordsOfHex(gpt2.queries));
      const w = mha.attentionWeights(x, gpt2.head, 1024).data;
      const want = floatsOfHex(gpt2.weights);
      let i = 0;
      for (const r of gpt2.weight_rows) for (const col of gpt2.weight_cols) assert.equal(w[r * 1024 + col], want[i++]);
    });
  });
}
