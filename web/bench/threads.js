// Threads on the bench page. Where the page is cross-origin isolated (the host's COOP/COEP headers, or the
// site's service worker adding them), its module is the simd-threads build on navigator.hardwareConcurrency
// threads: the reader picks how many its forwards use, and one button times the GPT-2-size forward on 1, 2, …
// of them, each count's speed-up over 1 thread beside a check that its output has 1 thread's bits. Elsewhere
// the section says why there is one thread and, where a service worker can make the page isolated, offers to
// reload through it.
import { h } from '../render/dom.js';

const MAX_THREADS = 256; // the loader's limit
// The site's service worker (web/notebook/service-worker.js, built beside the pages): it gives pages COOP/COEP.
const SERVICE_WORKER = './notebook-sw.js';
const CONTROL_WAIT_MS = 5000;

const deviceThreads = () => Math.min(Math.max(1, Math.floor(navigator.hardwareConcurrency) || 1), MAX_THREADS);

/**
 * The page's module: the threaded build on every core where the page may share memory, else the loader's
 * choice. Resolves to { torch, reason }: reason says, in plain words, why the page runs on one thread (null
 * when it can run on more).
 */
export async function loadPageTorch(loadAttention) {
  const cores = deviceThreads();
  if (!globalThis.crossOriginIsolated) {
    return { torch: await loadAttention(), reason: 'not-isolated' };
  }
  if (cores === 1) return { torch: await loadAttention(), reason: 'one-core' };
  try {
    return { torch: await loadAttention({ threads: cores }), reason: null };
  } catch (error) {
    // a browser without WebAssembly SIMD, or workers refused: the one-thread build still computes
    return { torch: await loadAttention(), reason: `The threaded build could not start here (${error?.message ?? error}).` };
  }
}

/** "1 thread", "4 threads". */
export const threadsText = (n) => `${n} thread${n === 1 ? '' : 's'}`;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The output's bits, copied (the next forward may reuse nothing, but a copy is certain). */
const bitsOf = (tensor) => new Uint32Array(Float32Array.from(tensor.data).buffer);

function differing(a, b) {
  if (a.length !== b.length) return Math.max(a.length, b.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) n += a[i] === b[i] ? 0 : 1;
  return n;
}

/**
 * Wires the section. `els`: { select, run, enable, availability, progress, table, caption, body, summary };
 * `page`: { torch, reason, forward() (one GPT-2-size forward, returning y), tokens (its T), runs() (the warm
 * runs asked for), nextFrame, isBusy, setBusy, onThreads(n) (the page shows the count it now runs on) }.
 */
export function setUpThreads(els, page, params) {
  const { torch } = page;
  const most = torch.flavour === 'simd-threads' ? torch.threads : 1;
  els.select.replaceChildren(...Array.from({ length: most }, (_, k) => h('option', { value: k + 1 }, String(k + 1))));
  const asked = Number(params.get('threads'));
  const start = Number.isInteger(asked) && asked >= 1 && asked <= most ? asked : most;
  setThreads(start);
  els.select.addEventListener('change', () => setThreads(Number(els.select.value)));
  els.run.addEventListener('click', () => timeEach(els, page, Number(els.select.value)));
  showAvailability(els, page, most);
  els.caption.textContent = `One forward (T = ${page.tokens}) on each number of threads: the median`;
  return {
    /** The controls while another timing runs (or when there is one thread only) are disabled. */
    setBusy(busy) {
      els.select.disabled = busy || most === 1;
      els.run.disabled = busy;
    },
  };

  function setThreads(n) {
    torch.setNumThreads(n);
    els.select.value = String(n);
    els.run.textContent = n === 1 ? 'Time on 1 thread' : `Time on 1 to ${n} threads`;
    page.onThreads(n);
  }
}

function showAvailability(els, page, most) {
  const { reason } = page;
  els.enable.hidden = true;
  if (reason === null) {
    els.availability.textContent = `This page is cross-origin isolated, so it may share memory between threads: it ` +
      `runs the threaded build, on up to ${threadsText(most)} (the cores this device reports).`;
    return;
  }
  if (reason === 'one-core') {
    els.availability.textContent = 'This device reports one core (navigator.hardwareConcurrency is 1), so the page runs on 1 thread.';
    return;
  }
  if (reason !== 'not-isolated') {
    els.availability.textContent = `${reason} The page runs on 1 thread.`;
    return;
  }
  const why = 'Only 1 thread here: threads share the module’s memory, which a browser allows only on a ' +
    'cross-origin-isolated page, one whose host sends the COOP and COEP headers (npm start and npm run dev do), ' +
    'and this host sent none.';
  if (!('serviceWorker' in navigator)) {
    els.availability.textContent = `${why} This browser gives the page no service worker, which could add them.`;
    return;
  }
  els.availability.textContent = `${why} The site’s service worker can add them to the pages it serves: reload through it to run on every core.`;
  els.enable.hidden = false;
  els.enable.addEventListener('click', async () => {
    els.enable.disabled = true;
    els.progress.textContent = 'Starting the site’s service worker…';
    try {
      await navigator.serviceWorker.register(SERVICE_WORKER);
      if (!navigator.serviceWorker.controller) {
        await new Promise((done) => {
          navigator.serviceWorker.addEventListener('controllerchange', done, { once: true });
          setTimeout(done, CONTROL_WAIT_MS);
        });
      }
      if (!navigator.serviceWorker.controller) throw new Error('it did not take control of this page');
      els.progress.textContent = 'Reloading through the service worker…';
      location.reload();
    } catch (error) {
      els.progress.textContent = `The service worker could not be started here (${error?.message ?? error}), so the page stays on 1 thread.`;
      els.progress.classList.add('is-error');
      els.enable.disabled = false;
    }
  });
}

/** The forward on 1 to `upTo` threads: one untimed pass, then the warm runs; speed-up and bits against 1 thread. */
async function timeEach(els, page, upTo) {
  if (page.isBusy()) return;
  page.setBusy(true);
  const { torch } = page;
  const runs = page.runs();
  const rows = [];
  let reference = null;
  els.table.dataset.state = 'running';
  els.table.hidden = false;
  els.summary.textContent = '';
  try {
    for (let n = 1; n <= upTo; n++) {
      torch.setNumThreads(n);
      els.progress.textContent = `${threadsText(n)}: an untimed pass…`;
      await page.nextFrame();
      const bits = bitsOf(page.forward());
      reference ??= bits;
      const times = [];
      for (let r = 1; r <= runs; r++) {
        els.progress.textContent = `${threadsText(n)}: run ${r} of ${runs}…`;
        await page.nextFrame();
        const start = performance.now();
        page.forward();
        times.push(performance.now() - start);
      }
      rows.push({ threads: n, ms: median(times), differing: differing(bits, reference), of: bits.length });
      renderRows(els, rows, upTo);
    }
    const last = rows.at(-1);
    const same = rows.every((r) => r.differing === 0);
    const speedUp = rows[0].ms / last.ms;
    els.progress.textContent = upTo === 1
      ? `Done: ${formatMs(last.ms)} on 1 thread.`
      : `Done: ${threadsText(upTo)} run the forward ${speedUp.toFixed(2)} times as fast as 1 (at best ${upTo} times), ` +
        (same ? 'with the same bits.' : 'but not with the same bits.');
    els.summary.textContent = same
      ? `Every count gave exactly 1 thread’s ${last.of.toLocaleString('en')} numbers, bit for bit.`
      : 'Some counts gave other numbers than 1 thread: see the last column.';
    els.table.dataset.state = 'done';
  } catch (error) {
    els.progress.textContent = `The forward failed: ${error?.message ?? error}`;
    els.table.dataset.state = 'error';
  } finally {
    torch.setNumThreads(Number(els.select.value));
    page.setBusy(false);
  }
}

const formatMs = (ms) => `${ms.toFixed(1)} ms`;

function renderRows(els, rows, upTo) {
  const slowest = Math.max(...rows.map((r) => r.ms));
  const one = rows[0].ms;
  const pending = Array.from({ length: upTo - rows.length }, (_, k) => rows.length + k + 1);
  els.body.replaceChildren(
    ...rows.map((r) => h('tr', { 'data-threads': r.threads, 'data-ms': r.ms, 'data-speed-up': one / r.ms, 'data-differing': r.differing },
      h('th', { scope: 'row' }, String(r.threads)),
      h('td', { class: 'num' }, formatMs(r.ms)),
      h('td', { class: 'num' }, `${(one / r.ms).toFixed(2)}×`, h('span', { class: 'sr-only' }, ' 1 thread’s speed')),
      h('td', { class: r.differing ? 'threads-differ' : null },
        r.threads === 1 ? 'the reference' : r.differing === 0 ? 'the same' : `${r.differing.toLocaleString('en')} numbers differ`),
      h('td', { class: 'bar-cell' }, h('span', { class: 'run-bar', style: { '--share': (r.ms / slowest).toFixed(4) } })))),
    ...pending.map((n) => h('tr', { class: 'is-pending' }, h('th', { scope: 'row' }, String(n)), h('td', { class: 'num' }, '…'),
      h('td'), h('td'), h('td'))),
  );
}
