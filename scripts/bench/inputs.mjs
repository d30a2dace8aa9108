// How fast the page follows its settings (part of `npm run bench`; alone: `node scripts/bench/inputs.mjs
// [--rounds N]`, after npm run build:site). dist/site on localhost in Chromium at 1280 x 800, at the book's
// size and at 16 words x 16 dims x 16 heads (d_out 64), on the multi-head weights step (the most cells):
//   cold      a fresh context opening a link: navigation to the step's numbers on screen ('page:first-step')
//   keystroke one character typed into a word: the input event to the frame after the step shows it
//   seed      the seed field set to a new value: the same
// with where the time went (the page's measures: computing the chapter, drawing the step, the contents and
// settings panels, outlining what changed). Prints one JSON object on stdout.
import { existsSync } from 'node:fs';
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

/** In the page: one edit (a character appended, or a number incremented), then wait for the hash to follow it and for the next frame; ms and the measures since. */
function timeEdit([selector, edit]) {
  return new Promise((done) => {
    const input = document.querySelector(selector);
    const hash = location.hash;
    performance.clearMeasures();
    const start = performance.now();
    input.value = edit === 'append' ? `${input.value}x` : String(Number(input.value) + 1);
    input.dispatchEvent(new Event('input', { bubbles: true }));
    const wait = () => {
      if (location.hash === hash) return setTimeout(wait, 1);
      // the frame that shows it, then the task after its paint
      requestAnimationFrame(() => setTimeout(() => {
        const parts = {};
        for (const m of performance.getEntriesByType('measure')) if (m.name.startsWith('page:')) parts[m.name.slice(5)] = (parts[m.name.slice(5)] ?? 0) + m.duration;
        done({ ms: performance.now() - start, parts });
      }));
    };
    wait();
  });
}

const measuresOf = (page) => page.evaluate(() => Object.fromEntries(performance.getEntriesByType('measure').filter((m) => m.name.startsWith('page:')).map((m) => [m.name.slice(5), m.duration])));

async function sizeTimes(browser, base, settings, rounds) {
  const cold = [];
  const keystroke = [];
  const seed = [];
  let parts = {};
  for (let i = 0; i < rounds; i++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    await context.addInitScript(() => localStorage.setItem('attention-lab:predictions-off', 'true'));
    const page = await context.newPage();
    await page.goto(base + formatHash(STEP, settings));
    await page.waitForFunction(() => performance.getEntriesByName('page:first-step').length > 0, undefined, { timeout: 60_000 });
    cold.push(await page.evaluate(() => performance.getEntriesByName('page:first-step')[0].startTime));
    parts.cold = await measuresOf(page);
    await page.waitForFunction(() => document.querySelector('.katex'), undefined, { timeout: 30_000 }).catch(() => {});
    for (let k = 0; k < 3; k++) {
      const typed = await page.evaluate(timeEdit, ['#token-2', 'append']);
      keystroke.push(typed.ms);
      parts.keystroke = typed.parts;
    }
    const drawn = await page.evaluate((s) => s.inputs !== 'typed', settings);
    const seedField = drawn ? '#inputSeed' : '#seed';
    for (let k = 0; k < 3; k++) {
      const edited = await page.evaluate(timeEdit, [seedField, 'increment']);
      seed.push(edited.ms);
      parts.seed = edited.parts;
    }
    await context.close();
  }
  const rounded = (o) => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, round(v)]));
  return {
    coldMs: round(median(cold)),
    keystrokeMs: round(median(keystroke)),
    seedMs: round(median(seed)),
    runs: { cold: cold.length, keystroke: keystroke.length, seed: seed.length },
    partsMs: Object.fromEntries(Object.entries(parts).map(([k, v]) => [k, rounded(v)])),
  };
}

export async function inputTimes(rounds = 3) {
  const site = `${root}dist/site/`;
  if (!existsSync(`${site}index.html`)) return null;
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  const server = await startStaticHost({ folder: site });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
  const base = `http://localhost:${server.address().port}/course/attention/`;
  const out = { conditions: `dist/site on localhost, Chromium 1280 x 800, step ${STEP}, median of ${rounds} cold loads and ${rounds * 3} edits` };
  try {
    for (const [name, settings] of Object.entries(SIZES)) out[name] = await sizeTimes(browser, base, settings, rounds);
  } finally {
    await browser.close();
    await new Promise((done) => server.close(done));
  }
  return out;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--rounds');
  console.log(JSON.stringify(await inputTimes(i > 0 ? Number(process.argv[i + 1]) : 3), null, 1));
}
