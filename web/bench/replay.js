// The bonus replay on the bench page: every variant of web/bench/variants.js built from one set of weights,
// run on one x, checked against the chapter's MultiHeadAttention (the largest absolute difference) and timed
// (its first call apart, then the median of three warm runs), one variant after the other, each in a
// WebAssembly instance of its own. Stop ends it at the next step (a forward cannot be cut short: it blocks the
// page): each step yields to the browser first, so a click is seen there; the page's own module is untouched. Two renderers: cards in plain words (#replay-cards) and the engineering
// table beside the notebook's published times (#replay-table).
import { h } from '../render/dom.js';
import { PUBLISHED, REFERENCE, SIZES, VARIANTS, largestDifference, replayInputs } from './variants.js';

const WARM_ROUNDS = 3;
// float32 rounding in a different order stays far below this; a wrong weight or mask is far above it
const SAME_WITHIN = 1e-5;
const TOKENS_MAX = 1024;

/** The replay's two sizes, with ?replay-tokens=N (1 to 1024) in place of 1024 tokens: a short check. */
export function replaySizes(params) {
  const tokens = Number(params.get('replay-tokens'));
  const valid = Number.isInteger(tokens) && tokens >= 1 && tokens <= TOKENS_MAX;
  const withTokens = (size) => (valid ? { ...size, tokens } : size);
  return { quick: withTokens(SIZES.quick), notebook: withTokens(SIZES.notebook) };
}

const sizeText = (s) => `batch ${s.batch} × ${s.tokens} tokens × ${s.dIn}, ${s.heads} heads`;
const formatMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`);
const formatRatio = (r) => `${r.toFixed(2)}×`;
/** 2.4 × 10⁻⁷, as a learner reads it; 0 as 0. */
function formatDifference(d) {
  if (d === 0) return '0 (the same bits)';
  if (!Number.isFinite(d)) return String(d);
  const [mantissa, exponent] = d.toExponential(1).split('e');
  const superscript = exponent.replace('+', '').replace(/[-0-9]/g, (c) => '⁻⁰¹²³⁴⁵⁶⁷⁸⁹'['-0123456789'.indexOf(c)]);
  return `${mantissa} × 10${superscript}`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const publishedOf = (id) => PUBLISHED.rows.filter((row) => row.variant === id);
const publishedReference = PUBLISHED.rows.find((row) => row.variant === REFERENCE && !row.note).ms;

// Thrown at a step once Stop was pressed.
class Stopped extends Error {}

/**
 * Wires the replay's buttons. `els`: { quick, notebook, stop, quickSize, notebookSize, progress, results, cards,
 * tableBody, sizeLine };
 * `page`: { newTorch, nextFrame, isBusy, setBusy, beforeFirstRun } from web/bench.js (one timing at a time;
 * newTorch() loads a fresh instance of the API).
 */
export function setUpReplay(els, page, params) {
  const sizes = replaySizes(params);
  els.quickSize.textContent = sizeText(sizes.quick);
  els.notebookSize.textContent = sizeText(sizes.notebook);
  renderCards(els, null);
  renderTable(els, null);
  els.quick.addEventListener('click', () => replay(els, page, 'quick', sizes.quick));
  els.notebook.addEventListener('click', () => replay(els, page, 'notebook', sizes.notebook));
  els.stop.addEventListener('click', () => {
    els.stop.dataset.requested = 'true';
    els.stop.disabled = true;
    els.progress.textContent = 'Stopping at the next step…';
  });
}

async function replay(els, page, which, size) {
  if (page.isBusy()) return;
  page.setBusy(true);
  els.results.dataset.state = 'running';
  els.results.dataset.size = which;
  els.results.setAttribute('aria-busy', 'true');
  const results = Object.fromEntries(VARIANTS.map((v) => [v.id, { first: null, warm: [], difference: null, error: null }]));
  const show = () => {
    renderCards(els, results, size);
    renderTable(els, results, size);
  };
  const say = (text) => {
    els.progress.textContent = text;
  };
  // the browser's turn (progress painted, a Stop click seen), then stop if asked
  const nextStep = async () => {
    await page.nextFrame();
    if (els.stop.dataset.requested) throw new Stopped();
  };
  delete els.stop.dataset.requested;
  els.stop.disabled = false;
  els.stop.hidden = false;
  let done = 0;
  show();
  try {
    await page.beforeFirstRun(say);
    // the reference first: every other output is compared with its numbers as soon as it is made
    const order = [VARIANTS.find((v) => v.id === REFERENCE), ...VARIANTS.filter((v) => v.id !== REFERENCE)];
    let reference = null;
    for (const [k, v] of order.entries()) {
      const result = results[v.id];
      const step = `${k + 1} of ${order.length}, ${v.name}`;
      try {
        say(`${step}: building it with the shared weights…`);
        await nextStep();
        // A WebAssembly heap of its own for each way: a heap never shrinks, and at batch 8 the chapter's class
        // alone takes 1.8 GB of the 2 GB one heap can hold. The same seed draws the same weights and x in each.
        const torch = await page.newTorch();
        const { weights, x } = replayInputs(torch, size);
        const forward = v.build(torch, weights, size);
        say(`${step}: first call…`);
        await nextStep();
        let start = performance.now();
        const y = forward(x);
        result.first = performance.now() - start;
        const output = { shape: y.shape, data: y.data };
        if (v.id === REFERENCE) reference = output;
        result.difference = reference ? largestDifference(output, reference) : null;
        show();
        for (let round = 1; round <= WARM_ROUNDS; round++) {
          say(`${step}: warm run ${round} of ${WARM_ROUNDS}…`);
          await nextStep();
          start = performance.now();
          forward(x);
          result.warm.push(performance.now() - start);
          show();
        }
      } catch (error) {
        if (error instanceof Stopped) throw error;
        result.error = error?.message ?? String(error);
        show();
      }
      done += 1;
    }
    const failed = VARIANTS.filter((v) => results[v.id].error).length;
    say(failed ? `Done, but ${failed} of the ways failed: see their cards.` : summary(results, size));
    els.results.dataset.state = failed ? 'error' : 'done';
  } catch (error) {
    if (error instanceof Stopped) {
      for (const v of VARIANTS) if (results[v.id].difference === null && !results[v.id].error) results[v.id].stopped = true;
      show();
      say(`Stopped after ${done} of ${VARIANTS.length} ways; the rest were not run (or not finished).`);
      els.results.dataset.state = 'stopped';
    } else {
      say(`The replay failed: ${error?.message ?? error}`);
      els.results.dataset.state = 'error';
    }
  } finally {
    els.stop.hidden = true;
    els.results.removeAttribute('aria-busy');
    page.setBusy(false);
  }
}

function summary(results, size) {
  const medians = VARIANTS.map((v) => ({ v, ms: median(results[v.id].warm) })).sort((a, b) => a.ms - b.ms);
  const worst = Math.max(...VARIANTS.map((v) => results[v.id].difference));
  const same = worst <= SAME_WITHIN
    ? `all ${VARIANTS.length} give the chapter’s numbers (largest difference ${formatDifference(worst)})`
    : `not all give the chapter’s numbers (largest difference ${formatDifference(worst)})`;
  return `Done at ${sizeText(size)}: ${same}. Fastest: ${medians[0].v.name}, ${formatMs(medians[0].ms)}; slowest: ` +
    `${medians.at(-1).v.name}, ${formatMs(medians.at(-1).ms)}.`;
}

/** What a variant's results say, ready to show: times, ratio to the chapter's class, its check. */
function figures(results, id) {
  const r = results?.[id];
  const medianMs = r && r.warm.length ? median(r.warm) : null;
  const referenceWarm = results?.[REFERENCE]?.warm ?? [];
  const ratio = medianMs !== null && referenceWarm.length ? medianMs / median(referenceWarm) : null;
  return { r, medianMs, ratio };
}

// ---------------------------------------------------------------- the cards, in plain words

function renderCards(els, results, size) {
  const slowest = results ? Math.max(1e-9, ...VARIANTS.map((v) => figures(results, v.id).medianMs ?? 0)) : 1;
  els.cards.replaceChildren(
    ...VARIANTS.map((v) => {
      const { r, medianMs } = figures(results, v.id);
      const status = !r
        ? null
        : r.error
          ? h('p', { class: 'replay-error' }, `This one failed: ${r.error}`)
          : r.stopped
            ? h('p', { class: 'replay-check is-pending' }, 'Stopped before it finished.')
          : r.difference === null
            ? h('p', { class: 'replay-check is-pending' }, 'Not run yet…')
            : h('p', { class: 'replay-check' },
              v.id === REFERENCE
                ? 'The reference: every other way is compared with it.'
                : r.difference === 0
                  ? 'Same numbers as the chapter’s class, bit for bit.'
                  : r.difference <= SAME_WITHIN
                  ? `Same numbers as the chapter’s class: they differ by at most ${formatDifference(r.difference)}.`
                  : `Differs from the chapter’s class by up to ${formatDifference(r.difference)}.`);
      return h(
        'li',
        {
          class: 'replay-card',
          'data-variant': v.id,
          'data-first-ms': r?.first ?? '',
          'data-median-ms': medianMs ?? '',
          'data-difference': r?.difference ?? '',
        },
        h('h3', {}, v.name),
        h('p', { class: 'replay-plain' }, v.plain),
        h(
          'div',
          { class: 'replay-time' },
          h('span', { class: 'replay-ms' }, medianMs === null ? (r && !r.error && !r.stopped ? '…' : '') : formatMs(medianMs)),
          h('span', { class: 'replay-bar-track', 'aria-hidden': 'true' },
            medianMs === null ? null : h('span', { class: 'run-bar', style: { '--share': (medianMs / slowest).toFixed(4) } })),
        ),
        status,
        h('p', { class: 'replay-why' }, h('strong', {}, 'Why: '), v.why),
      );
    }),
  );
  if (size) els.cards.dataset.size = sizeText(size);
}

// ---------------------------------------------------------------- the engineering table

function renderTable(els, results, size) {
  const text = (value, format) => (value === null || value === undefined ? '–' : format(value));
  els.tableBody.replaceChildren(
    ...VARIANTS.map((v) => {
      const { r, medianMs, ratio } = figures(results, v.id);
      const published = publishedOf(v.id);
      return h(
        'tr',
        { 'data-variant': v.id },
        h('th', { scope: 'row' }, v.name, h('code', { class: 'replay-code' }, v.code)),
        h('td', { class: 'num' }, text(r?.first, formatMs)),
        h('td', { class: 'num' }, text(medianMs, formatMs)),
        h('td', { class: 'num' }, text(ratio, formatRatio)),
        h('td', { class: 'num' }, r?.error ? 'failed' : v.id === REFERENCE && r?.difference === 0 ? 'reference'
          : text(r?.difference, (d) => (d === 0 ? '0 (same bits)' : d.toExponential(1)))),
        h('td', { class: 'replay-published' },
          ...published.map((row) => h('span', { class: 'replay-published-row' },
            h('span', { class: 'replay-published-ms' }, `${row.ms} ms`),
            ` ÷ chapter ${formatRatio(row.ms / publishedReference)}`,
            h('span', { class: 'replay-published-name' }, row.note ? `${row.name} (${row.note})` : row.name)))),
      );
    }),
  );
  els.sizeLine.textContent = size ? `Measured here at ${sizeText(size)}; the notebook’s times are for ${sizeText(PUBLISHED.size)}.` : '';
}
