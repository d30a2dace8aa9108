// The .ipynb reader and writer (web/notebook/ipynb.js): a notebook saved by Jupyter (tests/notebook/jupyter/,
// made by its committed script with PyTorch) read into cells with what each printed; its code run in the
// notebook prints the same; a written notebook is nbformat 4.5 that reads back to the same cells; files that
// are not notebooks are refused with what is wrong.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import { loadNotebook } from '../../notebook/index.js';
import { IpynbError, MAX_IPYNB_BYTES, readIpynb, writeIpynb } from '../../web/notebook/ipynb.js';

const JUPYTER_FILE = readFileSync(new URL('./jupyter/chapter-start.ipynb', import.meta.url), 'utf8');

let nb;
before(async () => { nb = await loadNotebook(); });
after(() => nb?.close());

test("a Jupyter notebook's cells: code as cells, markdown and raw as text, saved outputs as what each printed", () => {
  const { name, profile, cells } = readIpynb(JUPYTER_FILE, 'chapter-start.ipynb');
  assert.equal(name, 'chapter-start');
  assert.equal(profile, 'default');
  assert.deepEqual(cells.map((c) => c.kind ?? 'code'), ['markdown', 'code', 'code', 'markdown', 'code', 'code', 'markdown']);
  assert.equal(cells[0].source, "# Attention by hand\n\nThe book's six words, then their attention weights.");
  assert.equal(cells[1].source, 'import torch\ntorch.manual_seed(123)\ninputs = torch.rand(6, 3)\ninputs.shape');
  assert.equal(cells[1].printed, 'torch.Size([6, 3])\n');
  assert.equal(cells[2].printed, 'tensor([0.1174, 0.2536, 0.0962, 0.2268, 0.1042, 0.2019])\ntensor([1.0000, 1.0000, 1.0000, 1.0000, 1.0000, 1.0000])\n');
  // IPython's traceback, its colours taken out
  assert.doesNotMatch(cells[4].printed, /\x1b/);
  assert.match(cells[4].printed, /RuntimeError: mat1 and mat2 shapes cannot be multiplied \(6x3 and 6x3\)\n$/);
  assert.equal(cells[5].printed, '0 1 2 \n');
  assert.equal(cells[6].printed, undefined, 'a raw cell has no outputs');
});

test('its code, run in the notebook, prints what Jupyter saved (PyTorch 1.13), cell by cell', async () => {
  const { cells } = readIpynb(JUPYTER_FILE);
  for (const cell of cells.filter((c) => !c.kind)) {
    const { output, error } = await nb.run(cell.source);
    if (error) {
      assert.match(cell.printed, new RegExp(`${error.type}: `), `Jupyter's run failed alike: ${cell.source}`);
      continue;
    }
    assert.equal(output.replace(/\n$/, ''), cell.printed.replace(/\n$/, ''), cell.source);
  }
});

/** nbformat 4.5's required fields (its schema, by hand): the checks Jupyter makes before it opens a file. */
function assertNbformat45(json) {
  assert.equal(json.nbformat, 4);
  assert.ok(json.nbformat_minor >= 5);
  assert.equal(typeof json.metadata, 'object');
  const ids = new Set();
  for (const cell of json.cells) {
    assert.match(cell.id, /^[a-zA-Z0-9-_]{1,64}$/);
    assert.ok(!ids.has(cell.id), `cell ids are unique (${cell.id})`);
    ids.add(cell.id);
    assert.equal(typeof cell.metadata, 'object');
    assert.ok(Array.isArray(cell.source) && cell.source.every((l) => typeof l === 'string'));
    if (cell.cell_type === 'code') {
      assert.ok(cell.execution_count === null || Number.isInteger(cell.execution_count));
      for (const o of cell.outputs) {
        if (o.output_type === 'stream') assert.ok(['stdout', 'stderr'].includes(o.name) && Array.isArray(o.text));
        else if (o.output_type === 'error') assert.ok(typeof o.ename === 'string' && typeof o.evalue === 'string' && Array.isArray(o.traceback));
        else assert.fail(`an output type the writer does not make: ${o.output_type}`);
      }
    } else {
      assert.equal(cell.cell_type, 'markdown');
      assert.equal(cell.outputs, undefined);
    }
  }
}

test('a written notebook is nbformat 4.5 with the page’s outputs, and reads back to the same cells', async () => {
  const cells = [
    { source: '# notes', kind: 'markdown' },
    { source: 'x = 41\nprint(x + 1)\nx' },
    { source: 'x @ x' },
    { source: 'y = 2', printed: 'from elsewhere\n' },
    { source: '' },
  ];
  const runs = [];
  for (const cell of cells.slice(1, 3)) runs.push({ ...(await nb.run(cell.source)), count: runs.length + 1 });
  const text = writeIpynb({ profile: 'mkl', cells: cells.map((c, i) => (i === 1 || i === 2 ? { ...c, run: runs[i - 1] } : c)) });
  assert.ok(text.endsWith('}\n') && text.startsWith('{\n "cells": [\n'), 'in nbformat’s layout');
  const json = JSON.parse(text);
  assertNbformat45(json);
  assert.deepEqual(json.cells[1].outputs, [{ name: 'stdout', output_type: 'stream', text: ['42\n', '41\n'] }]);
  assert.equal(json.cells[1].execution_count, 1);
  assert.equal(json.cells[2].outputs[0].output_type, 'error');
  assert.match(json.cells[2].outputs[0].ename, /Error$/);
  assert.deepEqual(json.cells[3].outputs, [{ name: 'stdout', output_type: 'stream', text: ['from elsewhere\n'] }], 'a cell not run here keeps what it printed');
  assert.equal(json.cells[3].execution_count, null);

  const back = readIpynb(text);
  assert.equal(back.profile, 'mkl');
  assert.deepEqual(back.cells.map((c) => [c.source, c.kind]), cells.map((c) => [c.source, c.kind]));
  assert.equal(back.cells[1].printed, '42\n41\n');
  assert.deepEqual(readIpynb(writeIpynb(back)).cells, back.cells, 'reading and writing again changes nothing');
  assert.deepEqual(readIpynb(writeIpynb(readIpynb(JUPYTER_FILE))).cells, readIpynb(JUPYTER_FILE).cells, 'the Jupyter file too');
});

test('a file that is not a notebook is refused with what is wrong with it', () => {
  const refused = (text, pattern) => assert.throws(() => readIpynb(text, 'mine.ipynb'), (e) => e instanceof IpynbError && pattern.test(e.message));
  refused('print(1)', /^mine\.ipynb is not a Jupyter notebook: it is not JSON \(/);
  refused('[1, 2]', /it holds no notebook object/);
  refused('{"nbformat": 4}', /it has no list of cells/);
  refused('{"nbformat": 3, "worksheets": []}', /nbformat 3 notebook; this page opens version 4/);
  refused('{"nbformat": 4, "cells": [{"cell_type": "heading"}]}', /cell 1 has no cell type this page knows \("heading"; expected/);
  refused(' '.repeat(MAX_IPYNB_BYTES + 1), /more than the 8 MB/);
  assert.deepEqual(readIpynb('{"nbformat": 4, "nbformat_minor": 5, "cells": []}').cells, [{ source: '' }], 'an empty notebook opens with one empty cell');
});
