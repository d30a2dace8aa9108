// t.stride(), t.storageOffset() and t.isContiguous(): the view the core made, read as PyTorch reports it.
// Expected values are PyTorch's rules for these ops (contiguous strides, view keeps them, transpose swaps
// two, indexing adds to the offset), the layout the multi-head steps explain.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';

import { AttentionError } from '../../wasm/index.js';
import { backendOf, loadBuilds } from './support.mjs';

for (const [flavour, torch] of await loadBuilds()) {
  describe(flavour, () => {
    before(() => {
      assert.equal(torch.backend, backendOf(flavour));
    });

    test(`strides, offsets and contiguity of views (${flavour})`, () => {
      const q = torch.rand(2, 6, 4); // [b, num_tokens, d_out]
      assert.deepEqual(q.stride(), [24, 4, 1]);
      assert.equal(q.isContiguous(), true);
      const viewed = q.view(2, 6, 2, 2); // [b, num_tokens, num_heads, head_dim]
      assert.deepEqual(viewed.stride(), [24, 4, 2, 1]);
      const split = viewed.transpose(1, 2); // [b, num_heads, num_tokens, head_dim]
      assert.deepEqual(split.shape, [2, 2, 6, 2]);
      assert.deepEqual(split.stride(), [24, 2, 4, 1]);
      assert.equal(split.stride(-2), 4);
      assert.equal(split.isContiguous(), false);
      assert.equal(split.storageOffset(), 0);
      assert.equal(split.at(1).at(1).storageOffset(), 24 + 2);
      assert.equal(q.at(0).T.isContiguous(), false);
      assert.deepEqual(q.at(0).T.stride(), [1, 4]);
      // the same number at storage element offset + Σ index·stride
      const flat = q.data;
      const [b, h, t, j] = [1, 1, 4, 0];
      assert.equal(split.at(b).at(h).at(t).at(j).item(), flat[b * 24 + h * 2 + t * 4 + j]);
      // merging back: view refuses the transposed layout, contiguous() copies into row-major order
      assert.throws(() => split.view(2, 6, 4), (e) => e instanceof AttentionError && /^view size is not compatible/.test(e.message));
      const merged = split.transpose(1, 2).contiguous();
      assert.deepEqual(merged.stride(), [24, 4, 2, 1]);
      assert.equal(merged.isContiguous(), true);
      // the core checks the dim, with the message it gives every op
      const refused = (message) => (e) => e instanceof AttentionError && e.message === message;
      assert.throws(() => q.stride(3),
        refused('Dimension out of range (expected to be in range of [-3, 2], but got 3)'));
      assert.throws(() => torch.tensor(1).stride(0), refused('Dimension specified as 0 but tensor has no dimensions'));
    });
  });
}
