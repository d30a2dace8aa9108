// The published forms of the page (npm run build:site): dist/site on a plain static host under a sub-path,
// dist/attention-lab.html opened from file:// with the network off, and the Vite dev server. Checks the
// request budget before the first numbers, the Content-Security-Policy (present, strict, enforced, never
// violated), KaTeX's trimmed fonts, the first frame holding the first screen (a tall window the whole step), the
// single file's first step drawn at build time (shown first, replaced in place; never to a visitor it is not for)
// and its SIMD-only message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

import {
  assertNoProblems,
  BOOK_PRINTS,
  bookSettings,
  closePage,
  formatHash,
  newPage,
  root,
  site,
  siteForTests,
  STEPS,
  stepSelector,
  SUB_PATH,
  waitForStep,
} from './harness.mjs';

// Requests (the page itself included) the page may make before its first numbers are on screen.
export const REQUEST_BUDGET = 12;
const singleFile = `${root}dist/attention-lab.html`;

const env = siteForTests();

const pages = ['index.html', 'bench.html', 'notebook.html'];
const read = (file) => readFileSync(`${site}${file}`, 'utf8');
const policyOf = (html) => html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)"/)?.[1] ?? null;
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
const directives = (policy) => new Map(policy.split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...v]) => [name, v]));

test('dist/site: three pages with relative URLs only, content-hashed assets, inline code only by hash', () => {
  for (const file of pages) {
    const html = read(file);
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]);
    assert.ok(urls.length > 2, `${file}: ${urls.length} URLs`);
    // a leading "/" would point at the host's root, not the site's sub-path
    assert.deepEqual(urls.filter((u) => u.startsWith('/') || /^[a-z]+:/i.test(u)), [], `${file}: absolute URLs`);
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length >= 2);
    // the walk-through's boot script is inline (the core's fetch starts with the HTML's first bytes), and so is the
    // notebook's registration of the service worker (web/notebook/register-early.js), each allowed by its hash;
    // every other script is a file of the site
    const allowed = directives(policyOf(html)).get('script-src');
    const inline = scripts.filter(([, attributes]) => !/\bsrc="/.test(attributes));
    assert.equal(inline.length, file === 'index.html' || file === 'notebook.html' ? 1 : 0, `${file}: inline scripts`);
    for (const [, , body] of inline) assert.ok(allowed.includes(sha256(body)), `${file}: an inline script whose hash the policy does not list`);
    for (const [, attributes, body] of scripts) if (/\bsrc="/.test(attributes)) assert.equal(body.trim(), '', `${file}: code in a script with src`);
    assert.doesNotMatch(html, /<style\b|\sstyle="|\son[a-z]+="/, `${file}: inline style or event handler`);
  }
  const assets = readdirSync(`${site}assets`, { recursive: true }).filter((f) => /\.\w+$/.test(f)).map((f) => f.split('/').pop());
  const named = (pattern) => assets.filter((f) => pattern.test(f));
  assert.equal(named(/^attention-simd-[\w-]{8}\.wasm$/).length, 1, 'the SIMD build, hashed');
  assert.equal(named(/^attention-scalar-[\w-]{8}\.wasm$/).length, 1, 'the scalar build, hashed');
  assert.ok(named(/^KaTeX_Main-Regular-[\w-]{8}\.woff2$/).length === 1, "KaTeX's main font, hashed");
  assert.deepEqual(named(/\.(woff|ttf)$/), [], 'woff2 only');
  assert.deepEqual(assets.filter((f) => !/-[\w-]{8}\.\w+$/.test(f)), [], 'every asset named by its content');
  for (const file of ['pyodide.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip']) assert.ok(existsSync(`${site}pyodide/${file}`), file);
});

test('dist/site: each page carries a strict Content-Security-Policy', () => {
  for (const file of pages) {
    const policy = policyOf(read(file));
    assert.ok(policy, `${file}: no CSP meta`);
    const d = directives(policy);
    assert.deepEqual(d.get('default-src'), ["'self'"], file);
    assert.deepEqual(d.get('script-src').filter((v) => !v.startsWith("'sha256-")), ["'self'", "'wasm-unsafe-eval'"], file);
    assert.deepEqual(d.get('style-src'), ["'self'"], file);
    assert.deepEqual(d.get('object-src'), ["'none'"], file);
    assert.doesNotMatch(policy, /unsafe-inline|'unsafe-eval'|data:|\*|https?:/, file);
    // the policy must come before anything it governs
    const html = read(file);
    assert.ok(html.indexOf('Content-Security-Policy') < html.indexOf('<script'), `${file}: the policy comes after a script`);
  }
});

test('the policy is enforced: code injected inline does not run and is reported', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.base);
  await waitForStep(page, STEPS[0].id);
  const outcome = await page.evaluate(async () => {
    const reports = [];
    document.addEventListener('securitypolicyviolation', (e) => reports.push(e.violatedDirective));
    const script = document.createElement('script');
    script.textContent = 'window.__injected = true;';
    document.head.append(script);
    await new Promise((r) => setTimeout(r, 100));
    return { ran: window.__injected === true, reports };
  });
  assert.equal(outcome.ran, false, 'an inline script ran');
  assert.ok(outcome.reports.some((d) => d.startsWith('script-src')), `no violation reported: ${outcome.reports}`);
  await closePage(page);
});

/** Requests made before the first numbers (the document and every resource started before the mark). */
function requestsBeforeNumbers() {
  const mark = performance.getEntriesByName('page:first-step')[0];
  if (!mark) return null;
  const resources = performance.getEntriesByType('resource').filter((r) => r.startTime <= mark.startTime);
  return { count: 1 + resources.length, names: resources.map((r) => new URL(r.name).pathname.split('/').pop()), at: mark.startTime };
}

test(`cold cache: at most ${REQUEST_BUDGET} requests before the first numbers, one WebAssembly build fetched; a window the step fits gets it whole in the first frame`, async () => {
  const page = await newPage(env.browser, { height: 2400 }); // a new context: an empty cache
  await page.addInitScript(recordFirstScreen);
  await page.goto(env.base);
  await waitForStep(page, STEPS[0].id);
  await checkFirstScreen(page, 2400, false);
  const seen = await page.evaluate(requestsBeforeNumbers);
  console.log(`${seen.count} requests before the first numbers (${Math.round(seen.at)} ms on localhost): ${seen.names.join(', ')}`);
  assert.ok(seen.count <= REQUEST_BUDGET, `${seen.count} requests: ${seen.names.join(', ')}`);
  await page.waitForTimeout(300);
  const { wasm, module } = await page.evaluate(() => {
    const resources = performance.getEntriesByType('resource');
    return {
      wasm: resources.filter((r) => r.name.endsWith('.wasm')).map((r) => ({ name: r.name, start: r.startTime })),
      module: resources.find((r) => /\/assets\/index-[\w-]+\.js$/.test(r.name))?.startTime,
    };
  });
  assert.equal(wasm.length, 1, `WebAssembly files fetched: ${wasm.map((w) => w.name)}`);
  assert.match(wasm[0].name, /attention-simd-/);
  // requested by the inline boot script as the HTML is read, before the page's module (whose loader takes it)
  assert.ok(wasm[0].start <= module, `the WebAssembly was requested at ${wasm[0].start} ms, after the page's module (${module} ms)`);
  assertNoProblems(page);
  await closePage(page);
});

/** Typeset glyphs whose KaTeX face (family, weight, style) the page's stylesheet does not declare. */
function missingFaces() {
  const declared = new Set([...document.fonts].map((f) => `${f.family.replace(/"/g, '')}|${f.weight}|${f.style}`));
  const missing = new Set();
  let glyphs = 0;
  for (const el of document.querySelectorAll('.katex-html *')) {
    if (![...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim())) continue;
    const style = getComputedStyle(el);
    const family = style.fontFamily.split(',')[0].trim().replace(/"/g, '');
    if (!family.startsWith('KaTeX_')) continue;
    glyphs++;
    const key = `${family}|${style.fontWeight === '400' ? '400' : style.fontWeight}|${style.fontStyle}`;
    if (!declared.has(key)) missing.add(key);
  }
  return { glyphs, missing: [...missing] };
}

test("every formula's glyphs have their KaTeX face in the trimmed stylesheet, wide and narrow", async () => {
  for (const width of [1280, 390]) {
    const page = await newPage(env.browser, { width, height: 900 });
    await page.goto(env.base + formatHash(STEPS[0].id, bookSettings()));
    await waitForStep(page, STEPS[0].id);
    let glyphs = 0;
    const missing = new Set();
    for (const step of STEPS) {
      await page.evaluate((hash) => (location.hash = hash), formatHash(step.id, bookSettings()));
      await waitForStep(page, step.id);
      if (step.formula) await page.locator(`${stepSelector(step.id)} .katex`).first().waitFor();
      const seen = await page.evaluate(missingFaces);
      glyphs += seen.glyphs;
      for (const m of seen.missing) missing.add(`${m} (${step.id})`);
    }
    assert.ok(glyphs > 100, `only ${glyphs} glyphs checked at ${width} px`);
    assert.deepEqual([...missing], [], `faces missing at ${width} px`);
    assertNoProblems(page);
    await closePage(page);
  }
});

test('dist/attention-lab.html: one file, its first step drawn into it, its scripts and styles allowed by hash', () => {
  const html = readFileSync(singleFile, 'utf8');
  const linksIn = (text) => [...text.replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1>/g, '').matchAll(/\b(?:src|href)="([^"]*)"/g)]
    .map((m) => m[1]).filter((u) => !u.startsWith('data:') && !u.startsWith('#'));
  const drawnStep = /<article [^>]*data-drawn=""[\s\S]*?<\/article>/.exec(html)?.[0] ?? '';
  // the only links to other files are the bench and notebook pages', which this edition hides (the drawn step
  // ends at its results, before its "Open in notebook")
  assert.ok(drawnStep.includes('class="results"'));
  assert.deepEqual(linksIn(html.replace(drawnStep, '')), ['./bench.html', './notebook.html']);
  assert.deepEqual(linksIn(drawnStep), []);
  assert.match(html, /<html lang="en" data-edition="single-file">/);
  // in ASCII alone, which Chromium reads in 8-bit strings (scripts/ascii-html.mjs)
  assert.deepEqual(html.match(/[^\x00-\x7f]/g), null, 'characters outside ASCII in the single file');
  const d = directives(policyOf(html));
  assert.deepEqual(d.get('default-src'), ["'none'"]);
  // KaTeX is inert text until the page imports it after its first paint (web/boot-chunks.js makes a module of
  // it from a blob: URL); the scripts that run are allowed by hash
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  const inert = scripts.filter(([, attributes]) => /type="text\/plain"/.test(attributes));
  const run = scripts.filter(([, attributes]) => !/type="text\/plain"/.test(attributes));
  assert.deepEqual(d.get('script-src').filter((s) => s.startsWith("'sha256-")).sort(), run.map(([, , code]) => sha256(code)).sort(), 'one hash per script run');
  assert.ok(d.get('script-src').includes("'wasm-unsafe-eval'"));
  assert.doesNotMatch(policyOf(html), /unsafe-inline|'unsafe-eval'|'self'/);
  assert.ok(d.get('script-src').includes('blob:'), 'the later chunks are imported from blob: URLs');
  const modules = run.filter(([attributes]) => /type="module"/.test(attributes));
  assert.equal(modules.length, 1, 'one module runs as the file is read');
  assert.match(modules[0][2], /performance\.mark\(`page:first-step`\)/, 'the page’s module');
  // whose top-level code runs once the drawn step is painted (when there is one)
  assert.match(modules[0][2], /^if \(window\.bootDrawnPainted\) await window\.bootDrawnPainted;\n/);
  assert.doesNotMatch(modules[0][2], /KaTeX parse error/, 'KaTeX in the page’s module');
  assert.ok(inert.some(([attributes, , code]) => /data-chunk="katex-[\w-]+\.js"/.test(attributes) && /KaTeX parse error/.test(code)), 'KaTeX, inert');
  // the diagnose search too (run in the offline test below), which imports what it shares with the page through a
  // stand-in named as the page's module (vite.config.js, pageExports)
  const search = /Your numbers are what this step prints/;
  assert.doesNotMatch(modules[0][2], search, 'the diagnose search in the page’s module');
  assert.ok(inert.some(([attributes, , code]) => /data-chunk="diagnose-[\w-]+\.js"/.test(attributes) && search.test(code)), 'the diagnose search, inert');
  assert.ok(inert.some(([attributes, , code]) => /data-chunk="index-[\w-]+\.js"/.test(attributes) && /window\.bootPageExports/.test(code)), 'the page module’s stand-in');
  // KaTeX's stylesheet (its fonts) too, carried beside its chunk and made a <style> with it; every style allowed by hash
  const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/g)].map((m) => m[1]);
  const carried = inert.filter(([attributes]) => /data-style-of="katex-[\w-]+\.js"/.test(attributes)).map(([, , css]) => css);
  assert.equal(carried.length, 1, "KaTeX's stylesheet carried as text once");
  assert.match(carried[0], /@font-face\{[^}]*font-family:KaTeX_Main/);
  // the page's stylesheet, and the drawn first step's colours (scripts/prerender-single-file.mjs)
  assert.equal(styles.length, 2);
  assert.ok(styles.every((css) => !/@font-face|KaTeX_|\.katex\{/.test(css)), "KaTeX's rules or fonts in the page's own stylesheets");
  assert.match(styles[1], /^\[data-first-step=drawn\] #step > \.loading\{display:none\}\n\[data-first-step=live\] #step > \[data-drawn\]\{display:none\}(\n#step \.fs\d+\{[^{}]+\})+$/);
  assert.deepEqual(d.get('style-src').sort(), [...styles, ...carried].map(sha256).sort(), 'one hash per style, the carried one included');
  // Its first step is drawn into it, between the step's "Loading…" and the element the first frame waits for
  // (#first-step-end); a script in the head, before the boot script (which unpacks the core after the drawn step's
  // paint), keeps one of the two rel=expect links: that one, or the file's last element (#end-of-file) for a
  // visitor the drawing is not for, whose first frame is then the module's first step.
  assert.match(html, /<link rel="expect" href="#first-step-end" blocking="render" \/>\s*<link rel="expect" href="#end-of-file" blocking="render" \/>\s*<script>[\s\S]*?dataset\.firstStep[\s\S]*?window\.bootDrawnPainted = [\s\S]*?<\/script>\s*<script data-core-gzip="/);
  assert.equal(html.match(/<link rel="expect"/g).length, 2);
  assert.match(html, /<style>\[data-first-step=drawn\][^<]*<\/style>\s*<\/head>/);
  assert.match(html, new RegExp(`<div id="step" class="step-host" aria-busy="true">\\s*<div class="loading" role="status">[\\s\\S]*?</div>\\s*<article class="step" data-step="${STEPS[0].id}"[^>]*data-drawn=""[\\s\\S]*?</article></div><template id="first-step-end"></template><script>[^<]*performance\\.mark\\('page:first-step'\\)[^<]*</script>`));
  assert.doesNotMatch(html.slice(html.indexOf('<body'), html.indexOf('id="first-step-end"')), /\sstyle="/, 'a style attribute, which the policy refuses, in the drawn step');
  assert.match(html, /<script type="module">[\s\S]*?<\/script>\s*<template id="end-of-file"><\/template>\s*<\/body>/, 'the module, last');
  // the SIMD build, gzipped on the boot script's tag (compiled as the page is parsed), and no other
  const cores = [...html.matchAll(/ data-core-gzip="([^"]*)"/g)];
  assert.equal(cores.length, 1, 'the SIMD build is inlined once');
  const core = gunzipSync(Buffer.from(cores[0][1], 'base64'));
  assert.ok(core.length > 100_000 && WebAssembly.validate(core), `the inlined build is not a WebAssembly module (${core.length} bytes)`);
  assert.doesNotMatch(html, /data:application\/wasm/, 'another build inlined as a data: URL');
});

test('dist/attention-lab.html from file:// with the network off: its drawn first step first, then the page\'s own in its place, numbers, formulas, steps, no error', async () => {
  const page = await newPage(env.browser, { height: 800, contextOptions: { offline: true } });
  const requests = [];
  page.on('request', (r) => requests.push(r.url()));
  await page.addInitScript(recordFirstScreen);
  await page.goto(`file://${singleFile}`);
  await waitForStep(page, STEPS[0].id);
  // The first frame is the step the build drew into the file, as far as the first screen shows it (its results
  // reach below this window: the parts after them are the page's to draw, as in its own first frame); the page's
  // own step takes its place without a part moving or a number changing.
  const first = await page.evaluate(() => window.firstScreen);
  assert.equal(first.drawn, true, 'the first frame held the drawn step');
  assert.deepEqual(first.left, [], 'parts of the drawn step left out of the first frame');
  assert.ok(first.resultsBottom >= 800, `the results end at ${first.resultsBottom} px, on the first screen`);
  assert.equal(first.places.at(-1)[0].split(' ')[0], 'results', 'the drawn step goes on past the first screen');
  const live = await page.evaluate(() => ({
    drawn: document.querySelectorAll('[data-drawn]').length,
    places: [...document.querySelectorAll('#step > article > *')].map(window.placeInStep),
    results: document.querySelector('#step > article > .results').textContent,
  }));
  assert.equal(live.drawn, 0, 'the drawn step is gone once the page has drawn its own');
  assert.equal(first.results, live.results, 'the numbers drawn at build time are the page\'s');
  const results = live.places.findIndex(([name]) => name.split(' ')[0] === 'results');
  assert.ok(results > 0);
  for (const [name, place] of first.places.slice(0, results + 1)) {
    assert.equal(live.places.find(([other]) => other.split(' ')[0] === name.split(' ')[0])?.[1], place, `${name} moved when the page drew its own step`);
  }
  for (const step of STEPS.slice(1, 5)) {
    await page.click('#next');
    await waitForStep(page, step.id);
  }
  await page.locator(`${stepSelector(STEPS[4].id)} .katex`).first().waitFor();
  // KaTeX's stylesheet, made a <style> as KaTeX was imported, is in force: its fonts are used
  const katexStyle = await page.evaluate(async () => {
    await document.fonts.ready;
    const main = [...document.fonts].some((face) => face.family.replace(/"/g, '') === 'KaTeX_Main' && face.status === 'loaded');
    return { font: getComputedStyle(document.querySelector('.katex')).fontFamily, main };
  });
  assert.match(katexStyle.font, /^KaTeX_Main\b/, "KaTeX's stylesheet applies");
  assert.ok(katexStyle.main, 'KaTeX_Main is loaded');
  assert.equal(await page.locator('.needs-site').first().isVisible(), false, 'the bench and notebook links are hidden');
  // the search runs in the page here (no worker from file://): the step's own numbers pasted are named as the page's
  const details = page.locator(`${stepSelector(STEPS[4].id)} [data-diagnose]`);
  await details.locator('summary').click();
  await details.getByLabel(/Paste what your PyTorch printed/).fill(BOOK_PRINTS.attn_weights_2_naive);
  await details.getByRole('button', { name: 'Find why' }).click();
  await details.locator('.diagnose-answer .diagnose-verdict').first().waitFor();
  assert.match(await details.locator('.diagnose-answer').textContent(), /exactly the page’s numbers/);
  // a blob: URL is the file's own chunk, made in memory (web/boot-chunks.js)
  const elsewhere = requests.filter((u) => !u.startsWith(`file://${singleFile}`) && !u.startsWith('data:') && !u.startsWith('blob:'));
  assert.deepEqual(elsewhere, [], 'requests for other files');
  await page.screenshot({ path: `${root}test-results/single-file.png` });
  assertNoProblems(page, 'the single file');
  await closePage(page);
});

/**
 * In the page before its scripts: in the frame after its first numbers ('page:first-step'), the first frame, which
 * parts of the step are left out, whether the results reach below the window, and where every part drawn lies.
 */
function recordFirstScreen() {
  const placeInStep = (part) => {
    const [{ top, left, width, height }, step] = [part.getBoundingClientRect(), part.parentElement.getBoundingClientRect()];
    return [part.className, JSON.stringify({ top: top - step.top, left: left - step.left, width, height })];
  };
  window.placeInStep = placeInStep;
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    if (name === 'page:first-step' && !window.firstScreenAsked) { // the first (the single file marks its drawn step too)
      window.firstScreenAsked = true;
      requestAnimationFrame(() => {
        const parts = [...document.querySelectorAll('#step > article > *')];
        window.firstScreen = {
          // the step the single file's build drew, or the page's own
          drawn: document.querySelector('#step > article')?.hasAttribute('data-drawn') ?? false,
          drawnShown: [...document.querySelectorAll('[data-drawn]')].some((el) => el.getClientRects().length > 0),
          results: document.querySelector('#step > article > .results')?.textContent,
          left: parts.filter((part) => !part.getClientRects().length).map((part) => part.className),
          resultsBottom: document.querySelector('#step > article > .results').getBoundingClientRect().bottom,
          places: parts.filter((part) => part.getClientRects().length).map(placeInStep),
        };
      });
    }
    return mark(name, ...rest);
  };
}

/**
 * Checks what recordFirstScreen saw in `page` (the first step, a window `height` px tall), once the page is ready:
 * with `leftOut`, the results reached below the window and every part after them waited for the frame after;
 * else the whole step was in the first frame. Either way what that frame drew up to the results stays in place.
 */
async function checkFirstScreen(page, height, leftOut) {
  const first = await page.evaluate(() => window.firstScreen);
  const now = await page.evaluate(() => ({
    parts: [...document.querySelectorAll('#step > article > *')].map((part) => [part.className, part.getClientRects().length > 0]),
    places: [...document.querySelectorAll('#step > article > *')].map(window.placeInStep),
    waiting: document.getElementById('step').hasAttribute('data-first-screen'),
  }));
  assert.equal(now.waiting, false, `${height} px: the parts after the results are still left out once the page is ready`);
  assert.deepEqual(now.parts.filter(([, shown]) => !shown), [], `${height} px: parts of the step not shown once the page is ready`);
  const results = now.parts.findIndex(([name]) => name.split(' ')[0] === 'results');
  assert.ok(results > 0 && results < now.parts.length - 1, 'the first step has parts before and after its results');
  if (leftOut) {
    assert.ok(first.resultsBottom >= height, `${height} px: the results end at ${first.resultsBottom} px, on the first screen`);
    assert.deepEqual(first.left.map((name) => name.split(' ')[0]), now.parts.slice(results + 1).map(([name]) => name.split(' ')[0]), 'the parts left out of the first frame');
  } else {
    assert.ok(first.resultsBottom < height, `${height} px: the results end at ${first.resultsBottom} px`);
    assert.deepEqual(first.left, [], `${height} px: parts left out of the first frame although on the first screen`);
  }
  // in the step (the header above it grows once the panels come; a formula below, once typeset)
  for (const [name, place] of first.places.slice(0, results + 1)) {
    assert.equal(now.places.find(([other]) => other.split(' ')[0] === name.split(' ')[0])?.[1], place, `${height} px: ${name} moved once the rest of the step came`);
  }
}

for (const [who, options, hash] of [
  ['a link to another step', {}, () => formatHash(STEPS[3].id, bookSettings())],
  ['the dark theme', { contextOptions: { colorScheme: 'dark' } }, () => ''],
  ['a phone', { width: 390, height: 844, contextOptions: { hasTouch: true, isMobile: true } }, () => ''],
]) {
  test(`dist/attention-lab.html: ${who} never sees the drawn first step; the page's own is the first frame`, async () => {
    const page = await newPage(env.browser, { ...options, contextOptions: { offline: true, ...options.contextOptions } });
    await page.addInitScript(recordFirstScreen);
    const id = hash() ? STEPS[3].id : STEPS[0].id;
    await page.goto(`file://${singleFile}${hash()}`);
    await waitForStep(page, id);
    const first = await page.evaluate(() => window.firstScreen);
    assert.equal(await page.evaluate(() => document.documentElement.dataset.firstStep), 'live');
    assert.equal(first.drawn, false, 'the first frame held the drawn step');
    assert.equal(first.drawnShown, false, 'the drawn step was shown in the first frame');
    assertNoProblems(page);
    await closePage(page);
  });
}

test('dist/attention-lab.html in a browser without WebAssembly SIMD says what to do instead', async () => {
  const page = await newPage(env.browser, { contextOptions: { offline: true } });
  // as an engine without SIMD would: the page's SIMD probe does not validate
  await page.addInitScript(() => {
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => (bytes.length < 40 ? false : validate(bytes));
  });
  await page.goto(`file://${singleFile}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'error', undefined, { timeout: 15_000 });
  const alert = await page.getByRole('alert').textContent();
  assert.match(alert, /no WebAssembly SIMD/);
  assert.match(alert, /published site/);
  await closePage(page);
});

test('the Vite dev server serves the page from the sources, and the README example runs in it', async () => {
  const { createServer } = await import('vite');
  const server = await createServer({ configFile: `${root}vite.config.js`, logLevel: 'silent', server: { port: 0, strictPort: false } });
  await server.listen();
  try {
    const base = server.resolvedUrls.local[0];
    const page = await newPage(env.browser);
    await page.goto(base);
    await waitForStep(page, STEPS[0].id, 60_000);
    // The README's example, with the package name pointing at the module in this checkout.
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const block = (marker) => readme.match(new RegExp(`<!-- ${marker} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``))?.[1];
    const example = block('readme-example');
    assert.ok(example && block('readme-output'), 'README.md marks its example and its output');
    const code = example.replace(/(['"])attention-lab\1/g, `'/@fs${root}wasm/index.js'`);
    assert.notEqual(code, example, "the example imports 'attention-lab'");
    await page.evaluate(() => {
      window.__readme = { log: [], done: false, error: null };
      const log = console.log.bind(console);
      console.log = (...args) => {
        window.__readme.log.push(args.map(String).join(' '));
        log(...args);
      };
      window.addEventListener('error', (e) => (window.__readme.error = String(e.error?.stack ?? e.message)));
    });
    await page.addScriptTag({ type: 'module', content: `${code}\nwindow.__readme.done = true;\n` });
    await page.waitForFunction(() => window.__readme.done || window.__readme.error, undefined, { timeout: 30_000 });
    const run = await page.evaluate(() => window.__readme);
    assert.equal(run.error, null, `the example threw: ${run.error}`);
    assert.equal(run.log.map((l) => `${l}\n`).join(''), block('readme-output'));
    assertNoProblems(page);
    await closePage(page);
  } finally {
    await server.close();
  }
});

test('the host really is under a sub-path: its root has nothing', async () => {
  const response = await fetch(new URL('/', env.base));
  assert.equal(response.status, 404);
  assert.ok(env.base.endsWith(SUB_PATH));
});
