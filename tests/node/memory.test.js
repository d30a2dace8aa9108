// No .delete() is ever needed: tensors live in JavaScript, and every call frees what it allocated in the
// wasm heap before it returns. 10,000 forward passes (and 10,000 rounds of tensor ops) must leave the
// allocator exactly where it was after warm-up, and the heap must not grow. Modules own C++ objects that a
// FinalizationRegistry frees once the JS wrapper is collected: that is checked when a GC can be forced.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';

import { bitsOf, forceGc, loadBuilds, settle } from './support.mjs';
import BOOK from '../../book/chapter3.json' with { type: 'json' };

const N = 10_000;
const WARM_UP = 100;

const BOOK_ROWS = BOOK.embeddings;

for (const [flavour, torch] of await loadBuilds()) {
  describe(`memory (${flavour})`, () => {
    let batch;
    before(() => {
      batch = torch.stack([torch.tensor(BOOK_ROWS), torch.tensor(BOOK_ROWS)]);
    });

    // Runs body WARM_UP times, then N times, and returns the usage before and after the N.
    function measure(body) {
      for (let i = 0; i < WARM_UP; i++) body(i);
      const start = torch.memoryUsage();
      for (let i = 0; i < N; i++) body(i);
      return { start, end: torch.memoryUsage() };
    }

    test('memoryUsage reports the heap and the bytes allocated in it', () => {
      const usage = torch.memoryUsage();
      assert.deepEqual(Object.keys(usage).sort(), ['allocatedBytes', 'heapBytes']);
      assert.ok(Number.isInteger(usage.heapBytes) && usage.heapBytes >= 16 * 2 ** 20);
      assert.ok(Number.isInteger(usage.allocatedBytes) && usage.allocatedBytes < usage.heapBytes);
      // a live module holds wasm memory; a tensor does not
      const before = torch.memoryUsage().allocatedBytes;
      const big = torch.ones(512, 512);
      assert.equal(torch.memoryUsage().allocatedBytes, before);
      assert.equal(big.numel(), 512 * 512);
      const held = new torch.nn.Linear(256, 256);
      assert.ok(torch.memoryUsage().allocatedBytes >= before + 256 * 256 * 4);
      assert.deepEqual(held.weight.shape, [256, 256]);
    });

    test(`${N} CausalAttention forward passes on the book batch`, () => {
      torch.manualSeed(123);
      const ca = new torch.CausalAttention(3, 2, 6, 0.0);
      const first = bitsOf(ca.forward(batch));
      let last;
      const { start, end } = measure(() => {
        last = ca.forward(batch);
      });
      assert.equal(end.allocatedBytes, start.allocatedBytes, 'bytes allocated after the loop');
      assert.equal(end.heapBytes, start.heapBytes, 'heap size after the loop');
      assert.deepEqual(bitsOf(last), first); // and it still computes the same thing
    });

    test(`${N} MultiHeadAttention forward passes with dropout in training mode`, () => {
      torch.manualSeed(123);
      const mha = new torch.MultiHeadAttention(3, 4, 6, 0.5, 2);
      torch.manualSeed(7);
      const first = bitsOf(mha.forward(batch));
      const { start, end } = measure(() => mha.forward(batch));
      assert.equal(end.allocatedBytes, start.allocatedBytes);
      assert.equal(end.heapBytes, start.heapBytes);
      // dropout drew two words per attention weight on each pass: 2 x (2 * 2 * 6 * 6)
      torch.manualSeed(7);
      assert.deepEqual(bitsOf(mha.forward(batch)), first);
      assert.equal(torch.rngDraws(), 2 * 2 * 2 * 6 * 6);
    });

    test(`${N} rounds of tensor ops, printing, in-place ops and views`, () => {
      const mask = torch.triu(torch.ones(6, 6), 1).bool();
      const acc = torch.zeros(6, 6);
      const { start, end } = measure((i) => {
        const x = batch.at(i % 2);
        const scores = x.matmul(x.T).maskedFill(mask, -Infinity);
        const weights = torch.softmax(scores.div(3 ** 0.5), -1);
        weights.sum(-1, true).toString();
        acc.add_(weights);
        const row = torch.zeros(3).set(i % 3, x.at(0).at(i % 3));
        torch.cat([row.view(1, 3), x.slice(0, 0, 1)], 0).T.contiguous();
      });
      assert.equal(end.allocatedBytes, start.allocatedBytes);
      assert.equal(end.heapBytes, start.heapBytes);
      // every row of weights sums to 1: the accumulator's rows sum to the number of rounds
      const rowSums = acc.sum(-1).data;
      for (const s of rowSums) assert.ok(Math.abs(s - (N + WARM_UP)) < 1e-2 * (N + WARM_UP), `row sum ${s}`);
    });

    test(`${N} refused calls (a forward and a matmul) leave nothing behind`, () => {
      const ca = new torch.CausalAttention(3, 2, 4, 0.0);
      const { start, end } = measure(() => {
        assert.throws(() => ca.forward(batch)); // 6 tokens > context_length 4
        assert.throws(() => torch.matmul(batch, batch));
      });
      assert.equal(end.allocatedBytes, start.allocatedBytes);
      assert.equal(end.heapBytes, start.heapBytes);
    });

    const gcSkip = { skip: forceGc ? false : 'no way to force a GC' };
    test('modules created in a loop are freed once collected', gcSkip, async () => {
      await settle();
      const start = torch.memoryUsage().allocatedBytes;
      const kept = new torch.MultiHeadAttention(3, 4, 6, 0.0, 2);
      const keptOut = bitsOf(kept.forward(batch));
      const withKept = torch.memoryUsage().allocatedBytes;
      assert.ok(withKept > start);

      // (in a function of its own: a suspended async function keeps its stale registers, hence its last module)
      const modules = 1000;
      const churn = () => {
        for (let i = 0; i < modules; i++) new torch.MultiHeadAttention(3, 4, 6, 0.0, 2).forward(batch);
      };
      churn();
      const grown = torch.memoryUsage().allocatedBytes;
      assert.ok(grown - withKept >= (modules / 2) * (withKept - start), `${modules} modules hold wasm memory until collected`);

      let now = grown;
      for (let round = 0; round < 50 && now > withKept; round++) {
        await settle();
        now = torch.memoryUsage().allocatedBytes;
      }
      assert.ok(now <= withKept, `after collection: ${now} bytes allocated, ${withKept} before the loop`);
      // the module still referenced was not freed
      assert.deepEqual(bitsOf(kept.forward(batch)), keptOut);
    });

    test('a parameter tensor that outlives its module can still be changed in place', gcSkip, async () => {
      const weightOnly = () => new torch.nn.Linear(3, 2).weight; // the module itself is dropped at once
      const w = weightOnly();
      await settle();
      w.zero_().add_(2); // writes back into the module: must not reach a freed C++ object
      assert.deepEqual(w.toArray(), [[2, 2, 2], [2, 2, 2]]);
    });
  });
}
