// A module's parameters as PyTorch's: a tensor read from a module shares the parameter's storage, so an
// in-place change through it, or through any view of it, reaches the module's forward; and it holds only
// that storage, so a kept weight does not keep its (dropped) module's wasm memory alive.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { bitsOf, forceGc, loadBuilds, settle } from './support.mjs';

for (const [flavour, torch] of await loadBuilds()) {
  describe(`parameters (${flavour})`, () => {
    const x = () => torch.tensor([[0.4, 0.1, 0.8], [0.5, 0.8, 0.6], [0.6, -0.3, 0.2]]);

    // The module `make` builds under `seed`, changed by `change`, against the same module given the changed
    // values by assignment (which copies them into the core): both forwards must give the same bits.
    function sameAsAssigned(seed, make, names, change) {
      torch.manualSeed(seed);
      const changed = make();
      torch.manualSeed(seed);
      const assigned = make();
      const original = bitsOf(changed.forward(x()));
      change(changed);
      for (const name of names) {
        const path = name.split('.');
        const owner = path.slice(0, -1).reduce((m, part) => m[part], assigned);
        owner[path.at(-1)] = path.reduce((m, part) => m[part], changed).clone();
      }
      const out = bitsOf(changed.forward(x()));
      assert.notDeepEqual(out, original, 'the change made no difference: the test would prove nothing');
      assert.deepEqual(out, bitsOf(assigned.forward(x())));
    }

    test('a row view of a weight filled in place reaches the module', () => {
      sameAsAssigned(123, () => new torch.nn.Linear(3, 2), ['weight'], (m) => m.weight.at(0).fill_(0));
    });

    test('a transposed view changed in place reaches the module', () => {
      sameAsAssigned(123, () => new torch.nn.Linear(3, 2), ['weight'], (m) => m.weight.T.add_(1));
      sameAsAssigned(5, () => new torch.SelfAttention_v1(3, 2), ['W_query'], (m) => m.W_query.T.at(1).fill_(2));
    });

    test('views of submodules\' parameters reach the forward of the module and of the submodule', () => {
      sameAsAssigned(7, () => new torch.MultiHeadAttention(3, 4, 3, 0.0, 2, true), ['out_proj.weight', 'W_key.bias'], (m) => {
        m.out_proj.weight.at(0).fill_(0);
        m.W_key.bias.slice(0, 1, 3).add_(0.5);
      });
      sameAsAssigned(9, () => new torch.MultiHeadAttentionWrapper(3, 2, 3, 0.0, 3), ['heads.1.W_value.weight'], (m) => {
        m.heads[1].W_value.weight.T.set([2, 1], 0.25);
      });
      torch.manualSeed(3);
      const v2 = new torch.SelfAttention_v2(3, 2);
      const detached = v2.W_query.weight.detach(); // shares the storage, as in PyTorch
      detached.at(1).zero_();
      assert.deepEqual(bitsOf(v2.W_query.forward(x())), bitsOf(torch.linear(x(), detached)));
    });

    test('a parameter read twice is one tensor; an assignment replaces it and leaves earlier reads alone', () => {
      torch.manualSeed(1);
      const m = new torch.nn.Linear(3, 2);
      assert.equal(m.weight, m.weight);
      const before = m.weight;
      const drawn = before.toArray();
      m.weight = torch.zeros(2, 3);
      assert.deepEqual(before.toArray(), drawn);
      before.add_(1); // no longer the module's
      assert.deepEqual(m.weight.toArray(), [[0, 0, 0], [0, 0, 0]]);
      assert.deepEqual(bitsOf(m.forward(x())), bitsOf(torch.linear(x(), torch.zeros(2, 3), m.bias)));
    });

    test('a weight of a deleted module is a tensor of its own', () => {
      const m = new torch.nn.Linear(3, 2);
      const w = m.weight;
      m.delete();
      assert.deepEqual(w.zero_().add_(2).toArray(), [[2, 2, 2], [2, 2, 2]]);
    });

    test('400 weights kept from dropped modules do not keep their modules', { skip: forceGc ? false : 'no way to force a GC' }, async () => {
      const dims = [64, 64, 256, 0.5, 8]; // each module holds 8 heads: about 2.5 MB of wasm memory
      // (in a function of its own: a suspended async function keeps its stale registers, hence its last module)
      const weightOf = (seed) => {
        torch.manualSeed(seed);
        return new torch.MultiHeadAttentionWrapper(...dims).heads[seed % 8].W_query.weight;
      };
      await settle();
      const start = torch.memoryUsage().allocatedBytes;
      const one = new torch.MultiHeadAttentionWrapper(...dims);
      const moduleBytes = torch.memoryUsage().allocatedBytes - start;
      one.delete();
      const kept = [];
      for (let round = 0; round < 8; round++) {
        for (let i = 0; i < 50; i++) kept.push(weightOf(kept.length));
        await settle();
        const held = torch.memoryUsage().allocatedBytes - start;
        assert.ok(held < 2 * moduleBytes, `${kept.length} weights kept: ${held} bytes held, one module is ${moduleBytes}`);
      }
      // the kept weights are whole: each as its module drew it
      for (const seed of [0, 123, 399]) assert.deepEqual(bitsOf(kept[seed]), bitsOf(weightOf(seed)));
    });
  });
}
