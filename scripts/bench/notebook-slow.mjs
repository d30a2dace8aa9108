// A first visit to the notebook over a slow network (not part of `npm run bench`; alone: `node
// scripts/bench/notebook-slow.mjs [--visits N] [--mbit R] [--latency MS] [--site F]`, after npm run build:site).
// dist/site is served by the local static host (no COOP/COEP, as GitHub Pages) behind a throttle: each response
// starts `latency` ms after its request and all responses share `mbit` Mbit/s, chunk by chunk. Each visit is a
// fresh browser context opening notebook.html (the service worker registers, the page reloads isolated, Python
// loads); it reports when Python was Ready (or that it was not within the limit), whether it was restored
// from the build's snapshot, and the longest time the loading line stood still (its seconds counter counts as
// moving: it says what is waited for), and what a page that could not start said. Prints one JSON object.
import http from 'node:http';
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { startStaticHost } from '../static-host.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const VISITS = Number(option('visits', 4));
const RATE = (Number(option('mbit', 10)) * 1e6) / 8; // bytes per second, shared
const LATENCY = Number(option('latency', 100));
const LIMIT_MS = 60_000;
const site = option('site', fileURLToPath(new URL('../../dist/site/', import.meta.url)));
if (!existsSync(`${site}/notebook.html`)) throw new Error(`no notebook.html in ${site}: npm run build:site first`);

/** An HTTP proxy in front of `port` that delays each response and shares one rate among all of them. */
function throttle(port) {
  let free = Date.now(); // when the shared link is next free
  return http.createServer((request, reply) => {
    const upstream = http.request({ port, path: request.url, method: request.method, headers: request.headers, agent: false }, (response) => {
      setTimeout(() => {
        reply.writeHead(response.statusCode, response.headers);
        response.on('data', (chunk) => {
          response.pause();
          const now = Date.now();
          free = Math.max(free, now) + (chunk.length / RATE) * 1000;
          setTimeout(() => { reply.write(chunk); response.resume(); }, free - now);
        });
        response.on('end', () => setTimeout(() => reply.end(), Math.max(0, free - Date.now())));
      }, LATENCY);
    });
    upstream.on('error', () => reply.destroy());
    request.pipe(upstream);
  }).listen(0);
}

/** One cold visit: { readyMs (null if not Ready within the limit), restored, stillestMs, lastLine }. */
async function visit(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const t0 = Date.now();
  page.goto(url).catch(() => {}); // the isolating reload interrupts the first navigation
  let line = '', since = t0, stillest = 0, state = '';
  while (Date.now() - t0 < LIMIT_MS) {
    const now = await page.evaluate(() => [document.getElementById('progress-text')?.textContent ?? '',
      document.documentElement.dataset.ready ?? '', document.getElementById('status')?.textContent ?? '']).catch(() => null);
    if (now) {
      const [text, ready] = now;
      state = ready;
      if (text !== line) {
        stillest = Math.max(stillest, Date.now() - since);
        line = text;
        since = Date.now();
      }
      if (ready === 'python' || ready === 'error' || ready === 'refused') break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const readyMs = state === 'python' ? Date.now() - t0 : null;
  const status = await page.evaluate(() => document.getElementById('status')?.textContent ?? '').catch(() => '');
  const fatal = await page.evaluate(() => document.querySelector('.fatal')?.textContent ?? '').catch(() => '');
  stillest = Math.max(stillest, Date.now() - since);
  await context.close();
  return { readyMs, state, restored: /restored/.test(status), stillestMs: stillest, lastLine: line, ...(fatal ? { fatal } : {}) };
}

const { chromium } = await import('playwright-core');
const host = await startStaticHost({ folder: site, prefix: '/' });
const proxy = throttle(host.address().port);
const url = `http://localhost:${proxy.address().port}/notebook.html`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const before = loadavg()[0];
const visits = [];
try {
  for (let i = 0; i < VISITS; i++) {
    visits.push(await visit(browser, url));
    console.error(`visit ${i + 1}/${VISITS}: ${JSON.stringify(visits.at(-1))}`);
  }
} finally {
  await browser.close();
  proxy.close();
  host.close();
}
const ready = visits.map((v) => v.readyMs).filter((ms) => ms !== null).sort((a, b) => a - b);
console.log(JSON.stringify({
  network: `${LATENCY} ms per response, ${RATE * 8 / 1e6} Mbit/s shared`, load: [before, loadavg()[0]].map((x) => x.toFixed(1)),
  readyMedianMs: ready.length ? ready[Math.floor(ready.length / 2)] : null,
  notReadyWithin60s: visits.length - ready.length, visits,
}, null, 1));
