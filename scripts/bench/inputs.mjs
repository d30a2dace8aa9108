// How fast the page follows its settings (part of `npm run bench`; alone: `node scripts/bench/inputs.mjs
// [--rounds N] [--sites folderA,folderB | --against folder]`, after npm run build:site; --sites compares builds,
// e.g. one made with `vite build --outDir`, their rounds alternating; --against folder is --sites dist/site,folder:
// this build against another, e.g. the build before a change). dist/site on localhost in Chromium at 1280 x 800, at the book's
// size and at 16 words x 16 dims x 16 heads (d_out 64), on the multi-head weights step (the most cells):
//   cold      a fresh context opening a link: navigation to the step's numbers on screen ('page:first-step')
//   keystroke one character typed into a word: the input event to the frame after the step shows it
//   seed      the seed field set to a new value: the same
//   settled   the same edits to the frame after the figures left off screen are drawn too (the page draws
//             an edit's off-screen figures after the rest, marked aria-busy until then)
// with where the time went (the page's measures: computing the chapter, drawing the step, the contents and
// settings panels, outlining what changed), and the main thread's CPU time of one more keystroke and seed edit a
// round, from Chromium's trace (its tasks from the edit to the frame after it settled; less swayed than wall time by other
// work on the machine), split into the page's script and the browser's style, layout and paint (cpuSplitMs).
// Prints one JSON object on stdout.
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { startStaticHost } from '../static-host.mjs';
import { bookSettings, formatHash } from '../../web/state.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const STEP = 'mha-weights';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x) => Math.round(x);

export const SIZES = {
  book: bookSettings(),
  '16x16x16': { ...bookSettings(), tokens: Array.from({ length: 16 }, (_, i) => `word${i + 1}`), inputs: 'rand', d_out: 64, heads: 16,
    embeddings: Array.from({ length: 16 }, () => Array(16).fill(0)) }, // d_in: the embeddings' width
};

/**
 * In the page: one edit (a character appended, or a number incremented), then wait for the hash to follow it and
 * for the next frame (ms), then for the step to hold no figure waiting to be drawn and the frame after that
 * (settledMs); with the page's measures since the edit.
 */
function timeEdit([selector, edit]) {
  return new Promise((done) => {
    const input = document.querySelector(selector);
    const hash = location.hash;
    performance.clearMeasures();
    const start = performance.now();
    input.value = edit === 'append' ? `${input.value}x` : String(Number(input.value) + 1);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const afterFrame = (then) => requestAnimationFrame(() => setTimeout(then)); // the frame that shows it, then the task after its paint
    let ms;
    const settle = () => {
      if (document.querySelector('#step [aria-busy="true"]')) return setTimeout(settle, 1);
      afterFrame(() => {
        const parts = {};
        for (const m of performance.getEntriesByType('measure')) if (m.name.startsWith('page:')) parts[m.name.slice(5)] = (parts[m.name.slice(5)] ?? 0) + m.duration;
        done({ ms, settledMs: performance.now() - start, parts });
      });
    };
    const wait = () => {
      if (location.hash === hash) return setTimeout(wait, 1);
      afterFrame(() => {
        ms = performance.now() - start;
        performance.mark('bench:shown'); // for editCpu: the CPU time until the step is shown
        settle();
      });
    };
    wait();
  });
}

// What the trace's events of the main thread are spent on: the page's script, the browser's style, layout and
// paint (pre-paint, paint, layerize, commit); an event of another name counts as what it runs in.
const KINDS = {
  FunctionCall: 'script', EvaluateScript: 'script', TimerFire: 'script', FireAnimationFrame: 'script', RunMicrotasks: 'script', EventDispatch: 'script',
  UpdateLayoutTree: 'style', Layout: 'layout',
  PrePaint: 'paint', Paint: 'paint', PaintImage: 'paint', Layerize: 'paint', Commit: 'paint', UpdateLayer: 'paint',
};

/**
 * The main thread's CPU time (ms) of one edit, timeEdit(args), from Chromium's trace of the page's renderer, and
 * how it splits: { cpu, script, style, layout, paint, other } (each event's own time, without the events in it), the
 * part until the step was shown (shown: the figures off screen not yet drawn) and the edit's wall time settled (wall).
 */
async function editCpu(browser, page, args) {
  await browser.startTracing(page, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'] });
  const { settledMs } = await page.evaluate(timeEdit, args);
  const events = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' &&
    events.some((x) => x.pid === e.pid && x.tid === e.tid && x.name === 'FunctionCall'));
  const mine = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur != null && e.tdur != null)
    .sort((a, b) => a.ts - b.ts || b.dur - a.dur);
  const shown = events.find((e) => e.name === 'bench:shown')?.ts ?? Infinity;
  const split = { cpu: 0, shown: 0, script: 0, style: 0, layout: 0, paint: 0, other: 0 };
  const open = []; // the events the next one may lie in, outermost first
  for (const e of mine) {
    while (open.length && open.at(-1).ts + open.at(-1).dur <= e.ts) open.pop();
    const parent = open.at(-1);
    if (parent) parent.own -= e.tdur;
    else if (e.name === 'RunTask') {
      split.cpu += e.tdur / 1000;
      if (e.ts < shown) split.shown += e.tdur / 1000;
    }
    e.own = e.tdur;
    e.kind = KINDS[e.name] ?? parent?.kind ?? 'other';
    open.push(e);
  }
  for (const e of mine) split[e.kind] += Math.max(0, e.own) / 1000;
  split.wall = settledMs; // the traced edit's own wall time, beside its CPU time (traced, it runs slower)
  return split;
}

const measuresOf = (page) => page.evaluate(() => Object.fromEntries(performance.getEntriesByType('measure').filter((m) => m.name.startsWith('page:')).map((m) => [m.name.slice(5), m.duration])));

/** One round at one size: a cold link, then 3 keystrokes and 3 seed edits, added to `into`. */
async function sizeRound(browser, base, settings, into) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => localStorage.setItem('attention-lab:predictions-off', 'true'));
  const page = await context.newPage();
  await page.goto(base + formatHash(STEP, settings));
  await page.waitForFunction(() => performance.getEntriesByName('page:first-step').length > 0, undefined, { timeout: 60_000 });
  into.cold.push(await page.evaluate(() => performance.getEntriesByName('page:first-step')[0].startTime));
  into.parts.cold = await measuresOf(page);
  await page.waitForFunction(() => document.querySelector('.katex'), undefined, { timeout: 30_000 }).catch(() => {});
  for (let k = 0; k < 3; k++) {
    const typed = await page.evaluate(timeEdit, ['#token-2', 'append']);
    into.keystroke.push(typed.ms);
    into.keystrokeSettled.push(typed.settledMs);
    into.parts.keystroke = typed.parts;
  }
  into.keystrokeCpu.push(await editCpu(browser, page, ['#token-2', 'append']));
  const drawn = await page.evaluate((s) => s.inputs !== 'typed', settings);
  const seedField = drawn ? '#inputSeed' : '#seed';
  for (let k = 0; k < 3; k++) {
    const edited = await page.evaluate(timeEdit, [seedField, 'increment']);
    into.seed.push(edited.ms);
    into.seedSettled.push(edited.settledMs);
    into.parts.seed = edited.parts;
  }
  into.seedCpu.push(await editCpu(browser, page, [seedField, 'increment']));
  await context.close();
}

function summary({ cold, keystroke, seed, keystrokeSettled, seedSettled, keystrokeCpu, seedCpu, parts }) {
  const rounded = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)]));
  return {
    coldMs: round(median(cold)),
    keystrokeMs: round(median(keystroke)),
    seedMs: round(median(seed)),
    keystrokeSettledMs: round(median(keystrokeSettled)),
    seedSettledMs: round(median(seedSettled)),
    keystrokeCpuMs: round(median(keystrokeCpu.map((t) => t.cpu))),
    seedCpuMs: round(median(seedCpu.map((t) => t.cpu))),
    // of which until the step was shown (before the figures off screen were drawn)
    shownCpuMs: { keystroke: round(median(keystrokeCpu.map((t) => t.shown))), seed: round(median(seedCpu.map((t) => t.shown))) },
    // the wall time of those traced edits, settled
    tracedWallMs: { keystroke: round(median(keystrokeCpu.map((t) => t.wall))), seed: round(median(seedCpu.map((t) => t.wall))) },
    // each part's median apart (they need not add up to the median of the whole)
    cpuSplitMs: Object.fromEntries(Object.entries({ keystroke: keystrokeCpu, seed: seedCpu }).map(([edit, splits]) =>
      [edit, Object.fromEntries(['script', 'style', 'layout', 'paint', 'other'].map((kind) => [kind, round(median(splits.map((t) => t[kind])))]))])),
    runs: { cold: cold.length, keystroke: keystroke.length, seed: seed.length },
    partsMs: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, rounded(v)])),
  };
}

/**
 * The times of the built site (dist/site), or of several builds side by side (`sites`: folders): their rounds
 * alternate, so that a comparison shares the machine's load. Returns { conditions, [size]: times } for one
 * site, { conditions, [folder]: { [size]: times } } for several.
 */
export async function inputTimes(rounds = 3, sites = [`${root}dist/site/`]) {
  if (!sites.every((site) => existsSync(`${site}/index.html`))) return null;
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  const loadBefore = loadavg()[0];
  const servers = await Promise.all(sites.map((folder) => startStaticHost({ folder })));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const bases = servers.map((server) => `http://localhost:${server.address().port}/course/attention/`);
  const times = sites.map(() => Object.fromEntries(Object.keys(SIZES).map((name) => [name, { cold: [], keystroke: [], seed: [], keystrokeSettled: [], seedSettled: [], keystrokeCpu: [], seedCpu: [], parts: {} }])));
  try {
    for (let i = 0; i < rounds; i++) {
      for (const [name, settings] of Object.entries(SIZES)) {
        for (const [s, base] of bases.entries()) await sizeRound(browser, base, settings, times[s][name]);
      }
    }
  } finally {
    await browser.close();
    await Promise.all(servers.map((server) => new Promise((done) => server.close(done))));
  }
  const conditions = `Chromium 1280 x 800 on localhost, step ${STEP}, median of ${rounds} cold loads and ${rounds * 3} edits (CPU: of ${rounds})` +
    `${sites.length > 1 ? ', the builds’ rounds alternating' : ', dist/site'}, load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after, ${cpus().length} CPUs`;
  const sized = (t) => Object.fromEntries(Object.entries(t).map(([name, into]) => [name, summary(into)]));
  if (sites.length === 1) return { conditions, ...sized(times[0]) };
  return { conditions, ...Object.fromEntries(sites.map((site, s) => [site, sized(times[s])])) };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
  const sites = option('--sites')?.split(',') ?? (option('--against') ? [`${root}dist/site/`, option('--against')] : undefined);
  console.log(JSON.stringify(await inputTimes(Number(option('--rounds') ?? 3), sites), null, 1));
}
