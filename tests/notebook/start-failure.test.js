// A notebook whose Python cannot start (here: no Pyodide where it is told to look) fails loadNotebook with the
// reason, and ends its worker: the calling Node process is free to exit (it used to wait on the worker forever).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

const script = `
import { loadNotebook } from ${JSON.stringify(new URL('../../notebook/index.js', import.meta.url).href)};
try {
  await loadNotebook({ pyodideURL: 'file:///nonexistent/pyodide/' });
  console.log('loaded');
} catch (error) {
  console.log(error.name + ': ' + error.message);
}`;

test('a notebook that cannot start says why, and leaves nothing running', () => {
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(run.signal, null, 'the process ended by itself');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^NotebookError: loadNotebook: Cannot find module '\/nonexistent\/pyodide\/pyodide\.mjs'/);
});
