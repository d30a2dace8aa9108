// How long "My numbers are different…" takes to answer in Chromium (`node scripts/bench/diagnose.mjs [--rounds N] [--only pattern]`,
// after npm run build:site): the built page on the local static host, a printout pasted into a step's box, from
// the click on "Find why" to the answer, for one change of each kind at the book's sizes and at 16 words × 16
// dims. `first` includes starting the worker (its WebAssembly and the chapter's watched run); the median is of
// the rounds after it, in the same page; `× seed 42` is the median over the book's seed 42 case's median in the
// same run (the machine's load moves both alike), and the load average is read before and after. Prints a table,
// then JSON.
import { loadavg, cpus } from 'node:os';
import { setup, newPage, stepSelector, formatHash } from '../../tests/e2e/harness.mjs';
import { loadAttention } from '../../wasm/index.js';
import { diagnoseCases } from './diagnose-cases.mjs';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 3;
// --only <pattern>: the cases whose names match it (with seed 42's, which the others are measured against)
const only = process.argv.includes('--only') ? new RegExp(process.argv[process.argv.indexOf('--only') + 1]) : null;
const CASES = diagnoseCases(await loadAttention()).filter((c) => !only || only.test(c.what) || c.what === 'book: seed 42 (common)');

const loadBefore = loadavg()[0];
const env = await setup();
const rows = [];
try {
  for (const c of CASES) {
    const page = await newPage(env.browser);
    await page.goto(env.base + formatHash(c.step, c.settings));
    const box = page.locator(`${stepSelector(c.step)} [data-diagnose]`);
    await box.waitFor();
    await box.locator('summary').click();
    await box.locator('textarea').fill(c.printed);
    const times = [];
    let answer = '';
    for (let r = 0; r <= rounds; r++) {
      const ms = await page.evaluate(
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
        `${stepSelector(c.step)} [data-diagnose]`,
      );
      times.push(ms);
      answer = (await box.locator('.diagnose-answer :is(.diagnose-verdict, .notice)').first().textContent()).slice(0, 70);
    }
    const [first, ...warm] = times;
    const median = [...warm].sort((a, b) => a - b)[Math.floor(warm.length / 2)];
    rows.push({ case: c.what, firstMs: Math.round(first), medianMs: Math.round(median), answer });
    await page.context().close();
  }
} finally {
  await env.close();
}
const load = { before: loadBefore, after: loadavg()[0], cpus: cpus().length };
const seed42 = rows.find((r) => r.case === 'book: seed 42 (common)').medianMs;
for (const r of rows) r.vsSeed42 = Number((r.medianMs / seed42).toFixed(2));
console.log(`load average ${load.before.toFixed(1)} before, ${load.after.toFixed(1)} after, ${load.cpus} CPUs`);
console.log('case'.padEnd(30), 'first ms'.padStart(9), 'median ms'.padStart(10), '× seed 42'.padStart(10), ' answer');
for (const r of rows) console.log(r.case.padEnd(30), String(r.firstMs).padStart(9), String(r.medianMs).padStart(10), r.vsSeed42.toFixed(2).padStart(10), '', r.answer);
console.log(JSON.stringify({ rounds, load, rows }));
