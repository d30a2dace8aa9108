// The threaded flavour ('simd-threads', pthreads): the same bits as the SIMD flavour on 1, 2, 3 and 8 threads
// for GPT-2-width multi-head attention (128 tokens, 768 wide, 12 heads: the projections and the heads' attention
// are split over the threads), the book's printed results, the report of the flavour and its threads, and the
// loader's refusal of bad thread counts.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';

import { AttentionError, loadAttention } from '../../wasm/index.js';
import { bitsOf } from './support.mjs';
import BOOK from '../../book/chapter3.json' with { type: 'json' };

const THREADS = [1, 2, 3, 8];

// GPT-2's attention width on 128 tokens: its output on both paths, and the book's 3.6.2 and 3.4.2 results.
function results(torch) {
  torch.manualSeed(123);
  const mha = new torch.MultiHeadAttention(768, 768, 128, 0.0, 12);
  const x = torch.rand(1, 128, 768);
  const fast = mha.forward(x); // 128 tokens: the fast path
  const exact = mha.setAttentionPath('exact').forward(x);
  const inputs = torch.tensor(BOOK.embeddings);
  torch.manualSeed(123);
  const book = new torch.MultiHeadAttention(3, 2, 6, 0.0, 2).forward(torch.stack([inputs, inputs]));
  torch.manualSeed(789);
  const saV2 = new torch.SelfAttention_v2(3, 2).forward(inputs);
  return { fast: bitsOf(fast), exact: bitsOf(exact), book: bitsOf(book), bookText: book.toString(), saV2: saV2.toString() };
}

describe('simd-threads', () => {
  let simd;
  before(async () => {
    simd = results(await loadAttention({ flavour: 'simd' }));
  });

  for (const threads of THREADS) {
    test(`${threads} thread${threads > 1 ? 's' : ''}: the SIMD flavour's bits`, async () => {
      const torch = await loadAttention({ flavour: 'simd-threads', threads });
      assert.equal(torch.flavour, 'simd-threads');
      assert.equal(torch.threads, threads);
      assert.equal(torch.backend, 'wasm-simd128');
      const got = results(torch);
      assert.equal(got.fast.length, 128 * 768);
      assert.deepEqual(got.fast, simd.fast);
      assert.deepEqual(got.exact, simd.exact);
      assert.deepEqual(got.book, simd.book);
      assert.equal(got.bookText, BOOK.prints.mha_out);
      assert.equal(got.saV2, BOOK.prints.sa_v2_out);
    });
  }

  test('Node loads it by default, on the machine\'s threads, and reports the others as one thread', async () => {
    const { availableParallelism } = await import('node:os');
    const torch = await loadAttention();
    assert.equal(torch.flavour, 'simd-threads');
    assert.equal(torch.threads, Math.min(availableParallelism(), 256));
    const scalar = await loadAttention({ flavour: 'scalar' });
    assert.equal(scalar.flavour, 'scalar');
    assert.equal(scalar.threads, 1);
    assert.equal((await loadAttention({ flavour: 'simd', threads: 1 })).threads, 1);
  });

  test('setNumThreads changes the count of a loaded module, the bits stay; the one-thread flavours take only 1', async () => {
    const torch = await loadAttention({ flavour: 'simd-threads', threads: 3 });
    torch.setNumThreads(2);
    assert.equal(torch.threads, 2);
    assert.deepEqual(results(torch).fast, simd.fast);
    torch.setNumThreads(1);
    assert.equal(torch.threads, 1);
    for (const [threads, shown] of [[0, '0'], [257, '257'], [2.5, '2.5'], ['2', "'2'"]]) {
      assert.throws(() => torch.setNumThreads(threads), (e) => e instanceof AttentionError &&
        e.message === `setNumThreads: threads must be an integer from 1 to 256, got ${shown}`);
    }
    assert.throws(() => torch.setNumThreads(4), (e) => e instanceof AttentionError && e.message ===
      'setNumThreads: this module was loaded with 3 threads, so 4 is too many (loadAttention({ threads }) sets the most)');
    assert.equal(torch.threads, 1, 'a refused count changes nothing');
    const one = await loadAttention({ flavour: 'simd' });
    one.setNumThreads(1);
    assert.throws(() => one.setNumThreads(2), (e) => e instanceof AttentionError &&
      e.message === "setNumThreads: 2 threads need the 'simd-threads' flavour, and this is 'simd'");
    assert.equal(one.threads, 1);
  });

  test('bad thread counts are refused, naming the value', async () => {
    for (const [threads, shown] of [[0, '0'], [-2, '-2'], [1.5, '1.5'], [257, '257'], [NaN, 'NaN'], ['4', "'4'"], [true, 'boolean']]) {
      await assert.rejects(loadAttention({ threads }), (e) => e instanceof AttentionError &&
        e.message === `loadAttention: threads must be an integer from 1 to 256, got ${shown}`, `threads: ${shown}`);
    }
    await assert.rejects(loadAttention({ flavour: 'simd', threads: 2 }), (e) => e instanceof AttentionError &&
      e.message === "loadAttention: threads: 2 needs the 'simd-threads' flavour, and this loads 'simd'");
    await assert.rejects(loadAttention({ flavour: 'scalar', threads: 4 }), (e) => e instanceof AttentionError &&
      e.message === "loadAttention: threads: 4 needs the 'simd-threads' flavour, and this loads 'scalar'");
  });
});
