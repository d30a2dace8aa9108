// "Open in notebook": the cells web/notebook/chapter-cells.js writes from the page's settings run without an
// error, under the book's settings and others, and print the numbers the page's steps show for them
// (web/chapter/index.js, computed by the same core through the JS API).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadNotebook } from '../../notebook/index.js';
import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings } from '../../web/state.js';
import { STEPS } from '../../web/steps/index.js';
import { cellsForStep, chapterCells } from '../../web/notebook/chapter-cells.js';

import { SETTINGS, SHOWN, printedByPage } from './chapter-settings.mjs';

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
            const printed = printedByPage(torch, page);
            assert.ok(output.includes(printed), `${name} as the page shows it:\n${printed}\nnot in:\n${output}`);
          }
        }
      });
    });
  });
}
