// The bench page (bench.html): GPT-2-size MultiHeadAttention timed live (a sweep over T plotted, then T = 1024
// in detail), the bonus replay (every way of web/bench/variants.js equal to the chapter's class and timed, at
// a short ?replay-tokens= to keep it seconds) and one head's attention map. The times
// appear and are positive (?sweep-runs=1: one timed pass per length); the map is drawn (a coloured lower triangle, a masked upper one); the weight read
// by pointing at a cell is the one the same API computes in Node; the keyboard moves the cell; the threads
// (the threaded build on the isolated host, each count timed with 1 thread's bits; on a host without headers
// the reason, and the service worker's reload onto every core); a missing WebAssembly file gives a clear
// message; axe-core, console errors and a 390 px phone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { startStaticHost } from '../../scripts/static-host.mjs';
import { SUB_PATH, artifacts, assertNoProblems, closePage, newPage, root, setup, site } from './harness.mjs';

const T = 1024;
let env;
let reference; // the same model and x as the page, in Node: { weights(head) -> Float32Array [T*T] }

before(async () => {
  env = await setup();
  const torch = await loadAttention();
  // the same random draws in the same order as web/bench.js
  torch.manualSeed(123);
  const mha = new torch.MultiHeadAttention(768, 768, T, 0.0, 12).eval();
  const x = torch.rand(1, T, 768);
  const cache = new Map();
  reference = {
    weights(head) {
      if (!cache.has(head)) cache.set(head, mha.attentionWeights(x, head, T).data);
      return cache.get(head);
    },
  };
});
after(async () => {
  await env?.close();
});

/** Opens /bench (with a query) and waits until the model is built and the first map drawn. */
async function openBench(page, query = '?runs=1') {
  await page.goto(`${env.base}bench.html${query}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready, undefined, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => document.documentElement.dataset.ready), 'true', 'the page is ready');
}

/** Clicks Run and waits for the last warm run. */
async function runOnce(page) {
  await page.click('#run');
  await page.waitForFunction(() => document.getElementById('results').dataset.state === 'done', undefined, { timeout: 60_000 });
}

/** Clicks the sweep's button and waits for its five lengths. */
async function sweepOnce(page) {
  await page.click('#sweep-run');
  await page.waitForFunction(() => document.getElementById('sweep').dataset.state === 'done', undefined, { timeout: 120_000 });
}

/** Clicks one of the replay's buttons ('quick' or 'notebook') and waits until every way has its figures. */
async function replayOnce(page, which = 'quick') {
  await page.click(`#replay-${which}`);
  await page.waitForFunction((size) => {
    const results = document.getElementById('replay-results');
    return results.dataset.size === size && ['done', 'error'].includes(results.dataset.state);
  }, which, { timeout: 120_000 });
}

/** Clicks the threads' button and waits for every count up to the one chosen. */
async function timeThreads(page) {
  await page.click('#threads-run');
  await page.waitForFunction(() => ['done', 'error'].includes(document.getElementById('threads-table').dataset.state), undefined, { timeout: 60_000 });
}

/** What the replay shows per way: its card's figures and its table row's cells. */
const replayShown = (page) =>
  page.evaluate(() => ({
    state: document.getElementById('replay-results').dataset.state,
    progress: document.getElementById('replay-progress').textContent,
    cards: [...document.querySelectorAll('#replay-cards li')].map((li) => ({
      id: li.dataset.variant,
      first: Number(li.dataset.firstMs),
      median: Number(li.dataset.medianMs),
      difference: li.dataset.difference === '' ? null : Number(li.dataset.difference),
      text: li.textContent,
    })),
    rows: [...document.querySelectorAll('#replay-body tr')].map((tr) => [...tr.children].map((c) => c.textContent)),
    sizeLine: document.getElementById('replay-size-line').textContent,
  }));

/** Points at the centre of a cell of the map and returns what the readout says about it. */
async function pointAt(page, row, col) {
  const canvas = page.locator('#map');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  await page.mouse.move(box.x + ((col + 0.5) / T) * box.width, box.y + ((row + 0.5) / T) * box.height);
  return readout(page);
}

const readout = (page) =>
  page.evaluate(() => {
    const el = document.getElementById('readout');
    return { row: Number(el.dataset.row), col: Number(el.dataset.col), value: el.dataset.value, text: el.textContent };
  });

// The page's own formatting of a weight (web/bench.js formatWeight).
const formatWeight = (v) => (v === 0 ? '0' : String(Number(v.toPrecision(4))));

test('Run times the forward: a first call apart, then the warm runs, all positive, with GFLOP/s; the threads, each count with 1 thread’s bits', async () => {
  const page = await newPage(env.browser);
  await openBench(page, '?runs=1&threads-tokens=64');
  assert.match(await page.textContent('#backend'), /^WebAssembly · (SIMD|scalar) · \d+ threads?$/);
  assert.equal(await page.inputValue('#runs'), '1', '?runs=1 sets the warm runs');
  await runOnce(page);
  const shown = await page.evaluate(() => {
    const stat = (id) => ({ ms: Number(document.getElementById(`${id}-ms`).dataset.ms), text: document.getElementById(`${id}-ms`).textContent, rate: document.getElementById(`${id}-gflops`).textContent });
    return {
      first: stat('first'),
      median: stat('median'),
      min: stat('min'),
      max: stat('max'),
      rows: [...document.querySelectorAll('#runs-body tr')].map((tr) => ({ label: tr.querySelector('th').textContent, ms: Number(tr.dataset.ms) })),
      runDisabled: document.getElementById('run').disabled,
      flop: document.body.innerText.includes('6.44 GFLOP'),
      peak: { ...document.getElementById('peak').dataset, text: document.getElementById('peak').textContent },
    };
  });
  console.log(`first call ${shown.first.text}, warm ${shown.median.text} (${shown.median.rate})`);
  for (const key of ['first', 'median', 'min', 'max']) {
    const { ms, text, rate } = shown[key];
    assert.ok(Number.isFinite(ms) && ms > 0, `${key}: ${ms} ms`);
    assert.match(text, /^\d+\.\d ms$/, `${key} shows a time`);
    assert.match(rate, /^\d+\.\d GFLOP\/s$/, `${key} shows GFLOP/s`);
  }
  assert.equal(shown.rows.length, 2, 'the table has the first call and one warm run');
  assert.ok(shown.rows.every((r) => r.ms > 0), JSON.stringify(shown.rows));
  assert.equal(shown.median.ms, shown.rows[1].ms, 'one warm run: it is the median');
  assert.equal(shown.runDisabled, false, 'Run is enabled again');
  assert.ok(shown.flop, 'the page states the FLOP count');
  // the SIMD peak measured after the runs, and the median's share of it (GFLOP/s over peak, as shown)
  const peak = Number(shown.peak.gflops), percent = Number(shown.peak.percent), threads = Number(shown.peak.threads);
  assert.ok(peak > 0, `peak ${peak} GFLOP/s`);
  // of one thread's peak times the threads the forward ran on
  assert.ok(Math.abs(percent - (100 * 6.444023808e9) / shown.median.ms / 1e6 / (peak * threads)) < 1e-6, `${percent}%`);
  assert.match(shown.peak.text, new RegExp(`${peak.toFixed(1)} GFLOP/s.*${percent.toFixed(0)}%`));

  // threads: the isolated host runs the threaded build on every core; each count is timed with 1 thread's bits
  const cores = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 256));
  const threading = await page.evaluate(() => ({
    isolated: crossOriginIsolated,
    flavour: document.getElementById('backend').dataset.flavour,
    backend: document.getElementById('backend').textContent,
    options: [...document.querySelectorAll('#threads option')].map((o) => o.value),
    chosen: document.getElementById('threads').value,
    availability: document.getElementById('threads-availability').textContent,
    enableHidden: document.getElementById('threads-enable').hidden,
  }));
  assert.equal(threading.isolated, true, 'the test host sends COOP/COEP');
  assert.deepEqual(threading.options, Array.from({ length: cores }, (_, k) => String(k + 1)), 'a choice of 1 to navigator.hardwareConcurrency');
  assert.equal(threading.chosen, String(cores), 'every core by default');
  assert.equal(threading.backend, `WebAssembly · SIMD · ${cores} thread${cores === 1 ? '' : 's'}`);
  if (cores > 1) {
    assert.equal(threading.flavour, 'simd-threads');
    assert.match(threading.availability, /cross-origin isolated[\s\S]*threaded build/);
  }
  assert.equal(threading.enableHidden, true, 'no reload offered where threads run');
  assert.match(await page.textContent('#threads-caption'), /T = 64/);

  await timeThreads(page);
  const rows = await page.locator('#threads-body tr').evaluateAll((trs) => trs.map((tr) => ({ ...tr.dataset, text: tr.textContent })));
  assert.equal(await page.getAttribute('#threads-table', 'data-state'), 'done', await page.textContent('#threads-progress'));
  console.log(`threads: ${await page.textContent('#threads-progress')}`);
  assert.deepEqual(rows.map((r) => r.threads), Array.from({ length: cores }, (_, k) => String(k + 1)));
  for (const r of rows) {
    assert.ok(Number(r.ms) > 0, `${r.threads} threads: ${r.ms} ms`);
    assert.equal(r.differing, '0', `${r.threads} threads: the same bits as 1 thread`);
    assert.ok(Math.abs(Number(r.speedUp) - Number(rows[0].ms) / Number(r.ms)) < 1e-9, 'speed-up = 1 thread’s time / this one');
  }
  assert.match(await page.textContent('#threads-summary'), /exactly 1 thread’s 49,152 numbers, bit for bit/);

  // the choice sets the threads of the page's forwards, and the header says so
  await page.selectOption('#threads', '1');
  assert.equal(await page.textContent('#backend'), 'WebAssembly · SIMD · 1 thread');
  assert.equal(await page.textContent('#threads-run'), 'Time on 1 thread');
  assertNoProblems(page);
  await closePage(page);
});

test('threads on a host without COOP/COEP: one thread, the reason said, and a reload through the service worker onto every core', async () => {
  const plain = await startStaticHost({ folder: site, prefix: SUB_PATH }); // no headers: a plain static host
  const page = await newPage(env.browser);
  try {
    await page.goto(`http://localhost:${plain.address().port}${SUB_PATH}bench.html?runs=1`);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 30_000 });
    assert.equal(await page.evaluate(() => crossOriginIsolated), false);
    assert.equal(await page.textContent('#backend'), 'WebAssembly · SIMD · 1 thread');
    assert.match(await page.textContent('#threads-availability'), /^Only 1 thread here: .*cross-origin-isolated page.*COOP and COEP/);
    assert.equal(await page.locator('#threads').isDisabled(), true, 'one thread: nothing to choose');
    await Promise.all([page.waitForEvent('load'), page.click('#threads-enable')]);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 30_000 });
    const cores = await page.evaluate(() => Math.min(navigator.hardwareConcurrency, 256));
    assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'isolated once the service worker serves the page');
    assert.equal(await page.textContent('#backend'), `WebAssembly · SIMD · ${cores} thread${cores === 1 ? '' : 's'}`);
    assertNoProblems(page);
  } finally {
    await closePage(page);
    await new Promise((done) => plain.close(done));
  }
});

test('the map is drawn: many colours below the diagonal, only the masked colours above it', async () => {
  const page = await newPage(env.browser);
  await openBench(page);
  const drawn = await page.evaluate((T) => {
    const canvas = document.getElementById('map');
    const px = canvas.getContext('2d').getImageData(0, 0, T, T).data;
    const allowed = new Set([canvas.dataset.masked, canvas.dataset.hatch]);
    const lower = new Set();
    let upperWrong = 0;
    for (let i = 0; i < T; i++) {
      for (let j = 0; j < T; j++) {
        const at = (i * T + j) * 4;
        const rgb = `${px[at]},${px[at + 1]},${px[at + 2]}`;
        if (j > i) upperWrong += allowed.has(rgb) ? 0 : 1;
        else lower.add(rgb);
      }
    }
    return { lowerColours: lower.size, upperWrong, masked: canvas.dataset.masked, maskedInLower: lower.has(canvas.dataset.masked) };
  }, T);
  assert.ok(drawn.masked, 'the canvas names its masked colour');
  assert.ok(drawn.lowerColours > 20, `the lower triangle has ${drawn.lowerColours} colours`);
  assert.equal(drawn.upperWrong, 0, 'every pixel above the diagonal is the masked colour or its hatching');
  assert.equal(drawn.maskedInLower, false, 'the masked colour is not a weight’s colour');
  const caption = await page.textContent('#map-caption');
  assert.match(caption, /upper triangle[^.]*masked/i, 'the caption says the upper triangle is masked');
  assertNoProblems(page);
  await closePage(page);
});

test('pointing at a cell reads the weight Node computes with the same API; heads and the keyboard too', async () => {
  const page = await newPage(env.browser);
  await openBench(page);

  const check = async (head, row, col) => {
    const seen = await pointAt(page, row, col);
    assert.ok(Math.abs(seen.row - row) <= 1 && Math.abs(seen.col - col) <= 1, `pointed at (${row}, ${col}), read (${seen.row}, ${seen.col})`);
    const expected = reference.weights(head)[seen.row * T + seen.col];
    assert.equal(Number(seen.value), expected, `head ${head} weight (${seen.row}, ${seen.col})`);
    assert.ok(seen.text.includes(`query ${seen.row}, key ${seen.col}`), seen.text);
    assert.ok(seen.text.includes(formatWeight(expected)), `the readout shows ${formatWeight(expected)}: ${seen.text}`);
    return seen;
  };

  const below = await check(0, 700, 300);
  assert.ok(Number(below.value) > 0 && !/masked/.test(below.text));
  const above = await check(0, 100, 900);
  assert.equal(Number(above.value), 0);
  assert.match(above.text, /masked/);

  await page.selectOption('#head', '7');
  await page.waitForFunction(() => document.getElementById('map').dataset.head === '7' && !document.getElementById('head').disabled);
  assert.match(new URL(page.url()).search, /head=7/, 'the head is kept in the link');
  await check(7, 1000, 12);

  // keyboard: a click pins a cell, ArrowRight moves one key along, Shift+ArrowDown 64 queries down
  await page.mouse.click(...(await cellCentre(page, 500, 200)));
  const pinned = await readout(page);
  await page.keyboard.press('ArrowRight');
  let now = await readout(page);
  assert.deepEqual([now.row, now.col], [pinned.row, pinned.col + 1]);
  await page.keyboard.press('Shift+ArrowDown');
  now = await readout(page);
  assert.deepEqual([now.row, now.col], [pinned.row + 64, pinned.col + 1]);
  assert.equal(Number(now.value), reference.weights(7)[now.row * T + now.col]);
  assertNoProblems(page);
  await closePage(page);
});

async function cellCentre(page, row, col) {
  const box = await page.locator('#map').boundingBox();
  return [box.x + ((col + 0.5) / T) * box.width, box.y + ((row + 0.5) / T) * box.height];
}

test('the sweep over T: plain words first, five points on the plot, each bar split by the FLOP counts, the table agrees', async () => {
  const page = await newPage(env.browser);
  await openBench(page, '?sweep-runs=1');
  const headings = await page.locator('main h2').allTextContents();
  assert.deepEqual(headings.slice(0, 2), ['What is timed, in plain words', 'Longer sentences cost more than their length'], 'the plain words come first');
  assert.match(await page.locator('.bench-section').first().textContent(), /weights are random[\s\S]*same[\s\S]*multiplications/);
  await sweepOnce(page);
  const points = await page.locator('#sweep-plot circle.sweep-point').evaluateAll((cs) => cs.map((c) => ({ t: Number(c.dataset.t), ms: Number(c.dataset.ms), cy: Number(c.getAttribute('cy')) })));
  assert.deepEqual(points.map((p) => p.t), [64, 128, 256, 512, 1024]);
  for (const p of points) assert.ok(p.ms > 0 && Number.isFinite(p.ms), `T = ${p.t}: ${p.ms} ms`);
  // a longer time is drawn higher (smaller y); the longest sentence takes longest
  const byTime = [...points].sort((a, b) => a.ms - b.ms);
  assert.ok(byTime.every((p, k) => k === 0 || p.cy <= byTime[k - 1].cy), 'higher for longer times');
  assert.equal(byTime.at(-1).t, 1024);
  // each bar: the projections' share 8·T·768² of the FLOP, the attention's the rest, stacked to the point
  const bars = await page.locator('#sweep-plot svg').evaluate((svg) => {
    const rects = (cls) => [...svg.querySelectorAll(`rect.${cls}`)].map((r) => Number(r.getAttribute('height')));
    return { linear: rects('sweep-linear'), quadratic: rects('sweep-quadratic') };
  });
  points.forEach((p, k) => {
    const linear = 8 * p.t * 768 * 768;
    const quadratic = 2 * 2 * 12 * ((p.t * (p.t + 1)) / 2) * 64;
    const share = bars.quadratic[k] / (bars.linear[k] + bars.quadratic[k]);
    assert.ok(Math.abs(share - quadratic / (linear + quadratic)) < 1e-6, `T = ${p.t}: attention share ${share}`);
  });
  const rows = await page.locator('#sweep-body tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent)));
  assert.deepEqual(rows.map((r) => r[0]), ['64', '128', '256', '512', '1024']);
  assert.deepEqual(rows.map((r) => r[1]), points.map((p) => `${p.ms.toFixed(1)} ms`));
  assert.deepEqual(rows.map((r) => r[3].match(/\((\d+) %\)/)[1]), ['2', '4', '8', '14', '25'], 'the attention’s share of the arithmetic');
  assert.equal(await page.locator('#run').textContent(), 'Run', 'the sweep leaves the T = 1024 timing as it was');
  assertNoProblems(page);
  await closePage(page);
});

test('the bonus replay: every way equal to the chapter’s MultiHeadAttention within 1e-5, timed, beside the notebook’s times', async () => {
  const page = await newPage(env.browser);
  await openBench(page, '?runs=1&replay-tokens=32');
  const { VARIANTS, PUBLISHED } = await import('../../web/bench/variants.js');
  const headings = await page.locator('main h2').allTextContents();
  assert.ok(headings.indexOf('Six ways to compute the same attention') < headings.indexOf('For engineers: the details'),
    'the replay’s plain words come before the engineering figures');
  assert.equal(VARIANTS.length, 6, 'the heading counts the ways');
  assert.match(await page.textContent('#replay-quick-size'), /^batch 1 × 32 tokens × 768, 12 heads$/);
  assert.match(await page.textContent('#replay-notebook-size'), /^batch 8 × 32 tokens × 768, 12 heads$/);

  for (const which of ['quick', 'notebook']) {
    await replayOnce(page, which);
    const shown = await replayShown(page);
    assert.equal(shown.state, 'done', `${which}: ${shown.progress}`);
    console.log(`${which}: ${shown.progress}`);
    assert.deepEqual(shown.cards.map((c) => c.id), VARIANTS.map((v) => v.id), 'a card per way, in the data’s order');
    for (const c of shown.cards) {
      assert.ok(c.difference !== null && c.difference <= 1e-5, `${which} ${c.id}: largest difference ${c.difference}`);
      assert.ok(Number.isFinite(c.first) && c.first > 0, `${which} ${c.id}: first call ${c.first} ms`);
      assert.ok(Number.isFinite(c.median) && c.median > 0, `${which} ${c.id}: median ${c.median} ms`);
      const v = VARIANTS.find((x) => x.id === c.id);
      assert.ok(c.text.includes(v.why), `${c.id}: its sentence on why is shown`);
    }
    assert.equal(shown.cards.find((c) => c.id === 'chapter').difference, 0, 'the reference against itself');
    assert.match(shown.progress, /all 6 give the chapter’s numbers/);
    assert.match(shown.sizeLine, new RegExp(`batch ${which === 'quick' ? 1 : 8} × 32 tokens`));
    // the table: every way with its median and the notebook's times beside it, as published
    assert.equal(shown.rows.length, VARIANTS.length);
    const tableText = shown.rows.flat().join(' ');
    for (const row of PUBLISHED.rows) assert.ok(tableText.includes(`${row.ms} ms`), `the notebook’s ${row.ms} ms is shown`);
    for (const [k, c] of shown.cards.entries()) {
      assert.match(shown.rows[k][2], /^\d+(\.\d)? m?s$/, `${c.id}: median in the table`);
    }
  }
  assert.match(await page.locator('#replay-figures-title').locator('..').textContent(), /MacBook Air M3[\s\S]*PyTorch 2\.4/,
    'the notebook’s hardware is named');
  assert.equal(await page.locator('#replay-quick').isDisabled(), false, 'the buttons are enabled again');
  assert.equal(await page.locator('#replay-stop').isHidden(), true, 'Stop shows only while the replay runs');

  // Stop, pressed once the second way starts (seen at the page's next step): the first way's figures stay, the
  // rest are marked stopped, and the page goes on working
  await page.evaluate(() => {
    const progress = document.getElementById('replay-progress');
    const observer = new MutationObserver(() => {
      if (!progress.textContent.startsWith('2 of 6')) return;
      observer.disconnect();
      document.getElementById('replay-stop').click();
    });
    observer.observe(progress, { childList: true, characterData: true, subtree: true });
    document.getElementById('replay-notebook').click();
  });
  await page.waitForFunction(() => document.getElementById('replay-results').dataset.state === 'stopped', undefined, { timeout: 60_000 });
  const stopped = await replayShown(page);
  assert.match(stopped.progress, /^Stopped after 1 of 6 ways/);
  assert.ok(stopped.cards.find((c) => c.id === 'chapter').median > 0, 'the way that finished (the reference, run first) keeps its figures');
  assert.equal(stopped.cards.filter((c) => /Stopped before it finished/.test(c.text)).length, 5);
  assert.equal(await page.locator('#replay-stop').isHidden(), true);
  assert.equal(await page.locator('#replay-quick').isDisabled(), false, 'the buttons are enabled after Stop');
  assertNoProblems(page);
  await closePage(page);
});

test('axe-core finds no serious or critical violations, before and after a run, a sweep and a replay', async (t) => {
  // bypassCSP: axe is injected as an inline script
  const page = await newPage(env.browser, { contextOptions: { bypassCSP: true } });
  await openBench(page, '?runs=1&replay-tokens=32&threads-tokens=32&sweep-runs=1');
  const found = [];
  for (const when of ['loaded', 'after a run']) {
    if (when === 'after a run') {
      await runOnce(page);
      await timeThreads(page);
      await sweepOnce(page);
      await replayOnce(page);
    }
    await page.addScriptTag({ path: `${root}node_modules/axe-core/axe.min.js` });
    const violations = await page.evaluate(async () => {
      const result = await window.axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
    });
    for (const v of violations) {
      const line = `[${when}] ${v.impact} ${v.id}: ${v.help} (${v.nodes.join(', ')})`;
      if (v.impact === 'serious' || v.impact === 'critical') found.push(line);
      else t.diagnostic(`minor: ${line}`);
    }
  }
  assert.deepEqual(found, [], `axe-core reports serious or critical violations:\n${found.join('\n')}`);
  assertNoProblems(page);
  await closePage(page);
});

test('no horizontal scroll at 390 px, after a run, a sweep and a replay and with a weight read', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844 });
  await openBench(page, '?runs=1&replay-tokens=32&threads-tokens=32&sweep-runs=1');
  await runOnce(page);
  await timeThreads(page);
  await sweepOnce(page);
  await replayOnce(page);
  assert.equal(await page.locator('#replay-results').getAttribute('data-state'), 'done');
  assert.equal(await page.locator('#sweep-plot circle.sweep-point').count(), 5);
  await pointAt(page, 600, 100);
  const m = await page.evaluate(() => ({
    width: document.documentElement.scrollWidth,
    sticking: [...document.querySelectorAll('body *')]
      .filter((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().right > 391 && !el.closest('.runs-box'))
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className}`)
      .slice(0, 6),
  }));
  await page.screenshot({ path: `${artifacts}bench-390.png`, fullPage: true });
  assert.ok(m.width <= 390, `scrollWidth ${m.width}`);
  assert.deepEqual(m.sticking, [], 'nothing sticks out to the right');
  assertNoProblems(page);
  await closePage(page);
});

test('a WebAssembly file that fails to load gives a clear message, not "Loading…" forever', async () => {
  const page = await newPage(env.browser);
  await page.route(/\.wasm$/, (route) => route.fulfill({ status: 404, body: 'gone' }));
  await page.goto(`${env.base}bench.html`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'error', undefined, { timeout: 30_000 });
  const shown = await page.evaluate(() => ({
    alert: document.querySelector('#status .fatal[role="alert"]')?.textContent ?? '',
    busy: document.getElementById('status').getAttribute('aria-busy'),
    run: document.getElementById('run').disabled,
  }));
  assert.match(shown.alert, /WebAssembly module could not be loaded/);
  assert.equal(shown.busy, null, 'aria-busy is gone');
  assert.equal(shown.run, true, 'Run stays disabled');
  await closePage(page);
});

test('the teaching page links to bench.html and bench.html links back, on the host’s sub-path', async () => {
  const page = await newPage(env.browser);
  await page.goto(env.base);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 30_000 });
  assert.equal(await page.textContent('#backend'), 'WebAssembly SIMD, 1 thread', 'the teaching page names its build and threads');
  await Promise.all([page.waitForURL(`${env.base}bench.html`), page.click('a[href="./bench.html"]')]);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 30_000 });
  await page.goto(`${env.base}bench.html`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 30_000 });
  await Promise.all([page.waitForURL(env.base), page.click('.bench-footer a[href="./"]')]);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 30_000 });
  assertNoProblems(page);
  await closePage(page);
});
