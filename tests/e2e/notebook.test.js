// The notebook page (web/notebook.html) in Chromium: the chapter's notebook run through the page, typing and
// Shift+Enter, typing over a selection, errors with their line marked, Stop on a runaway loop while the page
// stays responsive, a start of Python that fails and is tried again, the RNG profile, the notebook in its link, "Open in notebook" from a step, axe-core and a
// phone-sized screen.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { SUB_PATH, assertNoProblems, bookSettings, closePage, newPage, openAt, root, seriousViolations, setup, site, stepSelector, waitForStep } from './harness.mjs';
import { startStaticHost } from '../../scripts/static-host.mjs';
import { normalise, readChapterNotebook, transcriptionPath } from '../notebook/transcription.mjs';
import { notebookHash } from '../../web/notebook/share.js';
import { scriptForStep } from '../../web/notebook/chapter-cells.js';

let env;
before(async () => { env = await setup(); });
after(() => env?.close());

const PYTHON_TIMEOUT = 60_000;

async function openNotebook(page, hash = '') {
  await page.goto(`${env.base}notebook.html${hash}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
}

/** A hash holding `cells`, made by the page's own encoder (it runs in Node too). */
const hashFor = (page, cells, profile = 'default') => notebookHash(cells, profile);

/** Runs every cell with "Run all" and returns each cell's shown output (printed text, then any traceback). */
export async function runAllInPage(page, count) {
  await page.click('#run-all');
  await page.waitForFunction((n) => {
    const counts = [...document.querySelectorAll('.nb-count')].map((e) => e.textContent);
    return counts.length >= n && counts.slice(0, n).every((c) => /^\[\d+\]$/.test(c));
  }, count, { timeout: PYTHON_TIMEOUT });
  return page.$$eval('.nb-cell', (cells) => cells.map((c) => ({
    output: c.querySelector('.nb-stdout')?.textContent ?? '',
    error: c.querySelector('.nb-error')?.textContent ?? null,
  })));
}

async function typeCell(page, code) {
  await page.click('#add-cell');
  await page.keyboard.type(code);
}

test("the chapter's notebook, run through the page, prints what the transcription shows", {
  skip: transcriptionPath ? false : 'the transcription ../shared/reference/chapter3-notebook.txt is not on this machine',
}, async () => {
  const cells = readChapterNotebook();
  const page = await newPage(env.browser);
  await openNotebook(page, await hashFor(page, cells.map((c) => c.code)));
  const shown = await runAllInPage(page, cells.length);
  cells.forEach((cell, i) => {
    assert.equal(shown[i].error, null, `${cell.label}: ${shown[i].error}`);
    if (cell.code.includes('def transfer_weights(')) { // Exercise 3.1: other draws than the printout's
      assert.match(shown[i].output, /The outputs are identical!$/);
    } else if (cell.code.includes('print(f"dot({i}, {j})')) { // the transcription is cut off here
      assert.ok(normalise(shown[i].output).startsWith(cell.expected));
    } else {
      assert.equal(normalise(shown[i].output), cell.expected, cell.label);
    }
  });
  assertNoProblems(page);
  await closePage(page);
});

test('typing a cell and Shift+Enter shows its output; an error shows a traceback and marks its line', async () => {
  const page = await newPage(env.browser);
  await openNotebook(page, await hashFor(page, ['import torch\ntorch.manual_seed(123)\nx = torch.rand(2, 3)']));
  await page.locator('.nb-cell').first().locator('.cm-content').click();
  await page.keyboard.press('Shift+Enter');
  await page.keyboard.type('print(x)\nx.sum(dim=1)');
  await page.keyboard.press('Shift+Enter');
  const second = page.locator('.nb-cell').nth(1);
  await second.locator('.nb-stdout').waitFor();
  // What PyTorch 1.13 prints for these two lines after torch.manual_seed(123); x = torch.rand(2, 3).
  assert.equal(await second.locator('.nb-stdout').textContent(),
    'tensor([[0.2961, 0.5166, 0.2517],\n        [0.6886, 0.0740, 0.8665]])\ntensor([1.0643, 1.6291])');
  assert.equal(await second.locator('.nb-count').textContent(), '[2]');
  assert.equal(await page.locator('.nb-cell').count(), 3, 'Shift+Enter on the last cell adds one');

  await page.keyboard.type('y = x\nfor i in range(3)\n    print(i)');
  await page.keyboard.press('Control+Enter');
  const third = page.locator('.nb-cell').nth(2);
  await third.locator('.nb-error').waitFor();
  assert.match(await third.locator('.nb-error').textContent(), /line 2\n.*for i in range\(3\)[\s\S]*SyntaxError/);
  assert.equal(await third.locator('.cm-error-line').textContent(), 'for i in range(3)');

  await typeCell(page, 'x @ x');
  await page.keyboard.press('Control+Enter');
  const fourth = page.locator('.nb-cell').nth(3);
  await fourth.locator('.nb-error').waitFor();
  assert.match(await fourth.locator('.nb-error').textContent(), /RuntimeError: mat1 and mat2 shapes cannot be multiplied \(2x3 and 2x3\)/);
  assertNoProblems(page);
  await closePage(page);
});

test('typing over a selection replaces it without a Content-Security-Policy error; a typed bracket still wraps it', async () => {
  // Left to Chromium, the typed text would take the deleted token's colour as an inline style attribute, which
  // the page's policy (style-src 'self') refuses and reports as a console error.
  const page = await newPage(env.browser);
  const code = 'import torch\nx = torch.rand(2, 3)  # two rows\nprint(x)';
  await page.goto(`${env.base}notebook.html${await hashFor(page, [code, code, code])}`);
  await page.waitForFunction(() => ['editor', 'python'].includes(document.documentElement.dataset.ready), null, { timeout: PYTHON_TIMEOUT });
  const editor = (i) => page.locator('.nb-cell').nth(i).locator('.cm-content');
  // The editor's lines once they are `lines` (within 5 s), else as they stand.
  const shows = async (i, lines) => {
    let shown;
    for (const end = Date.now() + 5000; Date.now() < end; await page.waitForTimeout(50)) {
      shown = await editor(i).locator('.cm-line').allTextContents();
      if (JSON.stringify(shown) === JSON.stringify(lines)) break;
    }
    assert.deepEqual(shown, lines);
  };

  await editor(0).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('y = 2');
  await shows(0, ['y = 2']);

  await editor(1).click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.press('Shift+ArrowDown');
  await page.keyboard.type('z = 0');
  await shows(1, ['z = 0print(x)']);

  await editor(2).click();
  await page.keyboard.press('Control+Home');
  await page.keyboard.press('Shift+End');
  await page.keyboard.type('(');
  await shows(2, ['(import torch)', 'x = torch.rand(2, 3)  # two rows', 'print(x)']);

  // A refused style attribute is reported a task or so later.
  await page.evaluate(() => new Promise((done) => setTimeout(done, 200)));
  assertNoProblems(page);
  await closePage(page);
});

test('Stop ends a runaway loop; the page answers meanwhile and the namespace is kept', async () => {
  const page = await newPage(env.browser);
  await openNotebook(page, await hashFor(page, ['n = 0\nprint("started")\nwhile True:\n    n += 1', 'print(n > 0)']));
  assert.equal(await page.evaluate(() => crossOriginIsolated), true);
  await page.locator('.nb-cell').first().locator('.nb-count + .nb-body ~ .nb-cell-tools button').first().click();
  await page.waitForFunction(() => !document.getElementById('stop').disabled);
  // What it printed before the loop shows while the loop runs.
  await page.locator('.nb-cell').first().locator('.nb-stdout', { hasText: 'started' }).waitFor();
  // The page stays responsive while Python loops in its worker: a click takes effect while the cell still runs
  // (were Python on the page's thread, the click would wait for a loop that never ends).
  await page.click('#add-cell');
  assert.equal(await page.locator('.nb-cell').count(), 3);
  assert.equal(await page.evaluate(() => document.documentElement.dataset.running), 'true', 'the page answered a click while the cell ran');
  await page.click('#stop');
  // What Stop did, from the status line (an interrupt not taken in time restarts Python, and n is gone).
  await page.waitForFunction(() => /^Stopped/.test(document.getElementById('status').textContent), null, { timeout: PYTHON_TIMEOUT });
  assert.equal(await page.textContent('#status'), 'Stopped: the namespace is kept.', 'Stop interrupted Python rather than restarting it');
  const first = page.locator('.nb-cell').first();
  assert.match(await first.locator('.nb-error').textContent(), /KeyboardInterrupt: the cell was stopped/);
  const second = page.locator('.nb-cell').nth(1);
  await second.locator('.nb-cell-tools button').first().click();
  await second.locator(':is(.nb-stdout, .nb-error)').waitFor({ timeout: PYTHON_TIMEOUT });
  assert.equal(await second.locator('.nb-output').textContent(), 'True');
  assertNoProblems(page);
  await closePage(page);
});

test('on a host without cross-origin isolation, Stop restarts Python and says so; a Stop while Python loads keeps the waiting cell from running', async (t) => {
  // A plain static host (the same files without the COOP/COEP headers) in a browser that gives the page no
  // service worker, which would add them (tests/e2e/notebook-offline.test.js).
  // (A host of its own rather than a route taking the headers off every response, which passed each file's
  // bytes, Python's two starts' among them, through the test.)
  const plain = await startStaticHost({ folder: site, prefix: SUB_PATH });
  t.after(() => new Promise((done) => plain.close(done)));
  const page = await newPage(env.browser, { contextOptions: { serviceWorkers: 'block' } });
  // Pyodide's WebAssembly is held back until a cell has been run and stopped while Python loads.
  let releasePython;
  const pythonHeld = new Promise((resolve) => { releasePython = resolve; });
  await page.route('**/pyodide.asm.wasm', async (route) => {
    await pythonHeld;
    await route.continue();
  });
  await page.goto(`http://localhost:${plain.address().port}${SUB_PATH}notebook.html${await hashFor(page, ['n = 0\nwhile True:\n    n += 1', 'print(n)'])}`);
  // Stop while Python loads: the cell waiting for it does not run once Python is there.
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'editor', null, { timeout: PYTHON_TIMEOUT });
  await page.locator('.nb-cell').nth(1).locator('.nb-cell-tools button').first().click();
  await page.waitForFunction(() => !document.getElementById('stop').disabled);
  await page.click('#stop');
  assert.equal(await page.textContent('#status'), 'Stopped: the cells waiting for Python will not run.');
  releasePython();
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
  await page.locator('.nb-cell').nth(1).locator('.nb-error').waitFor();
  assert.equal(await page.locator('.nb-cell').nth(1).locator('.nb-output').textContent(), 'KeyboardInterrupt: the cell was stopped before it ran');
  assert.equal(await page.evaluate(() => crossOriginIsolated), false);
  await page.locator('.nb-cell-tools button').first().click();
  await page.waitForFunction(() => !document.getElementById('stop').disabled);
  await page.click('#stop');
  const first = page.locator('.nb-cell').first();
  await first.locator('.nb-error').waitFor();
  assert.match(await first.locator('.nb-error').textContent(), /KeyboardInterrupt: .*Python restarted/);
  // (said once the new Python has started)
  await page.waitForFunction(() => /Python restarted/.test(document.getElementById('status').textContent), null, { timeout: PYTHON_TIMEOUT });
  // A fresh Python answers the next cell: the loop's n is gone with the old one.
  await page.locator('.nb-cell').nth(1).locator('.nb-cell-tools button').first().click();
  await page.locator('.nb-cell').nth(1).locator('.nb-count', { hasText: /\[\d+\]/ }).waitFor({ timeout: PYTHON_TIMEOUT });
  assert.match(await page.locator('.nb-cell').nth(1).locator('.nb-error').textContent(), /NameError: name 'n' is not defined/);
  assertNoProblems(page);
  await closePage(page);
});

test('a start of Python that fails says why where its progress was, and Try again starts it', async () => {
  // Pyodide's loader cannot be fetched once (a download cut off on a poor network): the line that showed the
  // progress says so, instead of standing at its last words; the cell already run waits for the next start.
  const page = await newPage(env.browser, { contextOptions: { serviceWorkers: 'block', bypassCSP: true } }); // (axe-core below)
  let refused = 0;
  await page.route('**/pyodide/pyodide.mjs', async (route) => {
    if (refused++ === 0) await route.abort('connectionreset');
    else await route.continue();
  });
  await page.goto(`${env.base}notebook.html${await hashFor(page, ['print(6 * 7)'])}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'failed', null, { timeout: PYTHON_TIMEOUT });
  const line = page.locator('#progress-text');
  assert.match(await line.textContent(), /^Python could not start \(.*pyodide\.mjs\)\. Your cells are kept/);
  assert.equal(await line.getAttribute('role'), 'alert');
  assert.equal(await page.locator('#progress').isHidden(), true, 'no bar stands still beside it');
  assert.deepEqual(await seriousViolations(page, '#loading'), []);
  // the seconds counter no longer runs on it
  const said = await line.textContent();
  await page.waitForTimeout(1500);
  assert.equal(await line.textContent(), said);
  await page.getByRole('button', { name: 'Try again' }).click();
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
  assert.equal(await page.locator('#loading').isHidden(), true);
  assert.equal(await page.getByRole('button', { name: 'Try again' }).count(), 0);
  await page.locator('.nb-cell-tools button').first().click();
  await page.locator('.nb-count', { hasText: /\[\d+\]/ }).waitFor({ timeout: PYTHON_TIMEOUT });
  assert.equal(await page.locator('.nb-stdout').first().textContent(), '42');
  // the refused download is the one failure the page met
  assert.ok(page.problems.length > 0 && page.problems.every((p) => /pyodide\.mjs|ERR_CONNECTION_RESET|Failed to fetch/.test(p)), page.problems.join('\n'));
  await closePage(page);
});

test("the profile select switches dropout to the Intel-MKL build's masks, and the link keeps it", async () => {
  const page = await newPage(env.browser);
  const cell = 'import torch\ntorch.manual_seed(123)\nprint(torch.nn.Dropout(0.5)(torch.ones(6, 6))[0])';
  await openNotebook(page, await hashFor(page, [cell]));
  const run = async () => {
    await page.locator('.nb-cell-tools button').first().click();
    await page.waitForFunction(() => !document.querySelector('.nb-cell.is-running') &&
      document.querySelector('.nb-stdout'));
    return page.locator('.nb-stdout').textContent();
  };
  assert.equal(await run(), 'tensor([2., 2., 0., 2., 2., 0.])'); // torch-rng.md: the default path's row 0
  await page.selectOption('#profile', 'mkl');
  await page.waitForFunction(() => /Intel MKL/.test(document.getElementById('status').textContent));
  assert.equal(await run(), 'tensor([2., 2., 2., 2., 2., 2.])'); // and the 1-draw MKL path's
  await page.waitForFunction(() => location.hash.includes('profile=mkl'));
  const link = page.url();
  const other = await newPage(env.browser);
  await other.goto(link);
  await other.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
  assert.equal(await other.locator('#profile').inputValue(), 'mkl');
  assert.equal(await other.locator('.cm-content').first().textContent(), cell.replaceAll('\n', ''));
  assertNoProblems(page);
  await closePage(page);
  await closePage(other);
});

test("a step's “Open in notebook” link opens its code under the current settings, ready to run", async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'self-attention-v2');
  await waitForStep(page, 'self-attention-v2');
  const link = page.locator('[data-notebook-step="self-attention-v2"][data-ready="true"]');
  await link.waitFor();
  await link.click();
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
  const count = await page.locator('.nb-cell').count();
  const shown = await runAllInPage(page, count);
  assert.ok(shown.every((c) => c.error === null), JSON.stringify(shown.map((c) => c.error)));
  // SelfAttention_v2 under the book's settings: the chapter's printed first row.
  assert.match(shown[count - 1].output, /tensor\(\[\[-0\.0739, {2}0\.0713\],/);
  assertNoProblems(page);
  await closePage(page);
});

test('“Copy as PyTorch” copies the step’s script, which the step also carries in data-python', async () => {
  const page = await newPage(env.browser, { contextOptions: { permissions: ['clipboard-read', 'clipboard-write'] } });
  const settings = { ...bookSettings(), seed: 5, d_out: 4 };
  await openAt(page, env.base, 'causal-attention', settings);
  await waitForStep(page, 'causal-attention');
  const step = page.locator(stepSelector('causal-attention'));
  const script = scriptForStep('causal-attention', settings);
  assert.equal(await step.getAttribute('data-python'), script);
  assert.match(script, /torch\.manual_seed\(5\)/);
  await step.locator('.copy-python').click();
  await step.locator('.copy-status', { hasText: 'Copied' }).waitFor();
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), script);
  assertNoProblems(page);
  await closePage(page);
});

test('axe-core finds no serious or critical violations; at 390 px nothing scrolls the page sideways', async (t) => {
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  await openNotebook(page);
  await runAllInPage(page, await page.locator('.nb-cell').count());
  await page.addScriptTag({ path: `${root}node_modules/axe-core/axe.min.js` });
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  });
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  for (const v of violations) t.diagnostic(`${v.impact} ${v.id}: ${v.help} (${v.nodes.join(', ')})`);
  assert.deepEqual(serious, []);
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), 'horizontal page scroll');
  assertNoProblems(page);
  await closePage(page);
});
