// The notebook on a plain static host (no COOP/COEP headers, as GitHub Pages): the site's service worker makes
// it cross-origin isolated after one reload, so Stop keeps Python's variables and what the loop printed; the
// page says which mode it is in; after one visit the site opens and runs with the network off.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { SUB_PATH, assertNoProblems, closePage, launchChromium, newPage, site } from './harness.mjs';
import { startStaticHost } from '../../scripts/static-host.mjs';
import { notebookHash } from '../../web/notebook/share.js';

const PYTHON_TIMEOUT = 90_000;

let server, browser, base;
before(async () => {
  server = await startStaticHost({ folder: site, prefix: SUB_PATH }); // no headers: a plain static host
  base = `http://localhost:${server.address().port}${SUB_PATH}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await new Promise((done) => (server ? server.close(done) : done()));
});

const pythonReady = (page) => page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
const runButton = (page, n) => page.locator(`.nb-cell[data-cell="${n}"] .nb-cell-tools button`).first();

test('isolated after the service worker starts: Stop keeps the namespace and what the loop printed; offline on the second visit', { timeout: 300_000 }, async () => {
  const page = await newPage(browser);
  // documents asked for in the tab (the reload may come before the first one's load event: counted as requests)
  const loads = [];
  page.on('request', (request) => { if (request.isNavigationRequest() && request.frame() === page.mainFrame()) loads.push(request.url()); });
  await page.goto(`${base}notebook.html${await notebookHash(['x = 41\nprint("before the loop")\nwhile True:\n    pass', 'print(x + 1)'])}`);
  await pythonReady(page);
  assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'isolated on a host without headers');
  assert.equal(loads.length, 2, `one reload, made by the page once the service worker controls it (${loads.length - 1})`);
  assert.match(await page.textContent('#mode'), /^Stop keeps your variables \(this page is cross-origin isolated\)\./);
  assert.equal(await page.locator('.nb-cell').count(), 2, 'the reload opened the link once, as one notebook');
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('attention-lab.notebooks')).length), 1);

  await runButton(page, 1).click();
  await page.locator('.nb-cell[data-cell="1"] .nb-stdout', { hasText: 'before the loop' }).waitFor();
  const stopped = performance.now();
  await page.click('#stop');
  await page.locator('.nb-cell[data-cell="1"] .nb-error').waitFor();
  const stopMs = performance.now() - stopped;
  // What Stop did, from the status line (an interrupt not taken in time restarts Python, and x is gone).
  await page.waitForFunction(() => /^Stopped/.test(document.getElementById('status').textContent), null, { timeout: PYTHON_TIMEOUT });
  assert.equal(await page.textContent('#status'), 'Stopped: the namespace is kept.', 'Stop interrupted Python rather than restarting it');
  assert.match(await page.textContent('.nb-cell[data-cell="1"] .nb-error'), /KeyboardInterrupt/);
  assert.equal(await page.textContent('.nb-cell[data-cell="1"] .nb-stdout'), 'before the loop', 'what the loop printed stays');
  await runButton(page, 2).click();
  await page.locator('.nb-cell[data-cell="2"] :is(.nb-stdout, .nb-error)').waitFor({ timeout: PYTHON_TIMEOUT });
  assert.equal(await page.textContent('.nb-cell[data-cell="2"] .nb-output'), '42', 'x survives the Stop');
  console.log(`# Stop took ${Math.round(stopMs)} ms`);

  // The site kept for offline use, then opened with the network off: the notebook, the walk-through, the bench.
  await page.waitForFunction(() => document.documentElement.dataset.offline === 'kept', null, { timeout: 120_000 });
  assert.match(await page.textContent('#mode'), /Works offline: the site is kept in this browser\./);
  await page.context().setOffline(true);
  await page.reload();
  await pythonReady(page);
  await runButton(page, 2).click(); // a fresh Python, offline: x is not defined in it
  await page.locator('.nb-cell[data-cell="2"] .nb-error').waitFor();
  assert.match(await page.textContent('.nb-cell[data-cell="2"] .nb-error'), /NameError: name 'x' is not defined/);
  await page.goto(`${base}index.html`);
  await page.locator('[data-step][data-section] table, [data-step][data-section] .tensor').first().waitFor({ timeout: 30_000 });
  await page.goto(`${base}bench.html`); // and the bench, its core ready to time
  await page.locator('#sweep-run:enabled').waitFor({ timeout: 30_000 });
  page.problems = page.problems.filter((p) => !/ERR_INTERNET_DISCONNECTED/.test(p)); // the service worker's update check
  assertNoProblems(page);
  await closePage(page);
});

test('where the browser gives no service worker, Stop restarts Python and the page says so', { timeout: 120_000 }, async () => {
  const page = await newPage(browser, { contextOptions: { serviceWorkers: 'block' } });
  await page.goto(`${base}notebook.html${await notebookHash(['print(1)'])}`);
  await pythonReady(page);
  assert.equal(await page.evaluate(() => crossOriginIsolated), false);
  assert.match(await page.textContent('#mode'), /^Stop restarts Python/);
  assertNoProblems(page);
  await closePage(page);
});

test('loading shows its phases in order, with the bytes downloaded, and the bar only moves forward', { timeout: 120_000 }, async () => {
  const page = await newPage(browser);
  const requested = [];
  page.context().on('request', (request) => requested.push(new URL(request.url()).pathname));
  await page.goto(`${base}notebook.html`);
  await pythonReady(page);
  // The Python files come inside the worker's script (the site's build puts them there), not one request each.
  assert.ok(requested.some((path) => path.endsWith('/pyodide/pyodide.asm.wasm')), `the worker's requests are seen: ${requested.join(' ')}`);
  assert.deepEqual(requested.filter((path) => /\.py$|torch-dist-info/.test(path)), []);
  const log = await page.evaluate(() => window.notebookLoad);
  const messages = log.map((e) => e.message);
  const at = (pattern) => messages.findIndex((m) => pattern.test(m));
  // (the downloading line names the file whose bytes came last, which depends on the order files arrive in)
  const phases = [/^Loading Python \(Pyodide\)…$/, /^Downloading [\w.-]+: \d+\.\d MB in all…$/, /^Downloaded \d+\.\d MB; compiling pyodide\.asm\.wasm…$/, /^Starting torch…$/, /^Ready$/];
  const order = phases.map(at);
  assert.ok(order.every((i) => i >= 0), `every phase is reported: ${messages.join(' | ')}`);
  assert.deepEqual([...order].sort((a, b) => a - b), order, `in order: ${messages.join(' | ')}`);
  assert.ok(log.every((e, i) => i === 0 || e.fraction >= log[i - 1].fraction), 'the bar never moves back');
  assert.equal(log.at(-1).fraction, 1);
  assert.ok(Number(/(\d+\.\d) MB; compiling/.exec(messages[order[2]])[1]) > 5, 'the downloads are counted (Pyodide is over 5 MB)');
  assertNoProblems(page);
  await closePage(page);
});
