// Shared pieces of the browser tests (not a test file itself): the built site (dist/site, made by
// npm run build:site) on a plain static host under a sub-path, Debian's Chromium through playwright-core, page helpers that read the testing hooks (data-step, data-tensor, data-values, data-book),
// and the reference numbers computed in Node by the same WebAssembly API and web/chapter/index.js.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { before, after } from 'node:test';
import { chromium } from 'playwright-core';

import { startStaticHost } from '../../scripts/static-host.mjs';
import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { STEPS } from '../../web/steps/index.js';
import { BOOK_PRINTS } from '../../web/book.js';
import { bookSettings, formatHash } from '../../web/state.js';
import { flatValues } from '../../web/compare.js';

export { STEPS, BOOK_PRINTS, bookSettings, formatHash, flatValues };

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const artifacts = `${root}test-results/`;
mkdirSync(artifacts, { recursive: true });

// How long a step may take to show its numbers after a navigation or a settings change.
export const RENDER_TIMEOUT = 10_000;

const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

// Where a teacher's site lives on a GitHub Pages-like host: a sub-path, so that any absolute URL would break.
export const SUB_PATH = '/course/attention/';
export const site = `${root}dist/site/`;
// Cross-origin isolated, as a host that can set headers would be (the notebook's in-place Stop needs it);
// tests of a host without these headers remove them on the way.
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };

export function launchChromium() {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** The built site on a static host, and one browser, for a test file; close() stops both. */
export async function setup() {
  assert.ok(existsSync(`${site}index.html`), `${site} is missing: build it with npm run build:site`);
  const server = await startStaticHost({ folder: site, prefix: SUB_PATH, headers: ISOLATED });
  const base = `http://localhost:${server.address().port}${SUB_PATH}`;
  const browser = await launchChromium();
  return {
    server,
    base,
    browser,
    async close() {
      await browser.close();
      await new Promise((done) => server.close(done));
    },
  };
}

/** The site and a browser for a test file: set up before its tests, closed after them (the object fills in). */
export function siteForTests() {
  const env = {};
  before(async () => Object.assign(env, await setup()));
  after(async () => env.close?.());
  return env;
}

/**
 * A new page (in its own context) that records console errors, uncaught exceptions and failed requests
 * in page.problems. The steps' "predict first" questions are off (as a learner can turn them off), so that
 * their numbers are shown at once; `predictions: true` keeps them on.
 */
export async function newPage(browser, { width = 1280, height = 900, contextOptions = {}, predictions = false } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, ...contextOptions });
  if (!predictions) {
    await context.addInitScript(() => {
      try {
        localStorage.setItem('attention-lab:predictions-off', 'true');
      } catch {
        // about:blank has no storage
      }
    });
  }
  // Every Content-Security-Policy violation is reported as a console error, so any test fails on one.
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      console.error(`CSP violation: ${e.violatedDirective} blocked ${e.blockedURI || 'inline code'} (${e.sourceFile}:${e.lineNumber})`);
    });
  });
  const page = await context.newPage();
  page.problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.problems.push(`console.error: ${msg.text()} (${msg.location().url ?? ''})`);
  });
  page.on('pageerror', (error) => page.problems.push(`uncaught: ${error.stack ?? error.message}`));
  page.on('requestfailed', (request) => {
    const failure = request.failure()?.errorText ?? '';
    // aborted by the test's own routing or by leaving the page
    if (failure.includes('ERR_ABORTED')) return;
    page.problems.push(`request failed: ${request.url()} ${failure}`);
  });
  page.on('response', (response) => {
    const url = response.url();
    if (response.status() >= 400 && !url.endsWith('/favicon.ico')) page.problems.push(`HTTP ${response.status()}: ${url}`);
  });
  return page;
}

/**
 * axe-core's serious and critical violations on the page (or inside `selector`), one line each. axe is injected
 * as an inline script: open the page with contextOptions { bypassCSP: true }.
 */
export async function seriousViolations(page, selector = null) {
  await page.addScriptTag({ path: `${root}node_modules/axe-core/axe.min.js` });
  return page.evaluate(
    async (sel) =>
      (await window.axe.run(sel ? document.querySelector(sel) : document, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.nodes.slice(0, 5).map((n) => n.target.join(' ')).join(', ')})`),
    selector,
  );
}

export function assertNoProblems(page, what = 'the page') {
  assert.deepEqual(page.problems, [], `${what}: console errors, exceptions or failed requests:\n${page.problems.join('\n')}`);
}

export async function closePage(page) {
  await page.context().close();
}

export const stepSelector = (id) => `[data-step="${id}"][data-section]`;

/**
 * The step shown in the viewport: its container is visible and at least one tensor has numbers, and the page
 * has started (data-ready: its panels and events come just after the first step is painted).
 */
export async function waitForStep(page, id, timeout = RENDER_TIMEOUT) {
  await page.locator(stepSelector(id)).first().waitFor({ state: 'visible', timeout });
  await page.waitForFunction(
    (sel) => {
      const step = document.querySelector(sel);
      if (!step || document.documentElement.dataset.ready !== 'true') return false;
      return [...step.querySelectorAll('[data-tensor]')].some((t) => {
        const v = t.getAttribute('data-values');
        return v && v !== '[]' && t.getClientRects().length > 0;
      });
    },
    stepSelector(id),
    { timeout },
  );
}

/** Loads the page at a hash (string starting with '#') and waits for the step. */
export async function openAt(page, base, stepId, settings = bookSettings()) {
  await page.goto(base + formatHash(stepId, settings));
  await waitForStep(page, stepId);
}

/** Waits until the step holds no figure that an edit draws after its frame (off screen then: aria-busy, app/patch.js). */
export async function waitForSettled(page, timeout = RENDER_TIMEOUT) {
  await page.waitForFunction(() => !document.querySelector('#step [aria-busy="true"]'), undefined, { timeout });
}

/** Every displayed tensor of a step: name, shape, values (parsed), book mark ('match' | 'differs' | null). */
export async function readTensors(page, stepId) {
  await waitForSettled(page);
  return page.evaluate((sel) => {
    const step = document.querySelector(sel);
    return [...step.querySelectorAll('[data-tensor]')].map((el) => {
      // the book mark belongs to this tensor: inside it, or on it
      let mark = el.getAttribute('data-book');
      if (!mark) {
        const inner = el.querySelector('[data-book]');
        mark = inner ? inner.getAttribute('data-book') : null;
      }
      const shapeText = el.getAttribute('data-shape');
      return {
        name: el.getAttribute('data-tensor'),
        shape: shapeText === null ? null : shapeText === '' ? [] : shapeText.split(',').map(Number),
        valuesText: el.getAttribute('data-values'),
        mark,
        visible: el.getClientRects().length > 0,
      };
    });
  }, stepSelector(stepId)).then((list) =>
    list.map((t) => ({ ...t, values: t.valuesText ? JSON.parse(t.valuesText) : null })),
  );
}

/** The parsed data-values of one tensor on a step (the first element with that name). */
export async function tensorValues(page, stepId, name) {
  await waitForSettled(page);
  const text = await page.locator(`${stepSelector(stepId)} [data-tensor="${name}"]`).first().getAttribute('data-values');
  return text ? JSON.parse(text) : null;
}

/** The data-book mark of one tensor on a step. */
export async function tensorMark(page, stepId, name) {
  const t = (await readTensors(page, stepId)).find((x) => x.name === name);
  return t ? t.mark : undefined;
}

/** Waits until a tensor's data-values differ from `before` (a JSON text) and returns the new values. */
export async function waitForValuesChange(page, stepId, name, beforeText, timeout = RENDER_TIMEOUT) {
  const handle = await page.waitForFunction(
    ({ sel, before }) => {
      const el = document.querySelector(sel);
      const now = el && el.getAttribute('data-values');
      return now && now !== '[]' && now !== before ? now : false;
    },
    { sel: `${stepSelector(stepId)} [data-tensor="${name}"]`, before: beforeText },
    { timeout },
  );
  return JSON.parse(await handle.jsonValue());
}

/** Sets a settings control the way a user would: choose an option, tick a box or type and commit. */
export async function setControl(page, selector, value) {
  const control = page.locator(selector);
  const kind = await control.evaluate((el) => (el.tagName === 'SELECT' ? 'select' : el.type));
  if (kind === 'select') await control.selectOption(String(value));
  else if (kind === 'checkbox') await control.setChecked(Boolean(value));
  else if (kind === 'radio') await control.check();
  else {
    await control.fill(String(value));
    await control.press('Tab'); // commit (change event) the way leaving the field does
  }
}

/** The value a settings control shows (checkbox: checked). */
export async function controlValue(page, selector) {
  return page.locator(selector).evaluate((el) => (el.type === 'checkbox' ? el.checked : el.value));
}

/** Steps that show a result. */
export function stepsShowing(name) {
  return STEPS.filter((s) => s.show.includes(name));
}

export function product(shape) {
  return shape.reduce((a, b) => a * b, 1);
}

let torchPromise = null;
/** computeChapter in Node for some settings (the page's own code, the same WebAssembly). */
export async function reference(settings = bookSettings()) {
  torchPromise ??= loadAttention();
  return computeChapter(await torchPromise, settings);
}

/** Same numbers, element by element in row-major order (NaN equals NaN; "-Infinity" texts read as numbers). */
export function sameNumbers(a, b) {
  const x = flatValues(a).map(Number);
  const y = flatValues(b).map(Number);
  return x.length === y.length && x.every((v, i) => v === y[i] || (Number.isNaN(v) && Number.isNaN(y[i])));
}

/** Where two value lists first differ, in words (for failure messages). */
export function firstDifference(shown, expected) {
  const x = flatValues(shown);
  const y = flatValues(expected);
  if (x.length !== y.length) return `${x.length} values instead of ${y.length}`;
  const i = x.findIndex((v, k) => !(Number(v) === y[k] || (Number.isNaN(Number(v)) && Number.isNaN(y[k]))));
  const count = x.filter((v, k) => !(Number(v) === y[k] || (Number.isNaN(Number(v)) && Number.isNaN(y[k])))).length;
  return i < 0 ? 'no difference' : `${count} of ${x.length} values differ; first at flat index ${i}: data-values has ${JSON.stringify(x[i])}, computeChapter has ${y[i]}`;
}
