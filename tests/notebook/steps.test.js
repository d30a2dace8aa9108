// "Run this code yourself": the notebook's cells, one per step, put together by web/notebook/chapter-cells.js
// from the steps' own lines, run in the notebook (Pyodide and the notebook's torch) without an error under the
// book's settings and others, and each prints what its step shows, in order, as the page shows it
// (web/chapter/, computed by the same core through the JS API).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadNotebook } from '../../notebook/index.js';
import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings } from '../../web/state.js';
import { STEPS } from '../../web/steps/index.js';
import { cellsForStep, chapterCells } from '../../web/notebook/chapter-cells.js';

import { SETTINGS, assertPrintsInOrder } from './chapter-settings.mjs';

let nb, torch;
before(async () => { [nb, torch] = await Promise.all([loadNotebook(), loadAttention()]); });
after(() => nb?.close());

test('a step opens the cells up to its own, one cell per step', () => {
  const cells = chapterCells(bookSettings());
  assert.deepEqual(cells.map((c) => c.step), STEPS.map((s) => s.id));
  STEPS.forEach((step, i) => {
    const opened = cellsForStep(step.id, bookSettings());
    assert.deepEqual(opened, cells.slice(0, i + 1).map((c) => c.code.join('\n')), step.id);
  });
});

for (const [label, settings] of Object.entries(SETTINGS)) {
  describe(`the chapter's cells under ${label} settings`, () => {
    const cells = chapterCells(settings);
    let results;
    before(async () => {
      await nb.restart();
      await nb.setProfile(settings.profile); // the notebook's torch draws either build's masks
      results = computeChapter(torch, settings);
    });
    cells.forEach((cell, i) => {
      test(`cell ${i + 1} (${cell.step})`, async () => {
        const { output, error } = await nb.run(cell.code.join('\n'));
        assert.equal(error, null, error?.traceback);
        assert.ok(assertPrintsInOrder(torch, output, STEPS[i], settings, results) >= 1, `${cell.step} prints nothing it shows`);
      });
    });
  });
}
