// Misuses of the modules (nn.Linear, nn.Dropout and the chapter's attention classes: their arguments, their
// forward's input, their parameters) throw AttentionError with a message naming the module, the argument,
// what was expected and what was received; a refused assignment or forward leaves the module usable.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import BOOK from '../../book/chapter3.json' with { type: 'json' };
import { loadBuilds, misuseTests, throwsAttention } from './support.mjs';

const MHA_ROW0 = [0.319, 0.4858]; // MultiHeadAttention(3, 2, 6, 0.0, 2), seed 123: first printed row

for (const [flavour, torch] of await loadBuilds()) {
  describe(`errors: modules (${flavour})`, () => {
    const misuse = misuseTests(torch);
    const inputs = () => torch.tensor(BOOK.embeddings);
    const batch = () => torch.stack([inputs(), inputs()]);

    // ------------------------------------------------------------ forward: shapes and ranks
    misuse('SelfAttention_v1.forward: wrong number of features', {
      setup: () => ({ sa: new torch.SelfAttention_v1(3, 2) }),
      run: ({ sa }) => sa.forward(torch.ones(6, 4)),
      message: [/^SelfAttention_v1: /, /\[6,4\]/, /4 features/, /d_in = 3/],
    });
    misuse('SelfAttention_v2.forward: rank 4', {
      setup: () => ({ sa: new torch.SelfAttention_v2(3, 2) }),
      run: ({ sa }) => sa.forward(torch.ones(1, 1, 6, 3)),
      message: [/^SelfAttention_v2: /, /1 to 3 dims/, /\[1,1,6,3\]/],
    });
    misuse('CausalAttention.forward: rank 1', {
      setup: () => ({ ca: new torch.CausalAttention(3, 2, 6, 0) }),
      run: ({ ca }) => ca.forward(torch.ones(3)),
      message: [/^CausalAttention: /, /2 to 3 dims/, /shape \[3\]/],
    });
    misuse('CausalAttention.forward: num_tokens > context_length', {
      setup: () => ({ ca: new torch.CausalAttention(3, 2, 4, 0) }),
      run: ({ ca }) => ca.forward(batch()),
      message: /^CausalAttention: the input has 6 tokens, more than context_length = 4$/,
    });
    misuse('MultiHeadAttention.forward: num_tokens > context_length', {
      setup: () => ({ mha: new torch.MultiHeadAttention(3, 2, 5, 0, 2) }),
      run: ({ mha }) => mha.forward(batch()),
      message: /^MultiHeadAttention: the input has 6 tokens, more than context_length = 5$/,
    });
    misuse('MultiHeadAttentionWrapper.forward: num_tokens > context_length', {
      setup: () => ({ w: new torch.MultiHeadAttentionWrapper(3, 2, 4, 0, 2) }),
      run: ({ w }) => w.forward(batch()),
      message: [/the input has 6 tokens, more than context_length = 4/],
    });
    misuse('MultiHeadAttention.forward: wrong d_in', {
      setup: () => ({ mha: new torch.MultiHeadAttention(3, 2, 6, 0, 2) }),
      run: ({ mha }) => mha.forward(torch.ones(2, 6, 5)),
      message: [/^MultiHeadAttention: /, /\[2,6,5\]/, /d_in = 3/],
    });
    misuse('forward: x is not a tensor', {
      setup: () => ({ ca: new torch.CausalAttention(3, 2, 6, 0) }),
      run: ({ ca }) => ca.forward(BOOK.embeddings),
      message: /^CausalAttention\.forward: x must be a tensor, got an array$/,
    });
    misuse('Linear.forward: wrong in_features', {
      setup: () => ({ linear: new torch.nn.Linear(3, 2) }),
      run: ({ linear }) => linear.forward(torch.ones(2, 4)),
      message: /^mat1 and mat2 shapes cannot be multiplied \(2x4 and 3x2\)$/,
    });
    // ------------------------------------------------------------ configuration
    misuse('MultiHeadAttention: d_out % num_heads != 0', {
      run: () => new torch.MultiHeadAttention(3, 5, 6, 0, 2),
      message: /^MultiHeadAttention: d_out must be divisible by num_heads, got d_out = 5 and num_heads = 2$/,
    });
    misuse('MultiHeadAttention: num_heads 0', {
      run: () => new torch.MultiHeadAttention(3, 2, 6, 0, 0),
      message: [/^MultiHeadAttention: /, /num_heads/, /positive/, /got 0/],
    });
    misuse('MultiHeadAttentionWrapper: num_heads is not a number', {
      run: () => new torch.MultiHeadAttentionWrapper(3, 2, 6, 0, '2'),
      message: [/^MultiHeadAttentionWrapper: num_heads must be /, /got '2'/],
    });
    misuse('CausalAttention: context_length 0', {
      run: () => new torch.CausalAttention(3, 2, 0, 0),
      message: [/^CausalAttention: context_length must be a positive integer, got 0$/],
    });
    misuse('SelfAttention_v1: d_in 0', {
      run: () => new torch.SelfAttention_v1(0, 2),
      message: [/^SelfAttention_v1: d_in must be a positive integer, got 0$/],
    });
    misuse('Linear with inFeatures NaN', {
      run: () => new torch.nn.Linear(NaN, 2),
      message: [/^Linear: /, /[iI]n_?[fF]eatures/, /got NaN/],
    });
    misuse("CausalAttention with context_length '6'", {
      run: () => new torch.CausalAttention(3, 2, '6', 0),
      message: [/^CausalAttention: context_length must be a non-negative integer, got '6'$/],
    });
    // ------------------------------------------------------------ dropout probability
    for (const p of [1.5, -0.1, 2]) {
      misuse(`Dropout(${p})`, {
        run: () => new torch.nn.Dropout(p),
        message: [/^Dropout: dropout probability must be in \[0, 1\], got /, new RegExp(`got ${String(p).replace('.', '\\.')}`)],
      });
    }
    misuse('Dropout(NaN)', {
      run: () => new torch.nn.Dropout(NaN),
      message: /^Dropout: dropout must be a number in \[0, 1\], got NaN$/,
    });
    misuse('CausalAttention with dropout 1.5', {
      run: () => new torch.CausalAttention(3, 2, 6, 1.5),
      message: [/^CausalAttention: dropout probability must be in \[0, 1\], got 1\.5/],
    });
    misuse('MultiHeadAttention with dropout -0.5', {
      run: () => new torch.MultiHeadAttention(3, 2, 6, -0.5, 2),
      message: [/^MultiHeadAttention: dropout probability must be in \[0, 1\], got -0\.5/],
    });
    misuse("MultiHeadAttentionWrapper with dropout '0.5'", {
      run: () => new torch.MultiHeadAttentionWrapper(3, 2, 6, '0.5', 2),
      message: /^MultiHeadAttentionWrapper: dropout must be a number in \[0, 1\], got '0\.5'$/,
    });
    // ------------------------------------------------------------ parameter assignment: a shape check, then a copy
    misuse('assigning a weight of the wrong shape', {
      setup: () => ({ sa: new torch.SelfAttention_v1(3, 2) }),
      run: ({ sa }) => {
        sa.W_query = torch.ones(2, 3);
      },
      message: /^parameter 'W_query': expected shape \[3,2\], got \[2,3\]$/,
    });
    misuse("assigning a wrapper head's weight of the wrong shape", {
      setup: () => ({ w: new torch.MultiHeadAttentionWrapper(3, 2, 6, 0, 2) }),
      run: ({ w }) => {
        w.heads[1].W_key.weight = torch.ones(3, 2);
      },
      message: /^parameter 'heads\.1\.W_key\.weight': expected shape \[2,3\], got \[3,2\]$/,
    });
    misuse('assigning something that is not a tensor', {
      setup: () => ({ mha: new torch.MultiHeadAttention(3, 2, 6, 0, 2) }),
      run: ({ mha }) => {
        mha.out_proj.bias = [1, 2];
      },
      message: [/^out_proj\.bias =: the value must be a tensor, got an array$/],
    });
    test('a refused assignment leaves the parameter and the module as they were', () => {
      torch.manualSeed(123);
      const mha = new torch.MultiHeadAttention(3, 2, 6, 0.0, 2);
      const weight = mha.W_value.weight.toString();
      const out = mha.forward(batch()).toString();
      throwsAttention(() => {
        mha.W_value.weight = torch.ones(3, 2);
      }, /expected shape \[2,3\], got \[3,2\]/);
      assert.equal(mha.W_value.weight.toString(), weight);
      assert.equal(mha.forward(batch()).toString(), out);
      assert.deepEqual(Array.from(mha.forward(batch()).at(0).at(0).data, (v) => Number(v.toFixed(4))), MHA_ROW0);
    });
    test('a failing forward leaves the module usable', () => {
      torch.manualSeed(123);
      const sa = new torch.SelfAttention_v1(3, 2);
      throwsAttention(() => sa.forward(torch.ones(6, 2)), /d_in = 3/);
      assert.equal(sa.forward(inputs()).toString(), BOOK.prints.sa_v1_out);
    });
  });
}
