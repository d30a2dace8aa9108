// How long "My numbers are different…" takes to answer in Chromium (`node scripts/bench/diagnose.mjs [--rounds N]
// [--only pattern] [--against folder]`, after npm run build:site): the built page on the local static host, a
// printout pasted into a step's box, from the click on "Find why" to the answer, for one change of each kind at the
// book's sizes and at 16 words × 16 dims. `first` includes starting the worker (its WebAssembly and the chapter's
// watched run); the median is of the rounds after it, in the same page; `× seed 42` is the median over the book's
// seed 42 case's median in the same run (the machine's load moves both alike), and the load average is read before
// and after. `--against folder`: another build of the site (a copy of dist/site from before a change), searched
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
    for (const base of bases) {
      const page = await newPage(env.browser);
      await page.goto(base + formatHash(c.step, c.settings));
      const box = page.locator(sel);
      await box.waitFor();
      await box.locator('summary').click();
      await box.locator('textarea').fill(c.printed);
      pages.push(page);
    }
    const times = pages.map(() => []);
    const answers = pages.map(() => '');
    for (let r = 0; r <= rounds; r++) {
      for (let k = 0; k < pages.length; k++) {
        times[k].push(await search(pages[k], sel));
        answers[k] = (await pages[k].locator(`${sel} .diagnose-answer :is(.diagnose-verdict, .notice)`).first().textContent()).slice(0, 70);
      }
    }
    const [first, ...warm] = times[0];
    const row = { case: c.what, firstMs: Math.round(first), medianMs: Math.round(median(warm)), answer: answers[0] };
    if (against) Object.assign(row, { againstMedianMs: Math.round(median(times[1].slice(1))), sameAnswer: answers[1] === answers[0] });
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
  r.vsSeed42 = Number((r.medianMs / seed42.medianMs).toFixed(2));
  if (against) r.againstVsSeed42 = Number((r.againstMedianMs / seed42.againstMedianMs).toFixed(2));
}
console.log(`load average ${load.before.toFixed(1)} before, ${load.after.toFixed(1)} after, ${load.cpus} CPUs${against ? `; against ${against}` : ''}`);
const columns = ['case'.padEnd(30), 'first ms'.padStart(9), 'median ms'.padStart(10), '× seed 42'.padStart(10), ...(against ? ['against ms'.padStart(11), '× seed 42'.padStart(10)] : []), ' answer'];
console.log(...columns);
for (const r of rows) {
  const other = against ? [String(r.againstMedianMs).padStart(11), r.againstVsSeed42.toFixed(2).padStart(10)] : [];
  console.log(r.case.padEnd(30), String(r.firstMs).padStart(9), String(r.medianMs).padStart(10), r.vsSeed42.toFixed(2).padStart(10), ...other, '', r.answer + (against && !r.sameAnswer ? ' (the other build answered otherwise)' : ''));
}
console.log(JSON.stringify({ rounds, load, against, rows }));
