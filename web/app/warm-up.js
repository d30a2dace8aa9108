// While a learner reads a step, the notebook gets ready: once the step's numbers are drawn and the browser is
// idle, the site's service worker (web/notebook/service-worker.js) is registered and asked to keep the site,
// Pyodide first among it, in its cache. "Run this code yourself" then opens a notebook whose files are already
// here, through a service worker that already makes it cross-origin isolated (no reload), and whose compiled
// WebAssembly the browser can keep (it does so for responses from the cache).

const SERVICE_WORKER = './notebook-sw.js';
const IDLE_TIMEOUT_MS = 5000; // a page that is never idle still warms up, five seconds after its numbers

/** Whether this page can warm up the notebook: a site on http(s) with service workers, not the single file. */
export function canWarmUp() {
  return document.documentElement.dataset.edition !== 'single-file' && 'serviceWorker' in navigator
    && !navigator.connection?.saveData;
}

/**
 * Schedules the warm-up for the browser's next idle moment; call it once the step's numbers are on the page.
 * Resolves to what happened: 'kept' (the site is in the cache), 'skipped' or the reason it failed. It never
 * throws: a notebook that was not warmed up loads its files when it opens, as before.
 */
export function warmUpNotebook() {
  if (!canWarmUp()) return Promise.resolve('skipped');
  const idle = globalThis.requestIdleCallback ?? ((f) => setTimeout(f, 1));
  return new Promise((done) => idle(done, { timeout: IDLE_TIMEOUT_MS }))
    .then(keepSite)
    .catch((error) => String(error?.message ?? error));
}

async function keepSite() {
  const registration = await navigator.serviceWorker.register(SERVICE_WORKER);
  const worker = registration.active ?? await activated(registration.installing ?? registration.waiting);
  const channel = new MessageChannel();
  const answer = new Promise((done) => {
    channel.port1.onmessage = ({ data }) => {
      if (data.kept) done('kept');
      else if (data.failed) done(data.failed);
    };
  });
  worker.postMessage({ type: 'keep-site' }, [channel.port2]);
  const result = await answer;
  channel.port1.close();
  document.documentElement.dataset.notebookWarm = result;
  return result;
}

/** The service worker once it is active. */
function activated(worker) {
  return new Promise((done, fail) => {
    const check = () => {
      if (worker.state === 'activated') done(worker);
      else if (worker.state === 'redundant') fail(new Error('the service worker was replaced before it started'));
    };
    worker.addEventListener('statechange', check);
    check();
  });
}
