// Hostile and careless cells under Node: a cell cannot reach the host unless hostAccess is given, a worker that
// ends or breaks is replaced, listeners that throw are contained, restart() always gives a clean interpreter,
// long strings cross intact, and Python's own errors come through by name. The first notebook starts Python;
// the others, and the workers that replace a broken one, restore from a snapshot (a start in seconds, not tens).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadNotebook, NotebookError } from '../../notebook/index.js';

const unhandled = [];
process.on('unhandledRejection', (reason) => unhandled.push(reason));

const scratch = mkdtempSync(join(tmpdir(), 'notebook-hostile-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a cell that must fail, and returns its error. */
async function failing(nb, code) {
  const { error } = await nb.run(code);
  assert.ok(error, `the cell ran without an error:\n${code}`);
  return error;
}

// The snapshot the first notebook takes as it starts (kept before loadNotebook resolves).
let sandboxedSnapshot;

describe('by default a cell cannot reach the host', () => {
  let nb;
  before(async () => { nb = await loadNotebook({ onSnapshot: (bytes) => { sandboxedSnapshot = bytes; } }); });
  after(() => nb?.close());

  test('no commands: os.system and libc system() run nothing', async () => {
    const touched = join(scratch, 'touched');
    const error = await failing(nb, `import os\nos.system("touch ${touched}")`);
    assert.equal(error.type, 'PermissionError');
    assert.match(error.message, /hostAccess: true/);
    const notFound = 127 << 8; // the shell's "command not found", as a wait status
    assert.deepEqual(await nb.run(`import posix\nposix.system("touch ${touched}")`), { output: `${notFound}\n`, error: null });
    assert.deepEqual(await nb.run(`import ctypes\nctypes.CDLL(None).system(b"touch ${touched}")`),
      { output: `${notFound}\n`, error: null });
    assert.equal(existsSync(touched), false);
  });

  test("no host files: open('/etc/passwd') fails, Pyodide's API (which mounts host folders) is out of reach", async () => {
    assert.equal((await failing(nb, 'open("/etc/passwd").read()')).type, 'FileNotFoundError');
    assert.equal((await failing(nb, 'import pyodide_js\npyodide_js.mountNodeFS("/mnt", "/")')).type, 'ModuleNotFoundError');
    assert.equal((await failing(nb, 'import pyodide_js._api')).type, 'ModuleNotFoundError');
    // Whatever JavaScript the loaded modules hold, none of it leads to Pyodide's API or Node.
    const { output, error } = await nb.run(`import sys
from pyodide.ffi import JsProxy
modules = list(sys.modules.values())
held = [v for v in modules + [v for m in modules for v in list(getattr(m, "__dict__", {}).values())] if isinstance(v, JsProxy)]
[name for v in held for name in ("public_api", "mountNodeFS", "FS", "process", "require", "_module") if hasattr(v, name)]`);
    assert.deepEqual({ output, error }, { output: '[]\n', error: null });
  });

  test('no JavaScript from text: emscripten_run_script through ctypes is refused', async () => {
    const error = await failing(nb, 'import ctypes\nctypes.CDLL(None).emscripten_run_script_int(b"1")');
    assert.match(error.message, /eval is not available in the notebook/);
  });

  test("no Node: js has neither process, require nor fetch, and no function's constructor compiles code", async () => {
    for (const name of ['process', 'require', 'fetch', 'globalThis', 'eval', 'Function']) {
      assert.equal((await failing(nb, `import js\njs.${name}`)).type, 'AttributeError', name);
    }
    for (const reach of ['import js\njs.Object.constructor("return process")()',
      'import _attention_api\n_attention_api.manualSeed.constructor("return process")()']) {
      assert.match((await failing(nb, reach)).message, /not available in the notebook/, reach);
    }
  });

  test('no network: a socket, urllib, fetch or pyfetch to a server on localhost never connects', async () => {
    let connections = 0;
    const server = createServer((socket) => { connections++; socket.destroy(); });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address();
      const url = `http://127.0.0.1:${port}/`;
      await failing(nb, `import socket\nsocket.create_connection(("127.0.0.1", ${port})).sendall(b"x")`);
      await failing(nb, `import urllib.request\nurllib.request.urlopen("${url}").read()`);
      await failing(nb, `import js\njs.fetch("${url}")`);
      await nb.run(`import asyncio\nfrom pyodide.http import pyfetch\nfetched = asyncio.ensure_future(pyfetch("${url}"))`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(connections, 0);
    } finally {
      server.close();
    }
  });

  test('loadNotebook checks hostAccess', async () => {
    await assert.rejects(loadNotebook({ hostAccess: 'yes' }), /hostAccess must be true or false/);
  });
});

describe('with hostAccess: true (trusted code)', () => {
  let nb;
  // its own snapshot (one made sandboxed is refused here) for the worker that replaces an ended one
  before(async () => { nb = await loadNotebook({ hostAccess: true, onSnapshot: () => {} }); });
  after(() => nb?.close());

  test('a cell runs commands on the host', async () => {
    const touched = join(scratch, 'trusted');
    assert.equal((await nb.run(`import os\nos.system("touch ${touched}")`)).error, null);
    assert.equal(existsSync(touched), true);
  });

  test('a cell that ends the worker: the run rejects with a NotebookError, the next run starts a new worker', async () => {
    await nb.run('kept = 1');
    await assert.rejects(nb.run('import js\njs.process.exit(0)'),
      (error) => error instanceof NotebookError && /the Python worker ended.*variables gone/.test(error.message));
    assert.equal((await failing(nb, 'kept')).type, 'NameError');
    assert.deepEqual(await nb.run('import torch\ntorch.ones(2).sum()'), { output: 'tensor(2.)\n', error: null });
  });
});

describe('a notebook survives', () => {
  let nb;
  before(async () => {
    nb = await loadNotebook({ snapshot: sandboxedSnapshot });
    assert.equal(nb.restoredFromSnapshot, sandboxedSnapshot !== undefined, nb.snapshotRefused ?? 'no snapshot was taken');
  });
  after(() => nb?.close());

  test('an onOutput listener that throws: reported once, the cell runs to its end', async () => {
    const reported = [];
    const consoleError = console.error;
    console.error = (...args) => reported.push(args);
    try {
      const result = await nb.run('for i in range(3):\n    print(i)', { onOutput: () => { throw new Error('listener'); } });
      assert.deepEqual(result, { output: '0\n1\n2\n', error: null });
    } finally {
      console.error = consoleError;
    }
    assert.equal(reported.length, 1);
    assert.match(String(reported[0][0]), /onOutput listener threw/);
  });

  for (const [what, breaks] of [
    ['sys.modules.clear()', 'import sys\nsys.modules.clear()'],
    ['builtins.print = None', 'import builtins\nbuiltins.print = None'],
    ['an overwritten torch/_core.py', 'import torch, os\nopen(os.path.join(os.path.dirname(torch.__file__), "_core.py"), "w").write("raise SystemExit")\nimport sys\ndel sys.modules["torch"], sys.modules["torch._core"]'],
    ['a broken standard module the runner uses', 'import ast\nast.parse = None'],
    ['sys.setrecursionlimit replaced, the working directory changed', 'import sys, os\nsys.setrecursionlimit = None\nos.chdir("/tmp")'],
    ['a link to the standard library in the package folder', 'import os\nos.symlink("/lib", "/home/pyodide/attention/lib")'],
  ]) {
    test(`restart() gives a clean interpreter after ${what}`, async () => {
      await nb.run(breaks);
      await nb.restart();
      assert.deepEqual(await nb.run('print(1)\nimport os, sys, fractions\nos.getcwd(), sys.getrecursionlimit()'),
        { output: "1\n('/home/pyodide', 1000)\n", error: null });
      assert.deepEqual(await nb.run('import torch\ntorch.ones(2).sum()'), { output: 'tensor(2.)\n', error: null });
    });
  }

  test('a cell that breaks Python for good: an error that says so, then a new worker', async () => {
    await nb.run('kept = 1');
    const fatal = nb.run('import _pyodide_core\n_pyodide_core.trigger_fatal_error()');
    const queued = nb.run('print("queued behind it")');
    await assert.rejects(queued, (e) => e instanceof NotebookError && /Python could not go on/.test(e.message));
    const { error } = await fatal;
    assert.equal(error.type, 'InternalError');
    assert.match(error.message, /Python could not go on: it restarts at the next cell, its variables gone/);
    assert.equal((await failing(nb, 'kept')).type, 'NameError');
    assert.deepEqual(await nb.run('import torch\ntorch.ones(2).sum()'), { output: 'tensor(2.)\n', error: null });
  });

  test('RecursionError by name: deep recursion with a raised limit, a recursive __repr__', async () => {
    const deep = await failing(nb, 'import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)');
    assert.equal(deep.type, 'RecursionError');
    const repr = await failing(nb, 'class Loop:\n    def __repr__(self):\n        return repr(self)\nLoop()');
    assert.equal(repr.type, 'RecursionError');
    assert.deepEqual(await nb.run('print(sys.getrecursionlimit() <= 50_000)'), { output: 'True\n', error: null });
  });

  test('an exception whose __str__ raises: its type, and a note for its message', async () => {
    const error = await failing(nb, 'class Odd(Exception):\n    def __str__(self):\n        raise ValueError\nraise Odd()');
    assert.equal(error.type, 'Odd');
    assert.equal(error.message, '<exception str() failed: ValueError>');
    assert.equal(error.line, 4);
  });

  test('input() and reads of stdin end at once: EOFError that says why, os.read(0) at the end', async () => {
    const asked = await nb.run('name = input("Your name? ")');
    assert.equal(asked.output, 'Your name? ');
    assert.equal(asked.error?.type, 'EOFError');
    assert.match(asked.error.message, /^nothing to read: a notebook cell cannot read typed input \(input\(\), sys\.stdin\)/);
    assert.equal((await failing(nb, 'import sys\nsys.stdin.read()')).type, 'EOFError');
    assert.deepEqual(await nb.run('import os\nos.read(0, 10)'), { output: "b''\n", error: null });
  });

  test('a tensor at the size limit: MemoryError that says how much memory is held', async () => {
    const error = await failing(nb, 'import torch\nx = torch.rand(16384, 16384)');
    assert.equal(error.type, 'MemoryError');
    assert.match(error.message, /^rand: out of memory.*\(the core's heap has grown to \d+ MB, \d+ MB of it in use\)$/);
  });

  test('with the memory held after a MemoryError, strings of 1 MB cross intact or fail by name', async () => {
    // Less than 16 MB left: room for the strings, not for Pyodide's own conversion of them.
    const filled = await nb.run('held = []\nfor size in (2**28, 2**24):\n    try:\n        while True:\n            held.append(bytearray(size))\n    except MemoryError:\n        pass');
    assert.equal(filled.error, null, filled.error?.traceback);
    let intact = 0;
    for (const cell of ['"a" * 2**20', 'raise ValueError("b" * 2**20)', 'print("c" * 2**21)']) {
      const { output, error } = await nb.run(cell);
      const text = output + (error?.message ?? '');
      assert.ok(!text.includes('\0'), `NUL bytes from ${cell}`);
      if (error?.type === 'MemoryError') continue; // failed loudly
      assert.ok(/^('a{1048576}'\n|b{1048576}|c{2097152}\n)$/.test(text),
        `${cell} came back as ${text.length} characters: ${text.slice(0, 100)} (${error?.type})`);
      intact++;
    }
    assert.ok(intact > 0, 'every string failed: the test no longer shows them crossing');
    await nb.run('del held');
  });

  test('no unhandled rejection on the way', () => {
    assert.deepEqual(unhandled, []);
  });
});
