// A first visit to the notebook over a slow network (not part of `npm run bench`; alone: `node
// scripts/bench/notebook-slow.mjs [--visits N] [--mbit R] [--latency MS] [--site F]`, after npm run build:site).
// dist/site is served by the local static host (no COOP/COEP, as GitHub Pages) behind a throttle: what the host
// sends arrives `latency` ms later, and all connections share `mbit` Mbit/s, 16 KB at a time. Each visit is a
// fresh browser context opening notebook.html (the service worker registers, the page reloads isolated, Python
// loads); it reports when Python was Ready (or that it was not within the limit), whether it was restored
// from the build's snapshot, and the longest time the loading line stood still (its seconds counter counts as
// moving: it says what is waited for), and what a page that could not start said. Prints one JSON object. With
// --trace, each visit also prints each request the throttle passed on (when it came, when the first and last
// bytes of its answer went out, and how many) and each line.
import net from 'node:net';
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
const TRACE = args.includes('--trace'); // each visit also prints its requests and lines
const site = option('site', fileURLToPath(new URL('../../dist/site/', import.meta.url)));
if (!existsSync(`${site}/notebook.html`)) throw new Error(`no notebook.html in ${site}: npm run build:site first`);

// What the throttle passed on for each request of the current visit (printed with --trace):
// when it came, when the first and last bytes of what followed it on its connection went out, and how many.
let requests = [];

/**
 * A TCP proxy in front of `port` that delays what the host sends by `LATENCY` and shares one rate among all
 * connections, 16 KB at a time, as a slow link would. It passes the bytes on untouched: an HTTP proxy that re-sent
 * each response (this benchmark's before) made page loads fail that never fail over the kernel's rate limit.
 */
function throttle(port) {
  let free = Date.now(); // when the shared link is next free
  const PIECE = 16 * 1024;
  return net.createServer((client) => {
    const host = net.connect(port, '127.0.0.1');
    let current = null; // the request whose answer is passing now
    client.on('data', (bytes) => {
      const line = /^(GET|HEAD|POST) (\S+)/.exec(bytes.toString('latin1', 0, 512));
      if (line) requests.push(current = { url: line[2], from: Date.now(), firstAt: null, lastAt: null, bytes: 0 });
      host.write(bytes);
    });
    const queue = []; // [arrived, bytes]
    let queued = 0, sending = false;
    const send = async () => {
      if (sending) return;
      sending = true;
      while (queue.length && !client.destroyed) {
        const [arrived, bytes] = queue.shift();
        queued -= bytes.length;
        if (queued < 4 * PIECE) host.resume();
        const now = Date.now();
        const at = Math.max(arrived + LATENCY, free, now);
        free = at + (bytes.length / RATE) * 1000;
        if (at > now) await new Promise((resolve) => setTimeout(resolve, at - now));
        if (current) {
          current.firstAt ??= Date.now();
          current.lastAt = Date.now();
          current.bytes += bytes.length;
        }
        if (!client.write(bytes)) await new Promise((resolve) => client.once('drain', resolve));
      }
      sending = false;
      if (hostEnded && !queue.length) client.end();
    };
    let hostEnded = false;
    host.on('data', (bytes) => {
      for (let at = 0; at < bytes.length; at += PIECE) queue.push([Date.now(), bytes.subarray(at, at + PIECE)]);
      queued += bytes.length;
      if (queued > 16 * PIECE) host.pause();
      send();
    });
    host.on('end', () => { hostEnded = true; if (!sending && !queue.length) client.end(); });
    const close = () => { client.destroy(); host.destroy(); };
    host.on('error', close);
    client.on('error', close);
    client.on('close', () => host.destroy());
  }).listen(0);
}

/** One cold visit: { readyMs (null if not Ready within the limit), restored, stillestMs, lastLine }. */
async function visit(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const t0 = Date.now();
  requests = [];
  page.goto(url).catch(() => {}); // the isolating reload interrupts the first navigation
  let line = '', since = t0, stillest = 0, state = '';
  const lines = [];
  while (Date.now() - t0 < LIMIT_MS) {
    const now = await page.evaluate(() => [document.getElementById('progress-text')?.textContent ?? '',
      document.documentElement.dataset.ready ?? '', document.getElementById('status')?.textContent ?? '']).catch(() => null);
    if (now) {
      const [text, ready] = now;
      state = ready;
      if (text !== line) {
        lines.push([Date.now() - t0, text]);
        stillest = Math.max(stillest, Date.now() - since);
        line = text;
        since = Date.now();
      }
      if (ready === 'python' || ready === 'error' || ready === 'refused' || ready === 'failed') break;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const readyMs = state === 'python' ? Date.now() - t0 : null;
  const status = await page.evaluate(() => document.getElementById('status')?.textContent ?? '').catch(() => '');
  const fatal = await page.evaluate(() => document.querySelector('.fatal')?.textContent ?? '').catch(() => '');
  stillest = Math.max(stillest, Date.now() - since);
  const at = (ms) => (ms === null ? null : ms - t0);
  const trace = TRACE ? {
    lines,
    requests: requests.map((r) => ({ ...r, from: at(r.from), firstAt: at(r.firstAt), lastAt: at(r.lastAt) })),
  } : null;
  await context.close();
  return { readyMs, state, restored: /restored/.test(status), stillestMs: stillest, lastLine: line, ...(fatal ? { fatal } : {}), ...(trace ? { trace } : {}) };
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
  network: `${LATENCY} ms one way, ${RATE * 8 / 1e6} Mbit/s shared`, load: [before, loadavg()[0]].map((x) => x.toFixed(1)),
  readyMedianMs: ready.length ? ready[Math.floor(ready.length / 2)] : null,
  notReadyWithin60s: visits.length - ready.length, visits,
}, null, 1));
