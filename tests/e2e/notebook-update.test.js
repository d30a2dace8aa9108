// A new deployment while a notebook is open, on a plain static host: the new service worker replaces the old
// one's cache whole, the open notebook offers a reload, and the reload keeps the learner's notebook.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SUB_PATH, assertNoProblems, closePage, launchChromium, newPage, site } from './harness.mjs';
import { startStaticHost } from '../../scripts/static-host.mjs';
import { notebookHash } from '../../web/notebook/share.js';

const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const PYTHON_TIMEOUT = 120_000;

// A copy of the site, so that a new deployment can be made of it; the host is started again on the same port
// for it (it keeps the files it served in memory).
let folder, server, port, browser, base;
const host = async () => {
  server = await startStaticHost({ folder, prefix: SUB_PATH, port, headers: ISOLATED });
  port = server.address().port;
};
const stopHost = () => new Promise((done) => {
  server.closeAllConnections();
  server.close(done);
});
before(async () => {
  folder = mkdtempSync(join(tmpdir(), 'attention-site-'));
  cpSync(site, folder, { recursive: true });
  await host();
  base = `http://localhost:${port}${SUB_PATH}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  if (server) await stopHost();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

const pythonReady = (page) => page.waitForFunction(() => document.documentElement.dataset.ready === 'python', null, { timeout: PYTHON_TIMEOUT });
const cacheNames = (page) => page.evaluate(async () => (await caches.keys()).filter((n) => n.startsWith('attention-lab-')));

test('a new deployment: the old cache goes, the notebook offers a reload, and the reload keeps the notebook', { timeout: 300_000 }, async () => {
  const page = await newPage(browser);
  await page.goto(`${base}notebook.html${await notebookHash(['print("kept across deployments")'])}`);
  await pythonReady(page);
  await page.waitForFunction(() => document.documentElement.dataset.offline === 'kept', null, { timeout: PYTHON_TIMEOUT });
  const [before] = await cacheNames(page);
  assert.ok(before, 'the site is kept in a cache');
  assert.equal(await page.locator('[data-notice="update"]').count(), 0, 'no reload offered before a new deployment');

  // The next deployment: another build, hence another cache name.
  const workerFile = join(folder, 'notebook-sw.js');
  const source = readFileSync(workerFile, 'utf8');
  const build = /const BUILD = "([^"]+)";/.exec(source)?.[1];
  assert.ok(build, 'the service worker names its build');
  writeFileSync(workerFile, source.replace(`const BUILD = "${build}";`, `const BUILD = "${build}-next";`));
  await stopHost();
  await host();
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration()).update());

  const offer = page.locator('[data-notice="update"]');
  await offer.waitFor({ timeout: 30_000 });
  assert.match(await offer.textContent(), /A new version of this site was published\. Your notebooks are kept; reload to use it\./);
  for (const until = Date.now() + 10_000; (await cacheNames(page)).includes(before) && Date.now() < until;) await page.waitForTimeout(200);
  const left = await page.evaluate(async () => Promise.all((await caches.keys()).map(async (n) => `${n}: ${(await (await caches.open(n)).keys()).map((r) => r.url.split('/').pop()).join(' ')}`)));
  assert.ok(!(await cacheNames(page)).includes(before), `the old deployment's cache is gone: ${left.join('; ')}`);

  const loads = [];
  page.on('load', () => loads.push(page.url()));
  // waited for before Python: the page before the reload is Python-ready too, until the reload begins
  const reloaded = page.waitForEvent('load', { timeout: 30_000 });
  await offer.getByRole('button', { name: 'Reload' }).click();
  await reloaded;
  await pythonReady(page);
  assert.equal(loads.length, 1, 'one reload');
  const code = await page.$eval('.nb-cell .nb-editor', (editor) => editor.shadowRoot.textContent);
  assert.match(code, /kept across deployments/, 'the notebook is still there');
  assert.equal(await page.locator('[data-notice="update"]').count(), 0, 'the offer is gone after the reload');
  assertNoProblems(page);
  await closePage(page);
});
