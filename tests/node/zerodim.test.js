// 0-d tensors through the JS API, as PyTorch has them: a dot product or a full sum views, reshapes,
// unsqueezes and stacks; and the chapter's score loop written with torch.stack gives the book's scores.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';

import { AttentionError } from '../../wasm/index.js';
import { bitsOf, loadBuilds } from './support.mjs';
import { BOOK } from '../../web/state.js';

for (const [flavour, torch] of await loadBuilds()) {
  describe(`0-d tensors (${flavour})`, () => {
    let d;
    before(() => {
      d = torch.dot(torch.tensor([1, 2, 3]), torch.tensor([4, 5, 6]));
    });

    test('a dot product is 0-d and prints as tensor(32.)', () => {
      assert.deepEqual(d.shape, []);
      assert.equal(d.toString(), 'tensor(32.)');
      assert.equal(d.item(), 32);
    });

    test('view, reshape, flatten and unsqueeze give shape [1]', () => {
      for (const t of [d.view(1), d.view(-1), d.reshape(1), d.flatten(), d.unsqueeze(0), d.unsqueeze(-1),
        torch.tensor(5.0).view(1), torch.rand(3).sum().view(1)]) {
        assert.deepEqual(t.shape, [1]);
      }
      assert.deepEqual(d.view(1, 1).toArray(), [[32]]);
      assert.deepEqual(d.view([]).shape, []);
      assert.throws(() => d.unsqueeze(1),
        (e) => e instanceof AttentionError && /^Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)$/.test(e.message));
      assert.throws(() => d.view(2), /^AttentionError: shape '\[2\]' is invalid for input of size 1$/);
    });

    test('unsqueeze on a matrix is a view', () => {
      const m = torch.tensor([[1, 2, 3], [4, 5, 6]]);
      assert.deepEqual(m.unsqueeze(1).shape, [2, 1, 3]);
      assert.deepEqual(m.unsqueeze(-1).shape, [2, 3, 1]);
      const u = m.unsqueeze(0);
      u.set([0, 1, 2], 60); // writes through to m
      assert.equal(m.toArray()[1][2], 60);
    });

    test('stack of 0-d tensors is a vector; cat refuses them', () => {
      assert.deepEqual(torch.stack([d, d]).toArray(), [32, 32]);
      assert.deepEqual(torch.stack([d, d], -1).shape, [2]);
      assert.throws(() => torch.cat([d, d]), (e) => e instanceof AttentionError &&
        e.message === 'zero-dimensional tensor (at position 0) cannot be concatenated');
    });

    test('0-d operands broadcast; softmax and sums over dim 0 and -1', () => {
      assert.deepEqual(d.add(torch.ones(2, 3)).toArray(), [[33, 33, 33], [33, 33, 33]]);
      assert.deepEqual(torch.ones(2).sub(d).toArray(), [-31, -31]);
      for (const dim of [0, -1]) {
        assert.equal(torch.softmax(d, dim).toString(), 'tensor(1.)');
        assert.equal(d.sum(dim).item(), 32);
      }
      assert.throws(() => torch.softmax(d, 1), /^AttentionError: Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)$/);
    });

    test("the chapter's scores as torch.stack of dot products: the book's numbers, matmul's bits", () => {
      const inputs = torch.tensor(BOOK.embeddings);
      const query = inputs.at(1);
      const scores = torch.stack([...inputs].map((x) => torch.dot(x, query)));
      assert.equal(scores.toString(), 'tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])');
      assert.deepEqual(bitsOf(scores), bitsOf(inputs.matmul(query)));
    });
  });
}
