// "Open in notebook": the cells web/notebook/chapter-cells.js writes from the page's settings run without an
// error, under the book's settings and others, and print the numbers the page's steps show for them
// (web/chapter.js, computed by the same core through the JS API).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadNotebook } from '../../notebook/index.js';
import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter.js';
import { bookSettings } from '../../web/state.js';
import { STEPS } from '../../web/steps/index.js';
import { cellsForStep, chapterCells } from '../../web/notebook/chapter-cells.js';

// Which printed tensor of which cell is which of the page's results.
const SHOWN = {
  'embeddings': ['inputs'],
  'context-z2': ['context_vec_2'],
  'all-context': ['attn_scores', 'attn_weights', 'all_context_vecs'],
  'qkv-weights': ['W_query', 'keys'],
  'self-attention-v2': ['sa_v1_out', 'sa_v2_out'],
  'ex31-transfer': ['ex31_out_v1'],
  'causal-softmax': ['causal_weights', 'masked_simple_norm', 'masked_scores', 'causal_attn_weights'],
  'dropout-weights': ['dropout_ones', 'dropout_weights'],
  'causal-attention': ['ca_context_vecs'],
  'wrapper': ['wrapper_out', 'wrapper_out_d1'],
  'mha-output': ['mha_out'],
};

const SETTINGS = {
  "the book's": bookSettings(),
  'other (seed 7, seedV2 1, d_out 4, 4 heads, p 0.2, qkv_bias, new words and numbers)': {
    ...bookSettings(), seed: 7, seedV2: 1, d_out: 4, heads: 4, p: 0.2, qkv_bias: true,
    tokens: ['the', 'cat', 'sat', 'on', 'a', 'mat'],
    embeddings: [[0.1, 0.2, 0.3], [0.9, 0.8, 0.7], [0.25, 0.5, 0.75], [1, 0, 0.5], [0.05, 0.95, 0.4], [0.6, 0.3, 0.1]],
  },
};

let nb, torch;
before(async () => { [nb, torch] = await Promise.all([loadNotebook(), loadAttention()]); });
after(() => nb?.close());

test('every step opens the cells up to the one that computes it', () => {
  const cells = chapterCells(bookSettings());
  const covered = cells.flatMap((c) => c.steps);
  assert.deepEqual([...covered].sort(), STEPS.map((s) => s.id).sort(), 'each step is in exactly one cell');
  for (const step of STEPS) {
    const opened = cellsForStep(step.id, bookSettings());
    assert.ok(cells[opened.length - 1].steps.includes(step.id), step.id);
  }
});

for (const [label, settings] of Object.entries(SETTINGS)) {
  describe(`the chapter's cells under ${label} settings`, () => {
    const cells = chapterCells(settings);
    let results;
    before(async () => {
      await nb.restart();
      results = computeChapter(torch, settings);
    });
    cells.forEach((cell, i) => {
      test(`cell ${i + 1} (${cell.steps.join(', ')})`, async () => {
        const { output, error } = await nb.run(cell.code.join('\n'));
        assert.equal(error, null, error?.traceback);
        for (const step of cell.steps) {
          for (const name of SHOWN[step] ?? []) {
            const page = results[name];
            if (!page) continue; // e.g. the mha results when d_out is not a multiple of heads
            // The page's values printed by the core: the notebook's print of the same tensor starts so.
            const printed = torch.tensor(page.values).toString().replace(/\)$/, '');
            assert.ok(output.includes(printed), `${name} as the page shows it:\n${printed}\nnot in:\n${output}`);
          }
        }
      });
    });
  });
}
