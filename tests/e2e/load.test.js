// Loading: a loading state is shown while the WebAssembly is on its way, then numbers; the first step's
// numbers come quickly; no console errors. And the README's JavaScript example runs in the page as printed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
  STEPS,
  assertNoProblems,
  closePage,
  formatHash,
  bookSettings,
  newPage,
  openAt,
  root,
  setup,
  stepSelector,
  waitForStep,
} from './harness.mjs';

let env;
before(async () => {
  env = await setup();
});
after(async () => {
  await env?.close();
});

/** Whether the page shows a loading state, and whether any tensor of the step has numbers. */
function loadingState(sel) {
  const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const busy = [...document.querySelectorAll('[aria-busy="true"]')].some(visible);
  const text = /\bloading\b|\bcomputing\b/i.test(document.body.innerText);
  const step = document.querySelector(sel);
  const numbers = !!step && [...step.querySelectorAll('[data-tensor]')].some((t) => {
    const v = t.getAttribute('data-values');
    return v && v !== '[]' && visible(t);
  });
  return { loading: busy || text, busy, text, numbers };
}

test('a loading state is shown until the WebAssembly arrives, then the numbers', async () => {
  const page = await newPage(env.browser);
  let release;
  const gate = new Promise((resolve) => {
    release = resolve;
  });
  // hold the WebAssembly binaries (for the page and any worker of it) until the loading state has been seen
  await page.context().route(/\/wasm\/dist\/.*\.wasm$/, async (route) => {
    await gate;
    await route.continue();
  });
  const first = STEPS[0].id;
  await page.goto(env.base + formatHash(first, bookSettings()), { waitUntil: 'domcontentloaded' });
  const sel = stepSelector(first);
  const seen = await page
    .waitForFunction(loadingState, sel, { timeout: 5000 })
    .then(() => page.evaluate(loadingState, sel))
    .catch(() => page.evaluate(loadingState, sel));
  await page.screenshot({ path: `${root}test-results/loading.png` });
  release();
  assert.ok(seen.loading, `no loading state (aria-busy="true" or a "Loading…" text) while the WebAssembly is held back: ${JSON.stringify(seen)}`);
  assert.ok(!seen.numbers, 'numbers were shown before the WebAssembly arrived');
  await waitForStep(page, first);
  const after = await page.evaluate(loadingState, sel);
  assert.ok(after.numbers, 'numbers after loading');
  assert.ok(!after.busy, 'aria-busy="true" is still set after the numbers came');
  assertNoProblems(page);
  await closePage(page);
});

test('the first step shows its numbers within 5 s, with no console errors', async () => {
  const page = await newPage(env.browser);
  const started = Date.now();
  await page.goto(env.base);
  const handle = await page.waitForFunction(
    () => {
      const t = [...document.querySelectorAll('[data-step][data-section] [data-tensor]')].find((el) => {
        const v = el.getAttribute('data-values');
        return v && v !== '[]' && el.getClientRects().length > 0;
      });
      return t ? performance.now() : false;
    },
    undefined,
    { timeout: 15_000, polling: 'raf' },
  );
  const sincePageStart = await handle.jsonValue();
  const wall = Date.now() - started;
  console.log(`first numbers after ${Math.round(sincePageStart)} ms (navigation start), ${wall} ms wall clock`);
  // the page without a hash shows the first step
  await waitForStep(page, STEPS[0].id);
  assert.ok(sincePageStart < 5000, `first numbers took ${Math.round(sincePageStart)} ms`);
  await page.waitForTimeout(500); // late errors
  assertNoProblems(page);
  await closePage(page);
});

test('a page whose module cannot load says so (web/boot.js), on both pages', async () => {
  for (const [path, entry, title] of [
    ['', 'web/main.js', 'The page could not start'],
    ['bench', 'web/bench.js', 'The benchmark could not start'],
  ]) {
    const page = await newPage(env.browser);
    await page.route(new RegExp(`/${entry}$`), (route) => route.fulfill({ status: 404, body: 'not found' }));
    await page.goto(env.base + path, { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'error', undefined, { timeout: 10_000 });
    const alert = page.getByRole('alert');
    assert.equal(await alert.getByRole('heading').textContent(), title);
    assert.match(await alert.textContent(), /scripts could not be loaded/);
    await page.close();
  }
});

/** The fenced block after an HTML comment marker in README.md. */
function readmeBlock(marker) {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const match = readme.match(new RegExp(`<!-- ${marker} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``));
  assert.ok(match, `README.md has no block after <!-- ${marker} -->`);
  return match[1];
}

test("the README's JavaScript example prints the README's output in the page", async () => {
  const example = readmeBlock('readme-example');
  const expected = readmeBlock('readme-output');
  const code = example.replace(/(['"])attention-lab\1/g, "'/wasm/index.js'");
  assert.notEqual(code, example, "the example imports 'attention-lab'");

  // bypassCSP: the example is injected as an inline module script
  const page = await newPage(env.browser, { contextOptions: { bypassCSP: true } });
  await openAt(page, env.base, STEPS[0].id);
  await page.evaluate(() => {
    window.__readme = { log: [], done: false, error: null };
    const log = console.log.bind(console);
    console.log = (...args) => {
      window.__readme.log.push(args.map(String).join(' '));
      log(...args);
    };
    window.addEventListener('error', (e) => {
      window.__readme.error = String(e.error?.stack ?? e.message);
    });
  });
  await page.addScriptTag({ type: 'module', content: `${code}\nwindow.__readme.done = true;\n` });
  await page.waitForFunction(() => window.__readme.done || window.__readme.error, undefined, { timeout: 15_000 });
  const run = await page.evaluate(() => window.__readme);
  assert.equal(run.error, null, `the example threw: ${run.error}`);
  assert.equal(run.log.map((l) => `${l}\n`).join(''), expected);
  assertNoProblems(page);
  await closePage(page);
});

// Every module the page imports, statically or by import('…') of a literal, from its entry: paths from the
// checkout's root, as the page's URLs name them (the server maps vendor/katex/ into node_modules).
function moduleGraph(entry) {
  const base = new URL(root, 'file:');
  const seen = new Set();
  const visit = (url) => {
    const path = url.href.slice(base.href.length);
    if (seen.has(path)) return;
    seen.add(path);
    if (path.startsWith('vendor/')) return; // KaTeX's single module
    const source = readFileSync(url, 'utf8');
    const specs = [
      ...source.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+'(\.{1,2}\/[^']+)'/gms),
      ...source.matchAll(/\bimport\('(\.{1,2}\/[^']+)'\)/g),
    ];
    for (const [, spec] of specs) visit(new URL(spec, url));
  };
  visit(new URL(entry, base));
  return [...seen];
}

test('both pages preload every module they load, so none waits for the module that imports it', () => {
  for (const [html, entry, least] of [['web/index.html', 'web/main.js', 50], ['web/bench.html', 'web/bench.js', 4]]) {
    const text = readFileSync(`${root}${html}`, 'utf8');
    const preloaded = new Set([...text.matchAll(/<link rel="modulepreload" href="\.\/([^"]+)"/g)].map((m) => m[1]));
    // the scalar build is fetched only by browsers without WebAssembly SIMD
    const graph = moduleGraph(entry).filter((path) => path !== 'wasm/dist/attention-scalar.mjs');
    assert.ok(graph.length > least, `${entry}: the walk found ${graph.length} modules`);
    assert.deepEqual(graph.filter((path) => !preloaded.has(path)), [], html);
  }
});
