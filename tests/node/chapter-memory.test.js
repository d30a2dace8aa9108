// The page's wasm memory over many settings edits: every edit of a seed or a size replaces the chapter's
// modules, and the page must delete those it replaces (the garbage collector does not see the memory a module
// holds in the wasm heap, so it does not hurry to free them). No GC is forced here, as the page forces none.
// One build is enough: what is checked is which modules the chapter's code deletes.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings, MAX_D_IN, MAX_WORDS, SETTINGS } from '../../web/state.js';

let torch;
before(async () => {
  torch = await loadAttention();
});

const EDITS = 120;
const WARM_UP = 20; // edits before the usage is taken: the first cycle of the variants below

// The largest sizes the page allows; the n-th edit changes a seed, and in turn heads, qkv_bias and context_length.
const largest = (() => {
  const tokens = Array.from({ length: MAX_WORDS }, (_, i) => `w${i}`);
  const embeddings = tokens.map((_, i) => Array.from({ length: MAX_D_IN }, (__, j) => ((i * 7 + j * 3) % 11) / 10 - 0.5));
  return { ...bookSettings(), tokens, embeddings, d_out: SETTINGS.d_out.limits[1], heads: SETTINGS.heads.limits[1] };
})();
const edit = (n) => ({
  ...largest,
  seed: 100 + n,
  heads: n % 2 ? largest.heads : largest.heads / 2,
  qkv_bias: n % 4 >= 2,
  context_length: n % WARM_UP === 5 ? SETTINGS.context_length.limits[1] : n % 3 ? null : 4 * MAX_WORDS,
});

test(`${EDITS} settings edits at the largest sizes leave the wasm memory where the first ${WARM_UP} took it`, () => {
  const first = computeChapter(torch, edit(0));
  const firstOut = first.mha_out.values;
  let warmUpMost = 0;
  for (let n = 1; n < WARM_UP; n++) {
    computeChapter(torch, edit(n));
    warmUpMost = Math.max(warmUpMost, torch.memoryUsage().allocatedBytes);
  }
  const { heapBytes } = torch.memoryUsage();
  for (let n = WARM_UP; n < EDITS; n++) {
    computeChapter(torch, edit(n));
    const usage = torch.memoryUsage();
    assert.ok(usage.allocatedBytes <= warmUpMost + 2 ** 20,
      `edit ${n}: ${usage.allocatedBytes} bytes allocated, at most ${warmUpMost} during the first ${WARM_UP}`);
    assert.equal(usage.heapBytes, heapBytes, `edit ${n}: the heap grew`);
  }
  // and the chapter computes as before
  assert.deepEqual(computeChapter(torch, edit(0)).mha_out.values, firstOut);
});

test('a recompute the modules reject keeps the modules of the results still shown', () => {
  const shown = computeChapter(torch, edit(1));
  assert.throws(() => computeChapter(torch, { ...edit(2), heads: 3 }), /d_out must be divisible by num_heads/);
  assert.throws(() => computeChapter(torch, { ...edit(3), context_length: 2 }), /more than context_length = 2/);
  // taking a cell apart runs the modules of the shown results (here, the last head of the wrapper)
  const lastCell = ({ wrapper_out }) => wrapper_out.explain(wrapper_out.shape.map((n) => n - 1));
  assert.match(lastCell(shown).join('\n'), /of head 15\n/);
  assert.match(lastCell(computeChapter(torch, edit(4))).join('\n'), /of head 7\n/);
});
