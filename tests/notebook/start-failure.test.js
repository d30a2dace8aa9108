// A notebook whose Python cannot start (here: no Pyodide where it is told to look) fails loadNotebook with the
// reason, and ends its worker: the calling Node process is free to exit (it used to wait on the worker forever).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = `
import { loadNotebook } from ${JSON.stringify(new URL('../../notebook/index.js', import.meta.url).href)};
try {
  await loadNotebook({ pyodideURL: 'file:///nonexistent/pyodide/' });
  console.log('loaded');
} catch (error) {
  console.log(error.name + ': ' + error.message);
}`;

test('a notebook that cannot start says why, and leaves nothing running', () => {
  const folder = mkdtempSync(join(tmpdir(), 'notebook-start-'));
  const file = join(folder, 'start.mjs'); // a file, not -e: the worker would inherit -e's flags
  writeFileSync(file, script);
  const run = spawnSync(process.execPath, [file], { encoding: 'utf8', timeout: 30_000 });
  rmSync(folder, { recursive: true });
  assert.equal(run.signal, null, 'the process ended by itself');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^NotebookError: loadNotebook: Cannot find module '\/nonexistent\/pyodide\/pyodide\.mjs'/);
});
