// Notebook links larger than a link may hold: the page says so at once and loads nothing from them, whether
// the link itself is too long or it is small and unpacks into a huge notebook.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';

import { assertNoProblems, closePage, newPage, setup } from './harness.mjs';
import { MAX_LINK_CHARS, MAX_NOTEBOOK_BYTES, notebookHash } from '../../web/notebook/share.js';

let env;
before(async () => { env = await setup(); });
after(() => env?.close());

// How long the page may take to refuse a link, from the start of its load: a few hundred milliseconds on a quiet
// machine, bounded generously for a loaded one; unpacking and opening 100 MB of cells would take far longer.
const QUICKLY = 10_000;

/** Opens the notebook at `hash` and waits for its refusal; the notice's text and how long it took. */
async function refusal(hash) {
  const page = await newPage(env.browser);
  const started = performance.now();
  await page.goto(`${env.base}notebook.html${hash}`);
  const notice = page.getByRole('alert');
  await notice.waitFor({ timeout: QUICKLY });
  const elapsed = performance.now() - started;
  const text = await notice.textContent();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), 'refused');
  assert.equal(await page.locator('.nb-cell').count(), 0, 'no cell is loaded');
  assert.equal(await page.evaluate(() => location.hash), hash, 'the link is left as it was');
  for (const id of ['#add-cell', '#copy-link', '#profile', '#run-all']) assert.ok(await page.locator(id).isDisabled(), `${id} is off`);
  assertNoProblems(page);
  await closePage(page);
  return { text, elapsed };
}

test('a 136 KB link whose cells unpack to 100 MB is refused quickly, and nothing is loaded', async () => {
  const cells = Buffer.from(JSON.stringify(['x = 1  # ' + 'x'.repeat(100 * 1024 * 1024)]));
  const hash = `#cells=z${deflateRawSync(cells, { level: 9 }).toString('base64url')}`;
  assert.ok(hash.length > 130_000 && hash.length < MAX_LINK_CHARS, `the link is ${hash.length} characters`);
  const { text, elapsed } = await refusal(hash);
  assert.match(text, /^This link’s notebook is too large: its cells unpack to more than the 1 MB a notebook link may hold\. Nothing was loaded from it\. Open your own notebook instead\.$/);
  assert.ok(elapsed < QUICKLY, `${elapsed} ms`);
});

test('a link longer than a link may be is refused before it is unpacked', async () => {
  const hash = `#cells=z${'A'.repeat(MAX_LINK_CHARS)}`;
  const { text } = await refusal(hash);
  assert.match(text, /too large: the link is 513 KB, more than the 512 KB a notebook link may be\. Nothing was loaded/);
});

// A 1 MB cell in the editor took more than Playwright's 30 s at a load average of 20 on two cores.
const BIG_NOTEBOOK_MS = 90_000;

/** Waits until the page shows its cells' editors: 'editor', or 'python' where Python was ready within the same frame. */
const editorShown = (page) => page.waitForFunction(() => ['editor', 'python'].includes(document.documentElement.dataset.ready), null, { timeout: BIG_NOTEBOOK_MS });

test('a notebook just within the limit still opens', async () => {
  const cell = `s = "${'a'.repeat(MAX_NOTEBOOK_BYTES - 64)}"`;
  const page = await newPage(env.browser);
  await page.goto(`${env.base}notebook.html${await notebookHash([cell, 'print(len(s))'])}`);
  await editorShown(page);
  assert.equal(await page.locator('.nb-cell').count(), 2);
  assert.equal(await page.getByRole('alert').count(), 0);
  await closePage(page);
});

test('“Copy link” on a notebook too large for a link says so instead of copying one', async () => {
  const page = await newPage(env.browser);
  // the learner's own notebook, kept in the browser: over the limit once in a link
  await page.addInitScript((cells) => localStorage.setItem('attention-lab.notebook', JSON.stringify({ cells })), [`s = "${'a'.repeat(MAX_NOTEBOOK_BYTES)}"`]);
  await page.goto(`${env.base}notebook.html`);
  await editorShown(page);
  await page.click('#copy-link');
  await page.waitForFunction(() => /cop/i.test(document.getElementById('status').textContent)); // what Copy link says
  assert.equal(await page.textContent('#status'),
    'No link copied: this notebook is too large for one (its cells unpack to more than the 1 MB a notebook link may hold). It is kept in this browser.');
  await closePage(page);
});
