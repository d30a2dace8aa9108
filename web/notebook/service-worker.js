// The site's service worker (built as notebook-sw.js beside the pages, registered by the notebook). On a static
// host, which sends no headers of its own, it does what a host with headers does:
//  - its pages come with COOP/COEP, so that they are cross-origin isolated after one reload and the notebook's
//    Stop interrupts Python in place (SharedArrayBuffer) instead of restarting it;
//  - the notebook's worker script comes with its Content-Security-Policy (WORKER_POLICY; WORKER_SCRIPT matches
//    its URLs), and no other worker gets it.
// It also keeps the site (SITE_FILES, the pages and Pyodide) in a cache named after BUILD, so that after one
// visit everything opens with the network off; a new deployment is a new BUILD: its cache replaces the old one
// whole, and the open pages are told (they offer a reload). vite.config.js writes the four constants above
// this line.
/* global WORKER_POLICY, WORKER_SCRIPT, SITE_FILES, BUILD */

const CACHE = `attention-lab-${BUILD}`;
const ISOLATION = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const scope = new URL(self.registration.scope);

self.addEventListener('install', () => self.skipWaiting());
// Control the notebook that registered it at once, so that its first worker already has the policy; the
// caches of earlier deployments go.
self.addEventListener('activate', (event) => event.waitUntil((async () => {
  for (const name of await caches.keys()) if (name.startsWith('attention-lab-') && name !== CACHE) await caches.delete(name);
  await self.clients.claim();
})()));

// The build's snapshot of Python, and the one the notebook made itself and keeps in this cache (web/notebook/view.js):
// once that one is there, Python is restored from it, and the build's 6 MB need not come.
const SNAPSHOT = new URL('notebook-python-snapshot.gz', scope).href;
const OWN_SNAPSHOT = new URL('notebook-python-snapshot', scope).href;

// Pyodide and the build's snapshot of Python first: what a notebook waits for is what a page warming it up
// should have early (with the snapshot kept, the notebook restores Python instead of starting it).
const early = (file) => file.startsWith('pyodide/') || new URL(file, scope).href === SNAPSHOT;
const KEEP_ORDER = [...SITE_FILES].sort((a, b) => Number(early(b)) - Number(early(a)));

/**
 * Every file of the site into the cache (those already there stay; the build's snapshot not once the notebook
 * keeps its own), at low priority; `report(done)` after each.
 */
async function keepSite(report) {
  const cache = await caches.open(CACHE);
  const kept = new Set((await cache.keys()).map((r) => r.url));
  let done = 0;
  for (const file of KEEP_ORDER) {
    const url = new URL(file, scope).href;
    const needed = url !== SNAPSHOT || !(await cache.match(OWN_SNAPSHOT));
    if (!kept.has(url) && needed) {
      const response = await fetch(url, { cache: 'no-cache', priority: 'low' });
      if (response.ok) await cache.put(url, response);
    }
    done += 1;
    report(done);
  }
}

// One run at a time, whoever asks (the walk-through warming up the notebook, then the notebook itself): a
// second request follows the run under way.
let keeping = null;
const listeners = new Set();
function keepSiteOnce(report) {
  listeners.add(report);
  keeping ??= keepSite((done) => listeners.forEach((listener) => listener(done))).finally(() => {
    keeping = null;
    listeners.clear();
  });
  return keeping;
}

self.addEventListener('message', (event) => {
  const port = event.ports[0];
  // The notebook keeps its snapshot of Python in this build's cache, so that another build never restores it.
  if (event.data?.type === 'build') {
    port?.postMessage({ build: BUILD, cache: CACHE });
    return;
  }
  if (event.data?.type !== 'keep-site') return;
  event.waitUntil(keepSiteOnce((done) => port?.postMessage({ done, of: SITE_FILES.length }))
    .then(() => port?.postMessage({ kept: true, build: BUILD }), (error) => port?.postMessage({ failed: String(error) })));
});

// The build's snapshot of Python (SNAPSHOT), which a first visit on a slow network gives up as it arrives
// (notebook/session.js): its download, copy and all, then stops, leaving the network to Pyodide's files (the site's
// copy comes later, when the notebook asks to keep the site, unless it keeps its own snapshot by then).

/** `response` as the page receives it, its download stopped once the page cancels it. */
function untilGivenUp(response, download) {
  const reader = response.body.getReader();
  const body = new ReadableStream({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel: () => download.abort(),
  });
  return new Response(body, { status: response.status, statusText: response.statusText, headers: headersOf(response) });
}

/** `response`'s headers with `extra`; a body the browser has decoded loses its encoding and the length sent. */
function headersOf(response, extra = {}) {
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(extra)) headers.set(name, value);
  if (headers.has('Content-Encoding')) {
    headers.delete('Content-Encoding');
    headers.delete('Content-Length');
  }
  return headers;
}

/** A response with `extra` headers. */
function withHeaders(response, extra) {
  if (response.type === 'opaque' || response.status === 0) return response;
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: headersOf(response, extra) });
}

// A page, network first (a new deployment shows at once), the cache when offline; a file of the site, from the
// cache of this deployment, else from the network into it. `keepOn(promise)` keeps the service worker alive for
// work that goes on after the response is given.
async function respond(request, keepOn) {
  const cache = await caches.open(CACHE);
  const url = new URL(request.url);
  url.hash = '';
  const key = url.pathname.endsWith('/') ? `${url.href}index.html` : url.href.split('?')[0];
  if (request.mode === 'navigate') {
    try {
      const response = await fetch(request);
      // The page is shown while its copy is written (the reader starts on the page at once).
      if (response.ok) keepOn(cache.put(key, response.clone()).catch(() => {}));
      return response;
    } catch (error) {
      const kept = await cache.match(key);
      if (kept) return kept;
      throw error;
    }
  }
  const kept = SITE_FILES.length ? await cache.match(key) : null;
  if (kept) return kept;
  const download = new AbortController();
  const response = await fetch(request, { signal: download.signal });
  if (!response.ok || !SITE_FILES.length || request.method !== 'GET') return response;
  if (request.destination !== 'script') {
    // Passed on as it downloads and kept meanwhile: the notebook reads the snapshot's header, asks for Pyodide's
    // files and counts the bytes while the rest arrives. Held until whole, on a slow network the 6 MB snapshot
    // kept Pyodide's files waiting some 5 s, with nothing counted.
    keepOn(cache.put(key, response.clone()).catch(() => {}));
    return key === SNAPSHOT ? untilGivenUp(response, download) : response;
  }
  await cache.put(key, response.clone()); // the whole download
  // A script is served as kept rather than as downloaded: Chromium keeps the code it compiles from a script of the
  // cache beside it there, so that the first return visit already finds pyodide.asm.mjs compiled.
  const stored = await cache.match(key);
  if (!stored) return response;
  response.body?.cancel().catch(() => {});
  return stored;
}

self.addEventListener('fetch', (event) => {
  const { request } = event;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || !url.href.startsWith(scope.href) || request.method !== 'GET') return;
  if (request.headers.has('range')) return; // partial requests go to the host as they are
  // Pages and workers get the headers; other files of the site need none (they are same-origin) and keep the
  // browser's own response, whose URL lets it keep compiled WebAssembly for the next visit.
  const keepOn = (promise) => event.waitUntil(promise);
  if (request.mode !== 'navigate' && request.destination !== 'worker') {
    event.respondWith(respond(request, keepOn));
    return;
  }
  const extra = { ...ISOLATION };
  if (request.destination === 'worker' && WORKER_SCRIPT.test(request.url)) extra['Content-Security-Policy'] = WORKER_POLICY;
  event.respondWith(respond(request, keepOn).then((response) => withHeaders(response, extra)));
});
