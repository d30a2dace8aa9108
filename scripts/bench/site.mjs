// The built site's load time on a classroom network (part of `npm run bench`; alone:
// `node scripts/bench/site.mjs [--rounds N] [--build DIR] [--baseline DIR | --against DIR] [--single-file]`, after
// npm run build:site; --build measures another dist/-like folder (site/, attention-lab.html), --baseline (or
// --against) one more in the same rounds, --single-file the single file and its floor only). dist/site on a plain static host that
// gzips (scripts/static-host.mjs, under a sub-path), opened in Chromium with its network emulation at 100 ms
// latency and 10 Mbit/s both ways, cache disabled, a fresh context each load: the time from navigation to the
// first numbers painted (after the frame that follows the page's performance mark 'page:first-step', set once
// they are in the page: the page leaves its other work to after that paint), the requests made before the mark
// and the longest chain of requests among them (a request started by code or markup that another request
// brought). The same for the single file from file:// (no network).
//
// Absolute times differ 2-4x between machines, so each is measured beside a floor in the same run, loaded
// alternately with it: for the site, a page of one HTML file and one module that together transfer as many
// bytes as the site does before its first numbers (served by the same host, through the same emulation); for
// the single file, a file of its size whose one inline script decodes a base64 blob filling it. Both floors
// mark 'page:first-step' as soon as their module has run, and are timed to their paint as the page is: nothing
// can load those bytes in fewer requests. The figure is the ratio to the floor (firstNumbersMs: painted; the
// mark alone in markedMs). The file:// loads are traced for their main thread's CPU time to the paint
// (singleCpuMs), which other work on the machine sways less than their wall time, and for the requests its renderer
// made to the browser process for the system's fonts (singleFontLookups: Chromium on Linux, where each such
// request waits for the browser's font thread), and that CPU time by phase (singlePhasesMs). Both files show nothing
// before their numbers, so their first contentful paint is when Chromium put those on screen (singleShownMs): the
// painted time above comes later by the tasks that ran before its own (the rest of the parse, work the page left to
// after that paint). The single file's first
// numbers are those of the step its build drew into it (scripts/prerender-single-file.mjs: this benchmark's browser
// is a visitor it is drawn for); singleLiveMs is when the page had drawn its own and turned every control on. Prints one JSON
// object on stdout.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { startStaticHost } from '../static-host.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const NETWORK = { latency: 100, downloadThroughput: (10e6 / 8), uploadThroughput: (10e6 / 8), offline: false };
const PREFIX = '/course/attention/';
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const stats = (xs) => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), runs: xs.length });

/**
 * The longest chain of requests among `urls` (1: the document alone), from Chromium's requestWillBeSent events:
 * a request made by a script counts one more than that script's, one the markup or a preload link made (no
 * script on its stack) one more than the document.
 */
function longestChain(sent, urls) {
  const documentUrl = sent.find((e) => e.type === 'Document')?.request.url;
  const initiatorOf = new Map(sent.map((e) => [e.request.url, e.initiator]));
  const parentOf = (url) => {
    if (url === documentUrl) return null;
    const initiator = initiatorOf.get(url);
    for (let stack = initiator?.stack; stack; stack = stack.parent) {
      const frame = stack.callFrames.find((f) => initiatorOf.has(f.url));
      if (frame) return frame.url;
    }
    return initiator?.url && initiatorOf.has(initiator.url) ? initiator.url : documentUrl;
  };
  const depth = (url, seen = new Set()) => {
    if (!url || seen.has(url)) return 0;
    seen.add(url);
    return 1 + depth(parentOf(url), seen);
  };
  return Math.max(1, ...urls.map((u) => depth(u)));
}

/**
 * In the page before its scripts: 'bench:painted' once the frame after 'page:first-step' is painted (a task
 * queued in that frame's animation callbacks runs after its paint), the same for the page and its floors.
 */
function markPainted() {
  const mark = performance.mark.bind(performance);
  performance.mark = (name, ...rest) => {
    const entry = mark(name, ...rest);
    if (name === 'page:first-step') requestAnimationFrame(() => setTimeout(() => mark('bench:painted')));
    return entry;
  };
}

/**
 * The CPU time (ms) the page's main thread spent from its navigation to 'bench:painted', from a trace of its
 * top-level tasks: what the load cost, whatever else the machine's cores were doing meanwhile.
 */
function mainThreadCpuMs(events) {
  const painted = events.find((e) => e.name === 'bench:painted');
  if (!painted) return null;
  const start = events.find((e) => e.name === 'navigationStart' && e.pid === painted.pid)?.ts ?? 0;
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === painted.pid).map((e) => e.tid));
  return events
    .filter((e) => e.name === 'ThreadControllerImpl::RunTask' && e.ph === 'X' && main.has(e.tid) && e.pid === painted.pid && e.ts >= start && e.ts <= painted.ts)
    .reduce((sum, e) => sum + (e.tdur ?? 0) / 1000, 0);
}

// The renderer's requests to the browser process for the system's fonts (Chromium on Linux, where each waits for
// the browser's font thread): a family and style looked up, and a font size's rendering settings ("strike").
const FONT_LOOKUPS = ['FontDataManager::onMatchFamilyStyle', 'WebSandboxSupportLinux::GetWebFontRenderStyleForStrike'];

/** How many of those the page made from its navigation to 'bench:painted' (null without the trace's mark). */
function fontLookups(events) {
  const painted = events.find((e) => e.name === 'bench:painted');
  if (!painted) return null;
  const start = events.find((e) => e.name === 'navigationStart' && e.pid === painted.pid)?.ts ?? 0;
  return events.filter((e) => e.pid === painted.pid && FONT_LOOKUPS.includes(e.name) && e.ph === 'X' && e.ts >= start && e.ts <= painted.ts).length;
}

/**
 * Where the main thread's CPU time (ms) to 'bench:painted' went, from the same trace: compiling the page's module
 * (v8.compileModule), the task that holds the mark 'page:first-step' (the module's run to its first numbers, or
 * the parser's task that read a drawn step), the tasks after it to the paint (the first frame among them), and the
 * wall time spent waiting on font requests.
 */
function mainThreadPhases(events) {
  const painted = events.find((e) => e.name === 'bench:painted');
  const marked = events.find((e) => e.name === 'page:first-step' && e.pid === painted?.pid);
  if (!painted || !marked) return null;
  const start = events.find((e) => e.name === 'navigationStart' && e.pid === painted.pid)?.ts ?? 0;
  const main = new Set(events.filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && e.pid === painted.pid).map((e) => e.tid));
  const onMain = events.filter((e) => e.ph === 'X' && main.has(e.tid) && e.pid === painted.pid && e.ts >= start && e.ts <= painted.ts);
  const tasks = onMain.filter((e) => e.name === 'ThreadControllerImpl::RunTask');
  const run = tasks.find((t) => t.ts <= marked.ts && marked.ts <= t.ts + t.dur);
  const cpu = (es) => Math.round(es.reduce((sum, e) => sum + (e.tdur ?? 0), 0) / 100) / 10;
  return {
    compile: cpu(onMain.filter((e) => e.name === 'v8.compileModule')),
    run: run ? cpu([run]) : null,
    frame: run ? cpu(tasks.filter((t) => t.ts > run.ts)) : null,
    fontWait: Math.round(onMain.filter((e) => FONT_LOOKUPS.includes(e.name)).reduce((sum, e) => sum + e.dur, 0) / 100) / 10,
  };
}

/**
 * One cold load of `url`: ms to the first numbers (painted, and marked), requests before them, bytes transferred
 * by then, chain; with `cpu`, the main thread's CPU time to the paint (traced: the file:// loads).
 */
async function load(browser, url, { throttle, cpu = false, live = false }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(markPainted);
  const page = await context.newPage();
  const sent = [];
  if (throttle) {
    const cdp = await context.newCDPSession(page);
    cdp.on('Network.requestWillBeSent', (e) => sent.push(e));
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await cdp.send('Network.emulateNetworkConditions', NETWORK);
  }
  const trace = cpu ? await context.newCDPSession(page) : null;
  const events = [];
  if (trace) {
    trace.on('Tracing.dataCollected', (e) => events.push(...e.value));
    await trace.send('Tracing.start', { categories: 'toplevel,blink.user_timing,devtools.timeline,fonts', transferMode: 'ReportEvents' });
  }
  await page.goto(url, { timeout: 60_000 }); // as long as the wait for its numbers: a loaded machine takes more than 30 s
  await page.waitForFunction(() => performance.getEntriesByName('bench:painted').length > 0, undefined, { timeout: 60_000 });
  let cpuMs = null;
  let fonts = null;
  let phases = null;
  if (trace) {
    const complete = new Promise((resolve) => trace.once('Tracing.tracingComplete', resolve));
    await trace.send('Tracing.end');
    await complete;
    cpuMs = mainThreadCpuMs(events);
    fonts = fontLookups(events);
    phases = mainThreadPhases(events);
  }
  const seen = await page.evaluate(() => {
    const at = performance.getEntriesByName('page:first-step')[0].startTime;
    const before = performance.getEntriesByType('resource').filter((r) => r.startTime <= at);
    const nav = performance.getEntriesByType('navigation')[0];
    return {
      ms: performance.getEntriesByName('bench:painted')[0].startTime,
      marked: at,
      requests: 1 + before.length,
      bytes: (nav?.transferSize ?? 0) + before.reduce((s, r) => s + r.transferSize, 0),
      urls: [location.href.replace(/#.*$/, ''), ...before.map((r) => r.name)],
      waterfall: before.map((r) => `${r.name.split('/').pop().replace(/-[\w-]{8}(\.\w+)$/, '$1')} ${Math.round(r.startTime)}-${Math.round(r.responseEnd)}`),
    };
  });
  if (live) { // the page's own first step drawn and every control on ('page:ready'): after a drawn one, later
    await page.waitForFunction(() => performance.getEntriesByName('page:ready').length > 0, undefined, { timeout: 60_000 });
    seen.live = await page.evaluate(() => performance.getEntriesByName('page:ready')[0].startTime);
  }
  if (throttle) seen.chain = longestChain(sent, seen.urls);
  if (cpu) { // the file:// loads, whose first content is their numbers: when Chromium showed it
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 60_000 });
    const shown = await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0].startTime);
    Object.assign(seen, { cpuMs, fonts, phases, shown });
  }
  delete seen.urls;
  await context.close();
  return seen;
}

/** Random text whose gzip (level 9, as the host sends it) is `bytes` long, give or take a few. */
function incompressible(bytes) {
  let text = randomBytes(Math.ceil(bytes * 0.75)).toString('base64');
  for (let i = 0; i < 4; i++) {
    const packed = gzipSync(text, { level: 9 }).length;
    if (Math.abs(packed - bytes) < 64) break;
    const length = Math.round((text.length * bytes) / packed);
    text = length <= text.length ? text.slice(0, length) : text + randomBytes(Math.ceil((length - text.length) * 0.75)).toString('base64').slice(0, length - text.length);
  }
  return text;
}

/**
 * The site's floor in `folder`: index.html and floor.js, together `bytes` transferred (gzipped, with
 * `headers` bytes of response headers, as the site's Resource Timing counts them).
 */
function writeSiteFloor(folder, bytes, headers = 2 * 300) {
  const html = '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Floor</title>\n' +
    '<script type="module" src="./floor.js"></script></head>\n<body><p id="out">Loading…</p></body>\n</html>\n';
  const module = (payload) => `const payload = '${payload}';\n` +
    "document.getElementById('out').textContent = `${payload.length} characters`;\nperformance.mark('page:first-step');\n";
  const payloadBytes = bytes - headers - gzipSync(html, { level: 9 }).length - gzipSync(module(''), { level: 9 }).length;
  writeFileSync(join(folder, 'index.html'), html);
  writeFileSync(join(folder, 'floor.js'), module(incompressible(Math.max(0, payloadBytes))));
  return payloadBytes;
}

/** The single file's floor: a file of `size` bytes whose inline module decodes the base64 blob that fills it. */
function writeSingleFloor(file, size) {
  const head = '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Floor</title></head>\n' +
    '<body><p id="out"></p>\n<script type="module">\nconst blob = \''; // nothing to paint before its numbers
  const tail = "';\n" +
    'const bytes = Uint8Array.fromBase64 ? Uint8Array.fromBase64(blob) : Uint8Array.from(atob(blob), (c) => c.charCodeAt(0));\n' +
    "document.getElementById('out').textContent = `${bytes.length} bytes`;\nperformance.mark('page:first-step');\n" +
    '</script>\n</body>\n</html>\n';
  const blobLength = Math.floor((size - head.length - tail.length) / 4) * 4;
  const blob = randomBytes((blobLength / 4) * 3).toString('base64');
  writeFileSync(file, head + blob + ' '.repeat(size - head.length - tail.length - blobLength) + tail);
}

/** One build's loads (a dist/-like folder: site/ and attention-lab.html), its floors written into `floors`. */
function edition(folder, floors) {
  return { site: join(folder, 'site/'), singleFile: join(folder, 'attention-lab.html'), floors, loads: {
    classroom: [], floor: [], local: [], single: [], singleFloor: [] } };
}

/** Starts its hosts and writes its floors (sized from one unmeasured load of the site). */
async function prepare(browser, build, { singleFile = false } = {}) {
  build.singleFloor = join(build.floors, 'single-floor.html');
  if (existsSync(build.singleFile)) writeSingleFloor(build.singleFloor, statSync(build.singleFile).size);
  build.siteLoads = !singleFile;
  if (singleFile) return;
  build.server = await startStaticHost({ folder: build.site, prefix: PREFIX });
  build.floorServer = await startStaticHost({ folder: build.floors, prefix: PREFIX });
  build.url = `http://localhost:${build.server.address().port}${PREFIX}`;
  build.floorUrl = `http://localhost:${build.floorServer.address().port}${PREFIX}`;
  // the floor carries what the site transferred before its first numbers on a first (unmeasured) load
  const sizing = await load(browser, build.url, { throttle: true });
  writeSiteFloor(build.floors, sizing.bytes);
  // one load of the floor tells what its headers really count; written again with that
  const headers = 2 * 300 + (await load(browser, build.floorUrl, { throttle: true })).bytes - sizing.bytes;
  writeSiteFloor(build.floors, sizing.bytes, headers);
}

/** One round: the site and its floor (classroom network), the site on localhost, the single file and its floor. */
async function round(browser, build) {
  const { loads } = build;
  if (build.siteLoads) {
    loads.classroom.push(await load(browser, build.url, { throttle: true }));
    loads.floor.push(await load(browser, build.floorUrl, { throttle: true }));
    loads.local.push(await load(browser, build.url, { throttle: false }));
  }
  if (existsSync(build.singleFile)) {
    loads.single.push(await load(browser, `file://${build.singleFile}`, { throttle: false, cpu: true, live: true }));
    loads.singleFloor.push(await load(browser, `file://${build.singleFloor}`, { throttle: false, cpu: true }));
  }
}

function summary({ loads, singleFile }) {
  const { classroom, floor, local, single, singleFloor } = loads;
  if (!classroom.length) return singleSummary(loads, singleFile);
  const firstNumbersMs = stats(classroom.map((l) => l.ms));
  const floorMs = stats(floor.map((l) => l.ms));
  const middle = classroom.find((l) => l.ms === firstNumbersMs.median);
  const marked = (loads) => loads.length ? stats(loads.map((l) => l.marked)) : null;
  const ratio = (a, b) => a && b && a.median / b.median;
  return {
    network: '100 ms latency, 10 Mbit/s, cache disabled, gzip',
    firstNumbersMs,
    // the page's mark, before its paint: the figure earlier runs gave
    markedMs: { site: marked(classroom), floor: marked(floor), single: marked(single), singleFloor: marked(singleFloor),
      overFloor: ratio(marked(classroom), marked(floor)), singleOverFloor: ratio(marked(single), marked(singleFloor)) },
    ...singleSummary(loads, singleFile),
    requests: Math.max(...classroom.map((l) => l.requests)),
    chain: Math.max(...classroom.map((l) => l.chain)),
    kilobytes: Math.round(median(classroom.map((l) => l.bytes)) / 1024),
    waterfall: middle.waterfall,
    floor: { firstNumbersMs: floorMs, requests: Math.max(...floor.map((l) => l.requests)),
      kilobytes: Math.round(median(floor.map((l) => l.bytes)) / 1024) },
    overFloor: firstNumbersMs.median / floorMs.median,
    localFirstNumbersMs: stats(local.map((l) => l.ms)),
  };
}

/** The single file's figures beside its floor's (from file://, traced). */
function singleSummary({ single, singleFloor }, singleFile) {
  const singleFileFirstNumbersMs = single.length ? stats(single.map((l) => l.ms)) : null;
  const singleFloorMs = single.length ? stats(singleFloor.map((l) => l.ms)) : null;
  return {
    singleFileFirstNumbersMs,
    singleFloor: singleFloorMs && { firstNumbersMs: singleFloorMs, kilobytes: Math.round(statSync(singleFile).size / 1024) },
    singleOverFloor: singleFloorMs && singleFileFirstNumbersMs.median / singleFloorMs.median,
    // Chromium's first contentful paint (its time on screen): for both files their numbers, the single file's
    // drawn step (nothing of it is rendered before) and the floor's count (it shows nothing before)
    singleShownMs: single.length ? { single: stats(single.map((l) => l.shown)), floor: stats(singleFloor.map((l) => l.shown)),
      overFloor: median(single.map((l) => l.shown)) / median(singleFloor.map((l) => l.shown)) } : null,
    singleMarkedMs: single.length ? { single: stats(single.map((l) => l.marked)), floor: stats(singleFloor.map((l) => l.marked)) } : null,
    // when the page itself had drawn its first step and turned every control on ('page:ready'), after the drawn one
    singleLiveMs: single.length ? stats(single.map((l) => l.live)) : null,
    // the main thread's CPU time to the same paint: under other work on the machine, steadier than the wall time
    singleCpuMs: single.length ? { single: stats(single.map((l) => l.cpuMs)), floor: stats(singleFloor.map((l) => l.cpuMs)),
      overFloor: median(single.map((l) => l.cpuMs)) / median(singleFloor.map((l) => l.cpuMs)) } : null,
    // its requests for the system's fonts before that paint (each a wait for the browser process; Linux only)
    singleFontLookups: single.length ? { single: median(single.map((l) => l.fonts)), floor: median(singleFloor.map((l) => l.fonts)) } : null,
    // that CPU time by phase (medians): the page's module compiled, the task that holds the first-numbers mark
    // (the parser's, for a drawn step), the tasks after it to the paint; and the wall time its font requests waited
    singlePhasesMs: single.length ? Object.fromEntries([['single', single], ['floor', singleFloor]].map(([name, loads]) => [name,
      Object.fromEntries(['compile', 'run', 'frame', 'fontWait'].map((k) => [k, median(loads.map((l) => l.phases?.[k] ?? NaN))]))])) : null,
  };
}

/**
 * dist/'s load times beside their floors; with `baseline` (a copy of an earlier dist/), that build's too,
 * loaded in the same rounds (each round: this build, then the baseline), so that a change is measured under
 * the same load.
 */
export async function siteTimes(rounds = 3, { build = `${root}dist`, baseline = null, singleFile = false } = {}) {
  if (!existsSync(join(build, singleFile ? 'attention-lab.html' : 'site/index.html'))) return null;
  let chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return null;
  }
  const builds = [edition(build, mkdtempSync(join(tmpdir(), 'attention-floor-')))];
  if (baseline) builds.push(edition(baseline, mkdtempSync(join(tmpdir(), 'attention-floor-'))));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu',
    '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    for (const each of builds) await prepare(browser, each, { singleFile });
    for (let i = 0; i < rounds; i++) for (const each of builds) await round(browser, each);
  } finally {
    await browser.close();
    for (const each of builds) {
      for (const server of [each.server, each.floorServer]) if (server) await new Promise((done) => server.close(done));
      rmSync(each.floors, { recursive: true, force: true });
    }
  }
  const result = summary(builds[0]);
  if (baseline) result.baseline = { folder: baseline, ...summary(builds[1]) };
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const option = (name) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  console.log(JSON.stringify(await siteTimes(Number(option('rounds') ?? 3), {
    build: option('build'), baseline: option('baseline') ?? option('against'), singleFile: process.argv.includes('--single-file'),
  }), null, 1));
}
