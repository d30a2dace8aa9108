// "Run this code yourself": the notebook's cells, one per step, put together by web/notebook/chapter-cells.js
// from the steps' own lines, run in the notebook (Pyodide and the notebook's torch) without an error under the
// book's settings and others, and each prints what its step shows, in order, as the page shows it
// (web/chapter/, computed by the same core through the JS API). And the notebook's torch makes the methods and
// functions the op table (wasm/api/ops.js) marks for it from the table, none of them written again by hand.
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

test('the op table’s plain methods and functions are made from the table in the notebook’s torch', async () => {
  const { output, error } = await nb.run(`
import torch
from torch._tensor import OPS, _method, pytorch_name
made = _method(next(e for e in OPS if "method" in e.get("notebook", ()))).__code__  # the table's makers
made_function = torch._function("abs").__code__
marked, not_made = 0, []
for entry in OPS:
    name = pytorch_name(entry["name"])
    for kind in entry.get("notebook", ()):
        marked += 1
        if kind == "method" and getattr(getattr(torch.Tensor, name, None), "__code__", None) is not made:
            not_made.append(f"Tensor.{name}")
        if kind == "function" and getattr(getattr(torch, name, None), "__code__", None) is not made_function:
            not_made.append(f"torch.{name}")
print(marked, not_made)`);
  assert.equal(error, null, error?.traceback);
  const [, marked, notMade] = /^(\d+) (.*)\n$/.exec(output);
  assert.equal(Number(marked), torch.ops.reduce((n, e) => n + (e.notebook?.length ?? 0), 0));
  assert.equal(notMade, '[]', 'written by hand over the table’s');
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
