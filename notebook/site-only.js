// In a browser, Python reaches the worker's globals (Pyodide's `js` module is the worker's globalThis), and a
// page's <meta> Content-Security-Policy does not bind a worker. So the worker binds itself to the site's
// origin with siteOnly(), before Pyodide loads: whatever Python can reach then reaches the site only.

const refusal = (what) => new TypeError(`${what} is not available in the notebook: it reaches only this site (${self.location.origin})`);

/** Sets `name` to `value` wherever the global object or its prototypes hold it (own properties win lookups). */
function replaceGlobal(name, value) {
  for (let holder = self; holder; holder = Object.getPrototypeOf(holder)) {
    if (Object.hasOwn(holder, name)) Object.defineProperty(holder, name, { value, writable: false, configurable: false });
  }
}

/** A constructor or function that only throws, named as what it replaces. */
const refused = (name) => ({ [name]: function () { throw refusal(name); } })[name];

// Everything a worker can use to reach another origin, besides fetch (kept for the site's own files); a
// notification loads its icon and image from their URLs.
const NETWORK = [
  'XMLHttpRequest', 'WebSocket', 'WebSocketStream', 'EventSource', 'WebTransport', 'RTCPeerConnection',
  'RTCDataChannel', 'Worker', 'SharedWorker', 'importScripts', 'FontFace', 'fetchLater', 'Notification',
];

/**
 * Fetch for the site's own files only, nothing else that sends, no JavaScript compiled from text, and no hold
 * on the worker itself. Returns the worker's own postMessage, for the runner (Python is refused it).
 */
export function siteOnly() {
  const post = self.postMessage.bind(self);
  closeNetwork();
  sealDynamicCode();
  sealWorker();
  return post;
}

// What the loader shows while Python loads: set by watchSiteFetches, it sees each of the site's responses.
let watcher = null;

/** `watch(response, url)` gives the response that fetch returns, until the function returned is called. */
export function watchSiteFetches(watch) {
  watcher = watch;
  return () => { if (watcher === watch) watcher = null; };
}

function closeNetwork() {
  const fetchOwn = self.fetch.bind(self);
  const siteFetch = (request) => fetchOwn(request).then((response) => (watcher ? watcher(response, request.url) : response));
  replaceGlobal('fetch', function fetch(input, init) {
    let request;
    try {
      request = new Request(input, init); // read once: what is checked is what is sent
    } catch (error) {
      return Promise.reject(error);
    }
    const to = new URL(request.url).origin;
    return to === self.location.origin ? siteFetch(request) : Promise.reject(refusal(`fetch from ${to}`));
  });
  for (const name of NETWORK) if (name in self) replaceGlobal(name, refused(name));
  // Caches fetch what cache.add() names; a worker's font set loads fonts from any URL.
  for (const name of ['caches', 'fonts']) if (name in self) replaceGlobal(name, undefined);
}

// eval, the Function constructors and string timers could otherwise import() a module from any origin.
function sealDynamicCode() {
  replaceGlobal('eval', refused('eval'));
  // Each constructor gives way to a stub holding its prototype, so that `Function.prototype.apply` and
  // `instanceof Function` still work (Pyodide calls functions through them).
  for (const maker of [function () {}, async function () {}, function* () {}, async function* () {}].map((f) => f.constructor)) {
    const stub = refused(maker.name);
    Object.defineProperty(stub, 'prototype', { value: maker.prototype });
    Object.defineProperty(maker.prototype, 'constructor', { value: stub });
    if (self[maker.name] === maker) replaceGlobal(maker.name, stub);
  }
  for (const name of ['setTimeout', 'setInterval']) {
    const timer = self[name].bind(self);
    replaceGlobal(name, { [name](handler, ...rest) {
      if (typeof handler !== 'function') throw refusal(`${name} with code as text`);
      return timer(handler, ...rest);
    } }[name]);
  }
}

// Only the runner speaks to the page and only the page ends the worker: a message posted by a cell could pass
// for the runner's (a result, Python's snapshot), and a worker closed by a cell would leave every later cell
// waiting for an answer.
function sealWorker() {
  const reason = { postMessage: 'only the notebook speaks to the page', close: 'only the page ends it (Stop, restart)' };
  for (const [name, why] of Object.entries(reason)) {
    replaceGlobal(name, { [name]() { throw new TypeError(`${name} is not available in the notebook's worker: ${why}`); } }[name]);
  }
}
