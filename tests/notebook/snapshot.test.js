// A notebook restored from a snapshot of Python (loadNotebook's snapshot / onSnapshot; here read gzipped from
// snapshotURL, as the site reads its build's) behaves as one that started Python: the same outputs, fresh random numbers, a restart that loads torch afresh, Stop that keeps the namespace,
// the host still shut; a snapshot made from other files is refused, with the reason, and Python starts as usual.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

import { NotebookError, loadNotebook } from '../../notebook/index.js';
import { startSession } from '../../notebook/session.js';

const CELL = 'import torch\ntorch.manual_seed(123)\nprint(torch.rand(2, 3))';
const RANDOM = 'import random\nprint(random.random())';

let made; // the snapshot, and what the notebook that made it printed
before(async () => {
  let snapshot = null;
  const nb = await loadNotebook({ onSnapshot: (bytes) => { snapshot = bytes; } });
  made = { restored: nb.restoredFromSnapshot, cell: await nb.run(CELL), random: await nb.run(RANDOM) };
  await nb.close();
  made.snapshot = snapshot;
});

test('a start that restores none takes a snapshot, before any cell', () => {
  assert.equal(made.restored, false);
  assert.ok(made.snapshot instanceof Uint8Array && made.snapshot.length > 16 * 1024 * 1024, 'the whole memory of Python');
  assert.equal(made.cell.error, null);
});

describe('a notebook restored from it', () => {
  let nb, folder;
  before(async () => {
    folder = mkdtempSync(`${tmpdir()}/notebook-snapshot-`);
    writeFileSync(`${folder}/snapshot.gz`, gzipSync(made.snapshot, { level: 1 }));
    nb = await loadNotebook({ snapshotURL: pathToFileURL(`${folder}/snapshot.gz`).href });
  });
  after(async () => {
    await nb?.close();
    rmSync(folder, { recursive: true, force: true });
  });

  test('restored: the same output, random numbers of its own, the host still shut', async () => {
    assert.equal(nb.restoredFromSnapshot, true);
    assert.equal(nb.restoredFrom, 'build');
    assert.equal(nb.snapshotRefused, null);
    assert.deepEqual(await nb.run(CELL), made.cell);
    const random = await nb.run(RANDOM);
    assert.equal(random.error, null);
    // Without a new seed the restore would draw exactly what the notebook that made the snapshot drew first.
    assert.notEqual(random.output, made.random.output);
    const { error } = await nb.run('import os\nos.system("true")');
    assert.equal(error?.type, 'PermissionError');
    assert.equal((await nb.run('import sys\nprint(sys.path[0])')).output, '/home/pyodide/attention\n');
  });

  test('restored: Stop keeps the namespace; a restart loads torch afresh', async () => {
    let looping;
    const underWay = new Promise((resolve) => { looping = resolve; });
    const loop = nb.run('x = 41\nprint("looping")\nwhile True:\n    pass', { onOutput: looping });
    await Promise.race([underWay, loop]);
    assert.equal(await nb.stop(), 'interrupted');
    assert.equal((await loop).error?.type, 'KeyboardInterrupt');
    assert.equal((await nb.run('print(x + 1)')).output, '42\n');
    await nb.restart();
    assert.equal((await nb.run('import sys\nprint("torch" in sys.modules, "x" in dir())')).output, 'False False\n');
    assert.deepEqual(await nb.run(CELL), made.cell);
  });
});

test('a snapshot made from other files is refused, and Python starts as usual', async () => {
  const other = made.snapshot.slice();
  const header = new TextDecoder().decode(other.subarray(4, 200));
  const at = 4 + header.indexOf('"key":"') + 7; // one character of the key changed: another build's files
  other[at] = other[at] === 0x30 ? 0x31 : 0x30;
  const nb = await loadNotebook({ snapshot: other });
  try {
    assert.equal(nb.restoredFromSnapshot, false);
    assert.match(nb.snapshotRefused, /made from other files/);
    assert.deepEqual(await nb.run(CELL), made.cell);
  } finally {
    await nb.close();
  }
});

test('the snapshot options are checked', async () => {
  await assert.rejects(loadNotebook({ snapshot: 'bytes' }), (e) => e instanceof NotebookError && /snapshot must be an ArrayBuffer/.test(e.message));
  await assert.rejects(loadNotebook({ onSnapshot: 1 }), (e) => e instanceof NotebookError && /onSnapshot must be a function/.test(e.message));
  await assert.rejects(loadNotebook({ snapshotURL: 'snapshot.gz' }), (e) => e instanceof NotebookError && /snapshotURL must be an absolute URL, got "snapshot.gz"/.test(e.message));
  // The browser's snapshot is made under Node with Python as a browser leaves it, so not sandboxed.
  await assert.rejects(startSession({ makeSnapshot: true, snapshotFor: 'browser' }), /made with hostAccess: true/);
  await assert.rejects(startSession({ snapshotFor: 'deno' }), /snapshotFor must be 'node' or 'browser', got "deno"/);
});
