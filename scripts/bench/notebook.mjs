// The notebook's timings (part of `npm run bench`; alone: `node scripts/bench/notebook.mjs [--rounds N] [--site F] [--against F] [--page-only]`):
//   first output  loadNotebook() until the first cell's output, in a fresh Node process each round (cold:
//                 Pyodide and the core compiled anew; the files come from the local disk);
//   page          the same in Chromium: the built notebook page (dist/site/notebook.html, cold cache, on the
//                 local static host without COOP/COEP headers, as GitHub Pages serves it: the site's service
//                 worker isolates the page, reloading it once on a cold visit) with one cell that is run at once,
//                 until its output is painted, as the page notes it (Playwright's own wait polls up to 0.5 s
//                 apart: polledMedians) (Python restored from the snapshot the build made,
//                 notebook-python-snapshot.gz); median of rounds; then in the same browser `warm`, a return
//                 visit once the site's service worker has kept the site (its files and that snapshot from its cache), and `again`, the visit after it (Chromium
//                 could keep Pyodide's compiled WebAssembly beside the cached response, but does so only once 1 MB of
//                 it is optimised in one visit, some three runs of the chapter's cells: a trace of these visits shows
//                 no wasm code cache written or read, and each one compiles some 1,250 of Pyodide's functions
//                 lazily); `afterWarmUp`, the notebook opened from the walk-through once it has warmed
//                 it up (a fresh browser context: the walk-through's step, its warm-up done, then the notebook);
//                 and when each loading phase began (`coldPhases`, `warmPhases`, `againPhases`,
//                 `afterWarmUpPhases`, on the last round);
//   chapter       the chapter's notebook (the transcription, when it is on this machine) run cell by cell
//                 after a restart, once Python has loaded; median over rounds in one process.
// Prints one JSON object on stdout.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import { join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadNotebook } from '../../notebook/index.js';
import { readChapterNotebook, transcriptionPath } from '../../tests/notebook/transcription.mjs';

import { startStaticHost } from '../static-host.mjs';
import { notebookHash } from '../../web/notebook/share.js';

const FIRST_CELL = 'import torch\ntorch.manual_seed(123)\nprint(torch.rand(2, 3))';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** loadNotebook -> first output, in this process (call it in a fresh one). */
export async function firstOutputMs() {
  const t0 = performance.now();
  const nb = await loadNotebook();
  const { error } = await nb.run(FIRST_CELL);
  const ms = performance.now() - t0;
  await nb.close();
  if (error) throw new Error(error.traceback);
  return ms;
}

/**
 * Chromium, cold: navigation -> the first cell's output on the page; one fresh context per round. With `against`
 * (another build's folder), each round measures both builds, one after the other (which goes first alternates),
 * each on a host of its own, and the other build's figures come as `against`.
 */
export async function pageFirstOutputMs(rounds = 3, site = fileURLToPath(new URL('../../dist/site/', import.meta.url)), against = null) {
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  if (!existsSync(`${site}/notebook.html`)) return null; // npm run build:site first
  if (against && !existsSync(`${against}/notebook.html`)) throw new Error(`--against: no notebook.html in ${against}`);
  const builds = await Promise.all([site, ...(against ? [against] : [])].map(async (folder) => {
    const server = await startStaticHost({ folder, prefix: '/' }); // no COOP/COEP: a plain static host
    const base = `http://localhost:${server.address().port}/`;
    return { folder, server, base, url: `${base}notebook.html${await notebookHash([FIRST_CELL])}`,
      times: [], warm: [], again: [], afterWarmUp: [], polled: { cold: [], warm: [], again: [], afterWarmUp: [] }, phases: null, warmPhases: null, againPhases: null, afterWarmUpPhases: null };
  }));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  for (const build of builds) await compressOnce(build.folder, build.base);
  // navigation -> the first cell's output painted, and the loader's reports (phase, ms since navigation). The
  // page itself notes when that paint is done (watchFirstOutput): Playwright's wait for the output sees it only
  // at its next poll, which comes up to 0.5 s later once a wait has gone on a while (polledMs, for comparison).
  const firstOutput = async (page, url) => {
    const t0 = Date.now();
    await page.goto(url);
    await page.locator('.nb-cell-tools button').first().click(); // queued until Python is ready
    await page.locator('.nb-stdout').first().waitFor({ timeout: 180_000 }); // a busy machine can take minutes
    const polledMs = Date.now() - t0;
    const painted = await page.waitForFunction(() => window.benchFirstOutputPainted, null, { timeout: 10_000, polling: 50 });
    const ms = Math.round((await painted.jsonValue()) - t0);
    const log = await page.evaluate(() => window.notebookLoad ?? []);
    return { ms, polledMs, phases: log.filter((e, i) => i === 0 || phaseOf(e.message) !== phaseOf(log[i - 1].message)).map((e) => `${e.at} ms ${e.message}`) };
  };
  const newPage = async (context) => {
    const page = await context.newPage();
    await page.addInitScript(watchFirstOutput);
    return page;
  };
  const measure = async (build) => {
    const context = await browser.newContext();
    const page = await newPage(context);
    const cold = await firstOutput(page, build.url);
    build.times.push(cold.ms);
    build.polled.cold.push(cold.polledMs);
    build.phases = cold.phases;
    // Return visits in the same browser: the site's service worker serves the files it kept. Each visit
    // stays a few seconds (as a learner would), which gives the browser the time to keep compiled code.
    await page.waitForFunction(() => document.documentElement.dataset.offline === 'kept', null, { timeout: 120_000 });
    // a snapshot to restore: the build's, or (a browser whose key differs from the build's) its own
    await page.waitForFunction(async () => {
      const urls = ['notebook-python-snapshot.gz', 'notebook-python-snapshot'].map((name) => new URL(name, location.href).href);
      for (const cache of await caches.keys()) {
        for (const url of urls) if (await (await caches.open(cache)).match(url)) return true;
      }
      return false;
    }, null, { timeout: 120_000, polling: 200 });
    for (const visits of [build.warm, build.again]) {
      await page.waitForTimeout(3000);
      await page.goto('about:blank'); // a new load, not a jump within the page
      const visit = await firstOutput(page, build.url);
      visits.push(visit.ms);
      build.polled[visits === build.warm ? 'warm' : 'again'].push(visit.polledMs);
      if (visits === build.warm) build.warmPhases = visit.phases;
      else build.againPhases = visit.phases;
    }
    await context.close();
    // The learner's way in: a step of the walk-through, read while it warms the notebook up, then the notebook.
    const reader = await browser.newContext();
    const walkThrough = await newPage(reader);
    await walkThrough.goto(build.base);
    await walkThrough.waitForFunction(() => document.documentElement.dataset.notebookWarm, null, { timeout: 120_000 });
    const opened = await firstOutput(walkThrough, build.url);
    build.afterWarmUp.push(opened.ms);
    build.polled.afterWarmUp.push(opened.polledMs);
    build.afterWarmUpPhases = opened.phases;
    await reader.close();
  };
  try {
    for (let i = 0; i < rounds; i++) {
      for (const build of i % 2 ? [...builds].reverse() : builds) await measure(build);
    }
  } finally {
    await browser.close();
    for (const { server } of builds) await new Promise((done) => server.close(done));
  }
  const spread = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), each: xs });
  const summary = (b) => ({ ...spread(b.times), warm: spread(b.warm), again: spread(b.again), afterWarmUp: spread(b.afterWarmUp),
    polledMedians: Object.fromEntries(Object.entries(b.polled).map(([kind, xs]) => [kind, median(xs)])),
    coldPhases: b.phases, warmPhases: b.warmPhases, againPhases: b.againPhases, afterWarmUpPhases: b.afterWarmUpPhases });
  return { ...summary(builds[0]), ...(against ? { against: { folder: against, ...summary(builds[1]) } } : {}) };
}

/**
 * In every document of the page (an init script): notes, as a wall-clock time comparable with Node's Date.now(),
 * when the first cell's output is painted: the task after the frame that first holds it with its text.
 */
function watchFirstOutput() {
  const observer = new MutationObserver(() => {
    const output = document.querySelector('.nb-stdout');
    if (!output?.textContent) return;
    observer.disconnect();
    requestAnimationFrame(() => setTimeout(() => { window.benchFirstOutputPainted = performance.timeOrigin + performance.now(); }));
  });
  observer.observe(document, { subtree: true, childList: true, characterData: true });
}

/**
 * Every file of the site asked for once, gzipped, before anything is timed: a static host compresses a file once
 * (or serves it compressed), while the local one compresses it at its first request, on the same two cores as
 * the browser (pyodide.asm.wasm alone takes 0.6 s of CPU at gzip -9 before its first byte is sent), which a cold
 * visit would otherwise count.
 */
async function compressOnce(site, base) {
  const files = readdirSync(site, { recursive: true }).filter((file) => statSync(join(site, file)).isFile());
  for (const file of files) await (await fetch(new URL(file.split(sep).join('/'), base), { headers: { 'Accept-Encoding': 'gzip' } })).arrayBuffer();
}

// A loader report's kind: its words without the file names and numbers ("Downloading …: 3.3 MB in all…").
const phaseOf = (message) => message.replace(/ [\w.-]+: [\d.]+ MB in all…$/, '').replace(/[\d.]+ MB/g, '');

export async function notebookTimes(rounds = 5, site = undefined, { against = null, pageOnly = false } = {}) {
  const self = fileURLToPath(import.meta.url);
  const load = () => Number(os.loadavg()[0].toFixed(1));
  if (pageOnly) {
    const before = load();
    const page = await pageFirstOutputMs(rounds, site, against);
    return { load: { before, after: load() }, pageFirstOutputMs: page };
  }
  const first = [];
  for (let i = 0; i < rounds; i++) {
    const run = spawnSync(process.execPath, [self, '--first'], { encoding: 'utf8' });
    if (run.status !== 0) throw new Error(run.stderr);
    first.push(Number(run.stdout.trim()));
  }
  const result = { firstOutputMs: { median: median(first), min: Math.min(...first), max: Math.max(...first) },
    pageFirstOutputMs: await pageFirstOutputMs(Math.min(rounds, 3), site, against) };
  if (transcriptionPath) {
    const cells = readChapterNotebook();
    const nb = await loadNotebook();
    const times = [];
    for (let i = 0; i < rounds; i++) {
      await nb.restart();
      const t0 = performance.now();
      for (const cell of cells) {
        const { error } = await nb.run(cell.code);
        if (error) throw new Error(`${cell.label}: ${error.traceback}`);
      }
      times.push(performance.now() - t0);
    }
    await nb.close();
    result.chapterMs = { cells: cells.length, median: median(times), min: Math.min(...times), max: Math.max(...times) };
  }
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--first')) {
    console.log((await firstOutputMs()).toFixed(1));
  } else {
    // --site <folder>: another build of the site; --against <folder>: a second build measured beside it, the two
    // alternating round by round (to compare builds on one machine in one sitting); --page-only: the browser's
    // visits alone, with the load average before and after
    const option = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
    const rounds = Number(option('--rounds') ?? 5);
    console.log(JSON.stringify(await notebookTimes(rounds, option('--site'), { against: option('--against') ?? null, pageOnly: process.argv.includes('--page-only') })));
  }
}
