// How long "My numbers are different…" takes to answer in Chromium (`node scripts/bench/diagnose.mjs [--rounds N]
// [--only pattern] [--against folder] [--pause s] [--firsts N]`, after npm run build:site): the built page on the local static
// host, a printout pasted into a step's box, from the click on "Find why" to the answer, for one change of each
// kind at the book's sizes and at 16 words × 16 dims. `first` is what a learner meets: a fresh page, the box
// opened, a pause to paste (2.5 s unless --pause), then the page's first search, with whatever of starting the
// workers (their WebAssembly, the chapter's watched run, the code's first runs) is left by then (`warm-up` says how
// far the page's warm-up had got at the click; with --firsts N, the median of N fresh pages); the median is of the rounds after it, in the same page; `× seed 42`
// is a median over the book's seed 42 case's median in the same run (the machine's load moves both alike; the first
// search's multiple is of seed 42's first), and the load average is read before and after. `--against folder`: another build of the site (a copy of dist/site from before a change), searched
// in a page of its own beside each case's, the two alternating round by round, so that both see the same load.
// Prints a table, then JSON.
import { loadavg, cpus } from 'node:os';
import { setup, newPage, stepSelector, formatHash } from '../../tests/e2e/harness.mjs';
import { startStaticHost } from '../static-host.mjs';
import { loadAttention } from '../../wasm/index.js';
import { diagnoseCases } from './diagnose-cases.mjs';

const option = (name) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : null);
const rounds = Number(option('--rounds')) || 3;
// --only <pattern>: the cases whose names match it (with seed 42's, which the others are measured against)
const only = option('--only') ? new RegExp(option('--only')) : null;
const against = option('--against');
const pauseMs = 1000 * (Number(option('--pause')) || 2.5);
const firsts = Number(option('--firsts')) || 1;
const CASES = diagnoseCases(await loadAttention()).filter((c) => !only || only.test(c.what) || c.what === 'book: seed 42 (common)');

// one search from the click to the answer, in ms
const search = (page, sel) =>
  page.evaluate(
    (sel) =>
      new Promise((done) => {
        const box = document.querySelector(sel);
        const t0 = performance.now();
        const seen = new MutationObserver(() => {
          if (box.querySelector('.diagnose-answer :is(.diagnose-verdict, .notice)')) {
            seen.disconnect();
            done(performance.now() - t0);
          }
        });
        box.querySelector('.diagnose-answer').replaceChildren();
        seen.observe(box, { childList: true, subtree: true });
        box.querySelector('.diagnose-run').click();
      }),
    sel,
  );

const loadBefore = loadavg()[0];
const env = await setup();
// (the other build under the same sub-path and headers as the harness's host)
const otherHost = against && (await startStaticHost({ folder: against, prefix: new URL(env.base).pathname, headers: { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' } }));
const bases = [env.base, ...(otherHost ? [`http://localhost:${otherHost.address().port}${new URL(env.base).pathname}`] : [])];
const rows = [];
const median = (times) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];
try {
  for (const c of CASES) {
    const sel = `${stepSelector(c.step)} [data-diagnose]`;
    const pages = [];
    const times = bases.map(() => []);
    const firstTimes = bases.map(() => []);
    const answers = bases.map(() => '');
    const warmAtClick = bases.map(() => []);
    const warmUpTimes = bases.map(() => []);
    // the first search in a fresh page, one build after the other (which goes first alternating page by page):
    // the box opened, the pause to paste, the paste; the last page of each build stays for the later rounds
    for (let f = 0; f < firsts; f++) {
      const order = (CASES.indexOf(c) + f) % 2 ? [...bases.keys()].reverse() : [...bases.keys()];
      for (const k of order) {
        await pages[k]?.context().close();
        const page = await newPage(env.browser);
        await page.goto(bases[k] + formatHash(c.step, c.settings));
        const box = page.locator(sel);
        await box.waitFor();
        // (when the page's warm-up ends, from the box's opening: it may end after the first search has started)
        await page.evaluate(() => {
          const html = document.documentElement;
          const opened = performance.now();
          new MutationObserver((_, seen) => {
            if (html.dataset.diagnoseWorkers !== 'warm') return;
            window.warmUpMs = performance.now() - opened;
            seen.disconnect();
          }).observe(html, { attributes: true, attributeFilter: ['data-diagnose-workers'] });
        });
        await box.locator('summary').click();
        await page.waitForTimeout(pauseMs);
        await box.locator('textarea').fill(c.printed);
        warmAtClick[k].push(await page.evaluate(() => document.documentElement.dataset.diagnoseWorkers ?? 'none'));
        firstTimes[k].push(await search(page, sel));
        answers[k] = (await page.locator(`${sel} .diagnose-answer :is(.diagnose-verdict, .notice)`).first().textContent()).slice(0, 70);
        warmUpTimes[k].push(await page.evaluate(() => window.warmUpMs ?? null));
        pages[k] = page;
      }
    }
    for (let r = 1; r <= rounds; r++) {
      for (let k = 0; k < pages.length; k++) {
        times[k].push(await search(pages[k], sel));
        answers[k] = (await pages[k].locator(`${sel} .diagnose-answer :is(.diagnose-verdict, .notice)`).first().textContent()).slice(0, 70);
      }
    }
    // (how far the warm-up had got at each first click: w warm, … still warming, - not started)
    const states = (k) => warmAtClick[k].map((s) => ({ warm: 'w', warming: '…' })[s] ?? '-').join('');
    const warmUps = warmUpTimes[0].filter((t) => t !== null);
    const row = { case: c.what, firstMs: Math.round(median(firstTimes[0])), firsts: firstTimes[0].map(Math.round), medianMs: Math.round(median(times[0])), warmUp: states(0), warmUpMs: warmUps.length ? Math.round(median(warmUps)) : null, answer: answers[0] };
    if (against) Object.assign(row, { againstFirstMs: Math.round(median(firstTimes[1])), againstFirsts: firstTimes[1].map(Math.round), againstMedianMs: Math.round(median(times[1])), againstWarmUp: states(1), sameAnswer: answers[1] === answers[0] });
    rows.push(row);
    for (const page of pages) await page.context().close();
  }
} finally {
  await env.close();
  otherHost?.close();
}
const load = { before: loadBefore, after: loadavg()[0], cpus: cpus().length };
const seed42 = rows.find((r) => r.case === 'book: seed 42 (common)');
for (const r of rows) {
  r.firstVsSeed42 = Number((r.firstMs / seed42.firstMs).toFixed(2));
  r.vsSeed42 = Number((r.medianMs / seed42.medianMs).toFixed(2));
  if (against) {
    r.againstFirstVsSeed42 = Number((r.againstFirstMs / seed42.againstFirstMs).toFixed(2));
    r.againstVsSeed42 = Number((r.againstMedianMs / seed42.againstMedianMs).toFixed(2));
  }
}
console.log(`load average ${load.before.toFixed(1)} before, ${load.after.toFixed(1)} after, ${load.cpus} CPUs; first: after ${pauseMs / 1000} s with the box open${against ? `; against ${against}` : ''}`);
const cell = (ms, ratio) => `${ms} (${ratio.toFixed(2)}×)`.padStart(14);
const columns = ['case'.padEnd(30), 'first ms'.padStart(14), 'warm-up'.padStart(8), 'its ms'.padStart(8), 'median ms'.padStart(14), ...(against ? ['against first'.padStart(14), 'median'.padStart(14)] : []), ' answer'];
console.log(...columns);
for (const r of rows) {
  const other = against ? [cell(r.againstFirstMs, r.againstFirstVsSeed42), cell(r.againstMedianMs, r.againstVsSeed42)] : [];
  console.log(r.case.padEnd(30), cell(r.firstMs, r.firstVsSeed42), r.warmUp.padStart(8), String(r.warmUpMs ?? '-').padStart(8), cell(r.medianMs, r.vsSeed42), ...other, '', r.answer + (against && !r.sameAnswer ? ' (the other build answered otherwise)' : ''));
}
console.log(JSON.stringify({ rounds, pauseMs, load, against, rows }));
