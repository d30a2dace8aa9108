// The built site's load time on a classroom network (part of `npm run bench`; alone:
// `node scripts/bench/site.mjs [--rounds N]`, after npm run build:site). dist/site on a plain static host that
// gzips (scripts/static-host.mjs, under a sub-path), opened in Chromium with its network emulation at 100 ms
// latency and 10 Mbit/s both ways, cache disabled, a fresh context each load: the time from navigation to the
// first numbers on screen (the page's performance mark 'page:first-step') and the requests made before them.
// The same for the single file from file:// (no network). Prints one JSON object on stdout.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { startStaticHost } from '../static-host.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const NETWORK = { latency: 100, downloadThroughput: (10e6 / 8), uploadThroughput: (10e6 / 8), offline: false };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stats = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs.length });

/** One cold load of `url`: ms to the first numbers, requests before them, bytes transferred by then. */
async function load(browser, url, { throttle }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', NETWORK);
  }
  await page.goto(url);
  await page.waitForFunction(() => performance.getEntriesByName('page:first-step').length > 0, undefined, { timeout: 60_000 });
  const seen = await page.evaluate(() => {
    const at = performance.getEntriesByName('page:first-step')[0].startTime;
    const before = performance.getEntriesByType('resource').filter((r) => r.startTime <= at);
    const nav = performance.getEntriesByType('navigation')[0];
    return { ms: at, requests: 1 + before.length, bytes: (nav?.transferSize ?? 0) + before.reduce((s, r) => s + r.transferSize, 0) };
  });
  await context.close();
  return seen;
}

export async function siteTimes(rounds = 3) {
  const site = `${root}dist/site/`;
  if (!existsSync(`${site}index.html`)) return null;
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  const server = await startStaticHost({ folder: site });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu',
    '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  const url = `http://localhost:${server.address().port}/course/attention/`;
  const classroom = [];
  const local = [];
  const single = [];
  try {
    for (let i = 0; i < rounds; i++) {
      classroom.push(await load(browser, url, { throttle: true }));
      local.push(await load(browser, url, { throttle: false }));
      if (existsSync(`${root}dist/attention-lab.html`)) single.push(await load(browser, `file://${root}dist/attention-lab.html`, { throttle: false }));
    }
  } finally {
    await browser.close();
    await new Promise((done) => server.close(done));
  }
  return {
    network: '100 ms latency, 10 Mbit/s, cache disabled, gzip',
    firstNumbersMs: stats(classroom.map((l) => l.ms)),
    requests: Math.max(...classroom.map((l) => l.requests)),
    kilobytes: Math.round(median(classroom.map((l) => l.bytes)) / 1024),
    localFirstNumbersMs: stats(local.map((l) => l.ms)),
    singleFileFirstNumbersMs: single.length ? stats(single.map((l) => l.ms)) : null,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf('--rounds');
  console.log(JSON.stringify(await siteTimes(i > 0 ? Number(process.argv[i + 1]) : 3), null, 1));
}
