// Chapter 3 redone in JavaScript the way a reader would retype the notebook: nested arrays for the inputs,
// loops that fill an empty tensor with set(), `for (const x of inputs)`, accumulation with add_().
// Every printed tensor is checked twice, like tests/native/test_chapter.cpp (both read the printouts from
// book/chapter3.json): value by value at the printed precision, then as PyTorch's exact text.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';

import { backendOf, bitsOf, loadBuilds, parsePrinted } from './support.mjs';
import BOOK from '../../book/chapter3.json' with { type: 'json' };

// ---------------------------------------------------------------- helpers

// A tensor against the chapter's printout: every value at the printed precision, then the exact text.
function checkBook(t, book) {
  const printed = parsePrinted(book);
  const values = t.data;
  assert.equal(values.length, printed.length, `number of values, book:\n${book}`);
  printed.forEach(({ value, decimals }, i) => {
    const got = values[i];
    if (Number.isNaN(value)) return assert.ok(Number.isNaN(got), `element ${i}: expected nan, got ${got}`);
    if (!Number.isFinite(value)) return assert.equal(got, value, `element ${i}`);
    // Half a unit in the last printed place (plus a hair for the decimal parse of the book's text).
    const tolerance = 0.5 * 10 ** -decimals * (1 + 1e-9);
    assert.ok(Math.abs(got - value) <= tolerance, `element ${i}: ${got} does not print as ${value} (${decimals} decimals)`);
  });
  assert.equal(t.toString(), book);
}

// ---------------------------------------------------------------- the chapter, once per build

for (const [flavour, torch] of await loadBuilds()) {
  describe(`chapter 3 through the JS API (${flavour})`, () => {
    let inputs;
    before(() => {
      torch.setRngProfile('default');
      inputs = bookInputs();
    });
    const bookInputs = () => torch.tensor(BOOK.embeddings);

    test('the build it loaded', () => {
      assert.equal(torch.backend, backendOf(flavour));
      assert.deepEqual(inputs.shape, [6, 3]);
      assert.equal(inputs.dtype, 'float32');
      assert.equal(inputs.ndim, 2);
      assert.equal(inputs.numel(), 18);
    });

    test('3.3.1 dot product of two vectors', () => {
      const x1 = torch.tensor([0.4, 0.1, 0.8]);
      const x2 = torch.tensor([0.5, 0.8, 0.6]);
      checkBook(torch.dot(x1, x2), BOOK.prints.dot_x1_x2);
      checkBook(x1.dot(x2), BOOK.prints.dot_x1_x2);
    });

    test('3.3.1 attention of the second token, step by step', () => {
      const query = inputs.at(1); // 2nd input token is the query
      assert.deepEqual(query.shape, [3]);

      const attn_scores_2 = torch.empty(inputs.shape[0]);
      for (const [i, x_i] of [...inputs].entries()) attn_scores_2.set(i, torch.dot(x_i, query));
      checkBook(attn_scores_2, BOOK.prints.attn_scores_2);

      // the dot product written out for the first input: a running sum of products
      let res = torch.zeros();
      for (const [idx, element] of [...inputs.at(0)].entries()) res = res.add(element.mul(query.at(idx)));
      checkBook(res, 'tensor(0.9544)');
      assert.equal(torch.dot(inputs.at(0), query).toString(), 'tensor(0.9544)');

      // normalised by the sum: the sum of the weights is not exactly 1 (it is 0x3f800001)
      const attn_weights_2_tmp = attn_scores_2.div(attn_scores_2.sum());
      checkBook(attn_weights_2_tmp, BOOK.prints.attn_weights_2_tmp);
      checkBook(attn_weights_2_tmp.sum(), BOOK.prints.attn_weights_2_tmp_sum);

      // the naive softmax: sums to exactly 1
      const softmax_naive = (x) => torch.exp(x).div(torch.exp(x).sum(0));
      const attn_weights_2_naive = softmax_naive(attn_scores_2);
      checkBook(attn_weights_2_naive, BOOK.prints.attn_weights_2_naive);
      checkBook(attn_weights_2_naive.sum(), BOOK.prints.attn_weights_2_naive_sum);

      const attn_weights_2 = torch.softmax(attn_scores_2, 0);
      checkBook(attn_weights_2, BOOK.prints.attn_weights_2_naive);
      checkBook(attn_weights_2.sum(), BOOK.prints.attn_weights_2_naive_sum);

      // the context vector, accumulated in place
      const context_vec_2 = torch.zeros(query.shape);
      for (const [i, x_i] of [...inputs].entries()) context_vec_2.add_(attn_weights_2.at(i).mul(x_i));
      checkBook(context_vec_2, BOOK.prints.context_vec_2);
    });

    test('3.3.2 attention weights for all tokens', () => {
      const scoresText = BOOK.prints.attn_scores;

      // the double loop
      const attn_scores_loop = torch.empty(6, 6);
      for (const [i, x_i] of [...inputs].entries()) {
        for (const [j, x_j] of [...inputs].entries()) attn_scores_loop.set([i, j], torch.dot(x_i, x_j));
      }
      checkBook(inputs.at(0), BOOK.other_prints['inputs[0]']);
      checkBook(inputs.at(5), BOOK.other_prints['inputs[5]']);
      checkBook(attn_scores_loop, scoresText);

      // the same with one matrix product
      const attn_scores = inputs.matmul(inputs.T);
      checkBook(attn_scores, scoresText);
      assert.deepEqual(bitsOf(attn_scores), bitsOf(attn_scores_loop));

      const attn_weights = torch.softmax(attn_scores, -1);
      checkBook(attn_weights, BOOK.prints.attn_weights);
      checkBook(attn_weights.sum(-1), BOOK.prints.attn_weights_row_sums);

      const all_context_vecs = attn_weights.matmul(inputs);
      checkBook(all_context_vecs, BOOK.prints.all_context_vecs);
      checkBook(all_context_vecs.at(1), BOOK.prints.context_vec_2);
    });

    test('3.4.1 trainable weights, step by step (seed 123)', () => {
      const x_2 = inputs.at(1);
      checkBook(x_2, BOOK.prints.x_2);
      const d_in = inputs.shape[1];
      const d_out = 2;
      assert.equal(d_in, 3);

      torch.manualSeed(123);
      const W_query = torch.rand(d_in, d_out);
      const W_key = torch.rand(d_in, d_out);
      const W_value = torch.rand(d_in, d_out);
      assert.equal(torch.rngDraws(), 18);
      assert.deepEqual(W_query.shape, [3, 2]);
      // The book wraps these in torch.nn.Parameter(..., requires_grad=False), which prints a
      // "Parameter containing:" line first; a plain JS tensor prints the rest.
      checkBook(W_query, BOOK.prints.W_query.replace('Parameter containing:\n', ''));

      const query_2 = x_2.matmul(W_query);
      const key_2 = x_2.matmul(W_key);
      const value_2 = x_2.matmul(W_value);
      checkBook(query_2, BOOK.prints.query_2);
      assert.deepEqual(key_2.shape, [2]);
      assert.deepEqual(value_2.shape, [2]);

      const keys = inputs.matmul(W_key);
      const values = inputs.matmul(W_value);
      assert.deepEqual(keys.shape, [6, 2]);
      assert.deepEqual(values.shape, [6, 2]);
      assert.deepEqual(bitsOf(keys.at(1)), bitsOf(key_2));

      const keys_2 = keys.at(1);
      checkBook(query_2.dot(keys_2), BOOK.prints.attn_score_22);
      const attn_scores_2 = query_2.matmul(keys.T);
      checkBook(attn_scores_2, BOOK.prints.attn_scores_2_qk);

      const d_k = keys.shape.at(-1);
      assert.equal(d_k, 2);
      assert.equal(keys.size(-1), 2);
      const attn_weights_2 = torch.softmax(attn_scores_2.div(d_k ** 0.5), -1);
      checkBook(attn_weights_2, BOOK.prints.attn_weights_2_qk);

      const context_vec_2 = attn_weights_2.matmul(values);
      checkBook(context_vec_2, BOOK.prints.context_vec_2_qk);
      checkBook(values, BOOK.prints.values);
    });

    test('3.4.2 SelfAttention_v1 (seed 123)', () => {
      torch.manualSeed(123);
      const sa_v1 = new torch.SelfAttention_v1(3, 2);
      assert.equal(torch.rngDraws(), 18);
      checkBook(sa_v1.W_query, BOOK.prints.sa_v1_W_query);
      assert.equal(sa_v1.W_query.requiresGrad, true);
      checkBook(sa_v1.forward(inputs), BOOK.prints.sa_v1_out);
      assert.equal(sa_v1.forward(inputs).gradFn, 'MmBackward0');
      assert.equal(torch.rngDraws(), 18); // forward draws nothing
    });

    test('3.4.2 SelfAttention_v2 (seed 789)', () => {
      torch.manualSeed(789);
      const sa_v2 = new torch.SelfAttention_v2(3, 2);
      assert.equal(torch.rngDraws(), 18); // three Linear(3, 2) without bias
      assert.deepEqual(sa_v2.W_query.weight.shape, [2, 3]);
      checkBook(sa_v2.W_query.weight, BOOK.prints.sa_v2_W_query);
      assert.equal(sa_v2.W_query.bias, null);
      checkBook(sa_v2.forward(inputs), BOOK.prints.sa_v2_out);
    });

    test("Exercise 3.1: v2's weights moved into v1 give the same output", () => {
      // The printed run came after SelfAttention_v1 (18 draws) and one earlier run of the same cell (42 draws).
      torch.manualSeed(123);
      new torch.SelfAttention_v1(3, 2);
      assert.equal(torch.rngDraws(), 18);
      new torch.SelfAttention_v2(3, 2, true);
      new torch.SelfAttention_v1(3, 2);
      assert.equal(torch.rngDraws(), 18 + 42);

      const attention_v2 = new torch.SelfAttention_v2(3, 2, true);
      const attention_v1 = new torch.SelfAttention_v1(3, 2);
      checkBook(
        attention_v2.W_query.weight,
        'Parameter containing:\n' +
          'tensor([[ 0.0911,  0.4770, -0.5456],\n' +
          '        [-0.3887, -0.2299,  0.0232]], requires_grad=True)',
      );
      checkBook(attention_v2.W_query.bias, 'Parameter containing:\ntensor([-0.1347, -0.0634], requires_grad=True)');
      checkBook(
        attention_v1.W_query,
        'Parameter containing:\n' +
          'tensor([[0.2251, 0.3111],\n' +
          '        [0.1955, 0.9153],\n' +
          '        [0.7751, 0.6749]], requires_grad=True)',
      );

      // nn.Linear keeps its weight transposed: assign W.T; zero the biases to compare like with like.
      attention_v1.W_query = attention_v2.W_query.weight.T;
      attention_v1.W_key = attention_v2.W_key.weight.T;
      attention_v1.W_value = attention_v2.W_value.weight.T;
      for (const linear of [attention_v2.W_query, attention_v2.W_key, attention_v2.W_value]) linear.bias.zero_();

      // the assignments landed: still a Parameter, now holding the transposed values
      assert.deepEqual(bitsOf(attention_v1.W_key), bitsOf(attention_v2.W_key.weight.T.contiguous()));
      assert.match(attention_v1.W_key.toString(), /^Parameter containing:\n/);
      assert.deepEqual(attention_v2.W_value.bias.toArray(), [0, 0]);

      const expected =
        'tensor([[-0.2406,  0.3448],\n' +
        '        [-0.2571,  0.3424],\n' +
        '        [-0.2573,  0.3424],\n' +
        '        [-0.2530,  0.3425],\n' +
        '        [-0.2568,  0.3423],\n' +
        '        [-0.2518,  0.3426]], grad_fn=<MmBackward0>)';
      const out_v2 = attention_v2.forward(inputs);
      const out_v1 = attention_v1.forward(inputs);
      checkBook(out_v2, expected);
      checkBook(out_v1, expected);
      assert.ok(torch.allclose(out_v2, out_v1, { rtol: 1e-5, atol: 1e-6 }));
      assert.deepEqual(bitsOf(out_v1), bitsOf(out_v2));
    });

    test('3.5.1 causal mask, both ways', () => {
      torch.manualSeed(789);
      const sa_v2 = new torch.SelfAttention_v2(3, 2);

      // sa_v2.W_query(inputs) in the book: a Linear without bias is inputs @ W.T
      const queries = inputs.matmul(sa_v2.W_query.weight.T);
      const keys = inputs.matmul(sa_v2.W_key.weight.T);
      const asModule = new torch.nn.Linear(3, 2, false);
      asModule.weight = sa_v2.W_query.weight;
      assert.deepEqual(bitsOf(asModule.forward(inputs)), bitsOf(queries));

      const attn_scores = queries.matmul(keys.T);
      const attn_weights = torch.softmax(attn_scores.div(keys.shape.at(-1) ** 0.5), -1);
      checkBook(
        attn_weights,
        'tensor([[0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510],\n' +
          '        [0.2041, 0.1659, 0.1662, 0.1496, 0.1665, 0.1477],\n' +
          '        [0.2036, 0.1659, 0.1662, 0.1498, 0.1664, 0.1480],\n' +
          '        [0.1869, 0.1667, 0.1668, 0.1571, 0.1661, 0.1564],\n' +
          '        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.1585],\n' +
          '        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],\n' +
          '       grad_fn=<SoftmaxBackward0>)',
      );

      const context_length = attn_scores.shape[0];
      const mask_simple = torch.tril(torch.ones(context_length, context_length));
      checkBook(
        mask_simple,
        'tensor([[1., 0., 0., 0., 0., 0.],\n' +
          '        [1., 1., 0., 0., 0., 0.],\n' +
          '        [1., 1., 1., 0., 0., 0.],\n' +
          '        [1., 1., 1., 1., 0., 0.],\n' +
          '        [1., 1., 1., 1., 1., 0.],\n' +
          '        [1., 1., 1., 1., 1., 1.]])',
      );

      const masked_simple = attn_weights.mul(mask_simple);
      checkBook(
        masked_simple,
        'tensor([[0.1921, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n' +
          '        [0.2041, 0.1659, 0.0000, 0.0000, 0.0000, 0.0000],\n' +
          '        [0.2036, 0.1659, 0.1662, 0.0000, 0.0000, 0.0000],\n' +
          '        [0.1869, 0.1667, 0.1668, 0.1571, 0.0000, 0.0000],\n' +
          '        [0.1830, 0.1669, 0.1670, 0.1588, 0.1658, 0.0000],\n' +
          '        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],\n' +
          '       grad_fn=<MulBackward0>)',
      );

      const row_sums = masked_simple.sum(-1, true);
      assert.deepEqual(row_sums.shape, [6, 1]);
      const masked_simple_norm = masked_simple.div(row_sums);
      const renormalised =
        'tensor([[1.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n' +
        '        [0.5517, 0.4483, 0.0000, 0.0000, 0.0000, 0.0000],\n' +
        '        [0.3800, 0.3097, 0.3103, 0.0000, 0.0000, 0.0000],\n' +
        '        [0.2758, 0.2460, 0.2462, 0.2319, 0.0000, 0.0000],\n' +
        '        [0.2175, 0.1983, 0.1984, 0.1888, 0.1971, 0.0000],\n' +
        '        [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529]],\n';
      checkBook(masked_simple_norm, renormalised + '       grad_fn=<DivBackward0>)');

      const mask = torch.triu(torch.ones(context_length, context_length), 1);
      const masked = attn_scores.maskedFill(mask.bool(), -Infinity);
      checkBook(
        masked,
        'tensor([[0.2899,   -inf,   -inf,   -inf,   -inf,   -inf],\n' +
          '        [0.4656, 0.1723,   -inf,   -inf,   -inf,   -inf],\n' +
          '        [0.4594, 0.1703, 0.1731,   -inf,   -inf,   -inf],\n' +
          '        [0.2642, 0.1024, 0.1036, 0.0186,   -inf,   -inf],\n' +
          '        [0.2183, 0.0874, 0.0882, 0.0177, 0.0786,   -inf],\n' +
          '        [0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]],\n' +
          '       grad_fn=<MaskedFillBackward0>)',
      );

      const causal_weights = torch.softmax(masked.div(keys.shape.at(-1) ** 0.5), 1);
      checkBook(causal_weights, renormalised + '       grad_fn=<SoftmaxBackward0>)');
      assert.ok(torch.allclose(causal_weights, masked_simple_norm, { rtol: 1e-5, atol: 1e-6 }));

      // 3.5.2: the same seed gives the same dropout mask on ones and on the causal weights
      torch.manualSeed(123);
      const dropout = new torch.nn.Dropout(0.5);
      assert.equal(dropout.training, true);
      const example = torch.ones(6, 6);
      checkBook(
        dropout.forward(example),
        'tensor([[2., 2., 0., 2., 2., 0.],\n' +
          '        [0., 0., 0., 2., 0., 2.],\n' +
          '        [2., 2., 2., 2., 0., 2.],\n' +
          '        [0., 2., 2., 0., 0., 2.],\n' +
          '        [0., 2., 0., 2., 0., 2.],\n' +
          '        [0., 2., 2., 2., 2., 0.]])',
      );
      assert.equal(torch.rngDraws(), 72); // two 32-bit words per element (default profile)
      torch.manualSeed(123);
      checkBook(
        dropout.forward(causal_weights),
        'tensor([[2.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n' +
          '        [0.0000, 0.0000, 0.0000, 0.0000, 0.0000, 0.0000],\n' +
          '        [0.7599, 0.6194, 0.6206, 0.0000, 0.0000, 0.0000],\n' +
          '        [0.0000, 0.4921, 0.4925, 0.0000, 0.0000, 0.0000],\n' +
          '        [0.0000, 0.3966, 0.0000, 0.3775, 0.0000, 0.0000],\n' +
          '        [0.0000, 0.3327, 0.3331, 0.3084, 0.3331, 0.0000]],\n' +
          '       grad_fn=<MulBackward0>)',
      );

      // eval(): the identity, no draws
      torch.manualSeed(123);
      dropout.eval();
      assert.equal(dropout.training, false);
      assert.deepEqual(bitsOf(dropout.forward(causal_weights)), bitsOf(causal_weights));
      assert.equal(torch.rngDraws(), 0);
    });

    test('3.5.3 CausalAttention on a batch (seed 123)', () => {
      const batch = torch.stack([inputs, inputs], 0);
      assert.deepEqual(batch.shape, [2, 6, 3]);
      torch.manualSeed(123);
      const context_length = batch.shape[1];
      const ca = new torch.CausalAttention(3, 2, context_length, 0.0);
      const context_vecs = ca.forward(batch);
      assert.deepEqual(context_vecs.shape, [2, 6, 2]);
      // Not printed by the chapter, but the wrapper's first head is this module, drawn from the same seed.
      torch.manualSeed(123);
      const mha = new torch.MultiHeadAttentionWrapper(3, 2, context_length, 0.0, 2);
      assert.deepEqual(bitsOf(context_vecs), bitsOf(mha.forward(batch).slice(-1, 0, 2)));
    });

    test('3.6.1 MultiHeadAttentionWrapper with d_out 2 and (Exercise 3.2) d_out 1', () => {
      const batch = torch.stack([inputs, inputs]);
      const context_length = batch.shape[1];
      torch.manualSeed(123);
      const mha = new torch.MultiHeadAttentionWrapper(3, 2, context_length, 0.0, 2);
      assert.equal(mha.heads.length, 2);
      const context_vecs = mha.forward(batch);
      assert.deepEqual(context_vecs.shape, [2, 6, 4]);
      checkBook(context_vecs, BOOK.prints.wrapper_out);

      torch.manualSeed(123);
      const narrow = new torch.MultiHeadAttentionWrapper(3, 1, context_length, 0.0, 2);
      const out1 = narrow.forward(batch);
      assert.deepEqual(out1.shape, [2, 6, 2]);
      checkBook(out1, BOOK.prints.wrapper_out_d1);
    });

    test('3.6.2 batched matmul over heads equals one matmul per head', () => {
      // (b, num_heads, num_tokens, head_dim) = (1, 2, 3, 4)
      const a = torch.tensor(BOOK.bmm_input);
      assert.deepEqual(a.shape, [1, 2, 3, 4]);
      const batched = a.matmul(a.transpose(2, 3));
      checkBook(batched, BOOK.prints.bmm_out);
      const first_head = a.at(0).at(0);
      const first_res = first_head.matmul(first_head.T);
      checkBook(first_res, BOOK.prints.bmm_first_head);
      const second_head = a.at(0).at(1);
      const second_res = second_head.matmul(second_head.T);
      checkBook(second_res, BOOK.prints.bmm_second_head);
      assert.deepEqual(bitsOf(batched.at(0).at(0)), bitsOf(first_res));
      assert.deepEqual(bitsOf(batched.at(0).at(1)), bitsOf(second_res));
    });

    test('3.6.2 MultiHeadAttention with weight splits (seed 123)', () => {
      const batch = torch.stack([inputs, inputs]);
      torch.manualSeed(123);
      const [batch_size, context_length, d_in] = batch.shape;
      assert.equal(batch_size, 2);
      const d_out = 2;
      const mha = new torch.MultiHeadAttention(d_in, d_out, context_length, 0.0, 2);
      assert.equal(mha.head_dim, 1);
      assert.deepEqual(mha.out_proj.weight.shape, [2, 2]);
      assert.deepEqual(mha.out_proj.bias.shape, [2]);
      const context_vecs = mha.forward(batch);
      assert.deepEqual(context_vecs.shape, [2, 6, 2]);
      checkBook(context_vecs, BOOK.prints.mha_out);
    });
  });
}
