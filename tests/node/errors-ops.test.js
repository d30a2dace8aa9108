// Misuses of the operations (matmul, dot, element-wise, reductions, masks, item, in place) throw AttentionError
// with a message naming the operation, the argument, what was expected and what was received; a refused
// in-place op changes nothing, and an op that exhausts the wasm heap says so and leaves the instance usable.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';

import BOOK from '../../book/chapter3.json' with { type: 'json' };
import { loadBuilds, misuseTests, throwsAttention } from './support.mjs';

// Runs in a worker: [2^14, 1] + [1, 2^14] is one 1 GiB result, but broadcasting needs more than the heap.
const OOM_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { loadAttention, AttentionError } = await import(workerData.url);
  const torch = await loadAttention({ flavour: workerData.flavour });
  const allocatedBefore = torch.memoryUsage().allocatedBytes;
  const result = { threw: false };
  try {
    torch.ones(2 ** 14, 1).add(torch.ones(1, 2 ** 14));
  } catch (e) {
    Object.assign(result, { threw: true, isAttentionError: e instanceof AttentionError, name: e.name, message: e.message });
  }
  result.allocatedAfter = torch.memoryUsage().allocatedBytes;
  result.allocatedBefore = allocatedBefore;
  result.heapBytes = torch.memoryUsage().heapBytes;
  result.dot = torch.dot(torch.tensor([0.4, 0.1, 0.8]), torch.tensor([0.5, 0.8, 0.6])).toString();
  torch.manualSeed(123);
  result.selfAttention = new torch.SelfAttention_v1(3, 2).forward(torch.tensor(workerData.rows)).toString();
  parentPort.postMessage(result);
})();
`;

for (const [flavour, torch] of await loadBuilds()) {
  describe(`errors: operations (${flavour})`, () => {
    const misuse = misuseTests(torch);

    // ------------------------------------------------------------ products: the contract's own example first
    misuse('matmul: inner dims differ', {
      run: () => torch.matmul(torch.ones(6, 3), torch.ones(2, 3)),
      message: /^mat1 and mat2 shapes cannot be multiplied \(6x3 and 2x3\)$/,
    });
    misuse('matmul (method): batched inner dims differ', {
      run: () => torch.ones(2, 2, 3).matmul(torch.ones(3, 2, 2)),
      message: /^The size of tensor a \(2\) must match the size of tensor b \(3\) at non-singleton dimension 0$/,
    });
    misuse('matmul: 1-D by 2-D with the wrong length', {
      run: () => torch.ones(4).matmul(torch.ones(3, 2)),
      message: /^mat1 and mat2 shapes cannot be multiplied \(1x4 and 3x2\)$/,
    });
    misuse('matmul: a 0-d operand', {
      run: () => torch.matmul(torch.tensor(1), torch.ones(2, 2)),
      message: /^both arguments to matmul need to be at least 1D, but they are 0D and 2D$/,
    });
    misuse('matmul: other is not a tensor', {
      run: () => torch.ones(2, 2).matmul([[1, 2]]),
      message: /^matmul: other must be a tensor, got an array$/,
    });
    misuse('dot: lengths differ', {
      run: () => torch.dot(torch.ones(3), torch.ones(4)),
      message: /^inconsistent tensor size, expected tensor \[3\] and src \[4\] to have the same number of elements, but got 3 and 4 elements respectively$/,
    });
    misuse('dot: 2-D operands', {
      run: () => torch.dot(torch.ones(2, 3), torch.ones(2, 3)),
      message: /^1D tensors expected, but got 2D and 2D tensors$/,
    });
    // ------------------------------------------------------------ element-wise shapes and operands
    misuse('add: shapes that do not broadcast', {
      run: () => torch.ones(2, 3).add(torch.ones(4)),
      message: /^The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 1$/,
    });
    misuse('mul: a string operand', {
      run: () => torch.ones(2).mul('2'),
      message: /^mul: the operand must be a tensor or a number, got '2'$/,
    });
    misuse('maskedFill: a mask that does not broadcast', {
      run: () => torch.ones(2, 3).maskedFill(torch.ones(3, 2).bool(), 0),
      message: /^The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 0$/,
    });
    misuse('maskedFill: a float mask (a triu of ones not yet made .bool())', {
      run: () => torch.ones(2, 3).maskedFill(torch.tensor([[0, 2, 0], [-1, 0, 0.5]]), 7),
      message: /^masked_fill_ only supports boolean masks, but got mask with dtype float$/,
    });
    misuse('maskedFill: a value that is not a number', {
      run: () => torch.ones(2, 3).maskedFill(torch.ones(2, 3).bool(), '-inf'),
      message: /^maskedFill: the value must be a number, got '-inf'$/,
    });
    // ------------------------------------------------------------ reductions: dims
    misuse('softmax: dim out of range', {
      run: () => torch.softmax(torch.ones(2, 3), 5),
      message: /^Dimension out of range \(expected to be in range of \[-2, 1\], but got 5\)$/,
    });
    misuse('softmax: dim missing', {
      run: () => torch.ones(2, 3).softmax(),
      message: /^softmax: dim must be an integer, got undefined$/,
    });
    misuse('sum: dim out of range', {
      run: () => torch.ones(2, 3).sum(-3, true),
      message: /^Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)$/,
    });
    // ------------------------------------------------------------ masks and items
    misuse('triu: a 1-D tensor', {
      run: () => torch.triu(torch.ones(3)),
      message: /^triu: expected a tensor with at least 2 dims, got shape \[3\]$/,
    });
    misuse('triu with diagonal 0.5', {
      run: () => torch.triu(torch.ones(2, 2), 0.5),
      message: /^triu: diagonal must be an integer, got 0\.5$/,
    });
    misuse('item: more than one element', {
      run: () => torch.ones(2, 3).item(),
      message: /^item: only a tensor with one element can be converted to a number, got shape \[2,3\]$/,
    });
    // ------------------------------------------------------------ in place
    test('a refused add_ leaves the tensor unchanged', () => {
      const x = torch.tensor([[1, 2, 3], [4, 5, 6]]);
      throwsAttention(() => x.add_(torch.ones(4)), /^The size of tensor a \(3\) must match the size of tensor b \(4\)/);
      assert.deepEqual(x.toArray(), [[1, 2, 3], [4, 5, 6]]);
      x.add_(1);
      assert.deepEqual(x.toArray(), [[2, 3, 4], [5, 6, 7]]);
    });
    // ------------------------------------------------------------ memory
    misuse('matmul whose result is over the tensor limit', {
      run: () => torch.ones(2 ** 15, 1).matmul(torch.ones(1, 2 ** 15)),
      message: [/shape \[32768,32768\] is too large/, /268435456 elements/],
    });
    misuse('matmul over the tensor limit names the operation', {
      run: () => torch.ones(2 ** 15, 1).matmul(torch.ones(1, 2 ** 15)),
      message: [/^matmul: /, /too large/],
    });
    misuse('add whose broadcast result is over the tensor limit names the operation', {
      run: () => torch.ones(2 ** 15, 1).add(torch.ones(1, 2 ** 15)),
      message: [/^add: /, /too large/],
    });
    // Exhausting the 2 GiB heap leaves the instance's memory grown to about 1 GiB for good, so this runs in
    // a worker of its own, whose memory goes when it ends.
    test('an op that exhausts the 2 GiB wasm heap (each tensor under the limit), in a worker', async () => {
      const result = await new Promise((resolve, reject) => {
        const worker = new Worker(OOM_WORKER, {
          eval: true,
          workerData: { url: new URL('../../wasm/index.js', import.meta.url).href, flavour, rows: BOOK.embeddings },
        });
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      assert.equal(result.threw, true, 'expected an error');
      assert.equal(result.isAttentionError, true);
      assert.equal(result.name, 'AttentionError');
      assert.match(result.message, /out of memory/);
      assert.match(result.message, /heap/);
      assert.equal(result.allocatedAfter, result.allocatedBefore);
      assert.ok(result.heapBytes > 2 ** 29, `the heap grew before it ran out (${result.heapBytes} bytes)`);
      assert.equal(result.dot, 'tensor(0.7600)');
      assert.equal(result.selfAttention, BOOK.prints.sa_v1_out);
    });
  });
}
