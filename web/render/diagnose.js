// "My numbers are different…": under a step's results, a box to paste what the learner's PyTorch printed. The
// search (diagnose/, in a Web Worker so the page stays responsive) answers with the changes that print exactly
// that, each in a sentence and a line of code, the pasted cells marked as they match, and "Use these settings"
// to switch the page to them (one history entry).
import { h, inlineCode } from './dom.js';
import { formatHash, SETTINGS } from '../state.js';
import { parsePrinted } from '../../diagnose/parse.js';
import { STEPS } from '../steps/index.js';

// What each step's box holds across redraws (an edit or a step redraws the step): stepId -> { text, open }
const kept = new Map();

let worker = null;
let scanner = null; // the second worker, which scans for the first
let nextId = 0;
const waiting = new Map();

const startWorker = () => new Worker(new URL('../../diagnose/worker.js', import.meta.url), { type: 'module' });
const singleFile = () => document.documentElement.dataset.edition === 'single-file';

// The worker, or null where none can start (the single file from file://): then the search runs in the page.
// With a second core, a second worker scans half of the range of seeds for it (diagnose/worker.js).
function searchWorker() {
  if (worker !== null || typeof Worker === 'undefined' || singleFile()) return worker;
  try {
    worker = startWorker();
    if ((navigator.hardwareConcurrency ?? 1) > 1) {
      try {
        const { port1, port2 } = new MessageChannel();
        scanner = startWorker();
        scanner.postMessage({ scanFor: port2 }, [port2]);
        worker.postMessage({ scanWith: port1 }, [port1]);
      } catch {
        // (the search then scans alone)
      }
    }
    worker.onmessage = ({ data }) => {
      // (the page's record of the warm-up, for its tests and benchmark)
      if (data.warmed) {
        document.documentElement.dataset.diagnoseWorkers = 'warm';
        return;
      }
      waiting.get(data.id)?.(data);
      waiting.delete(data.id);
      stopIfUnused();
    };
    worker.onerror = () => {
      for (const done of waiting.values()) done({ error: { name: 'Error', message: 'The search could not start here.' } });
      waiting.clear();
      stopWorkers();
    };
  } catch {
    worker = null;
  }
  return worker;
}

function stopWorkers() {
  worker?.terminate();
  scanner?.terminate();
  worker = scanner = null;
  delete document.documentElement.dataset.diagnoseWorkers;
}

// With no box open and no search waiting, the workers go (the searching one holds a copy of the core and the
// chapter: memory a phone wants back); opening a box starts them again.
function stopIfUnused() {
  if (waiting.size === 0 && !document.querySelector('details.diagnose[open]')) stopWorkers();
}

// The learner has opened a box: start the workers now, in idle time, and have them warm up (load the core, run a
// short search whose answer is dropped), so that the first paste does not wait for either; nothing happens for a
// learner who never opens one. Later settings need no warm-up of their own (the compiled code serves them too).
// In the single file the search runs in the page: only its module is loaded ahead, as a search's CPU there would
// take the main thread.
let warmAsked = false;
function warmSoon(settings) {
  if (warmAsked) return;
  warmAsked = true;
  const idle = window.requestIdleCallback ?? ((run) => setTimeout(run, 0));
  idle(
    () => {
      warmAsked = false;
      if (!document.querySelector('details.diagnose[open]') && !document.activeElement?.matches('.diagnose-field')) return;
      if (singleFile() || typeof Worker === 'undefined') {
        import('../../diagnose/index.js').catch(() => {}); // (a failure shows when the search imports it)
        return;
      }
      if (worker || !searchWorker()) return;
      document.documentElement.dataset.diagnoseWorkers = 'warming';
      worker.postMessage({ warm: { settings: { ...settings } } });
    },
    { timeout: 1000 },
  );
}

async function search(request) {
  const w = searchWorker();
  if (w) {
    const id = ++nextId;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      w.postMessage({ id, ...request });
    });
  }
  try {
    const { diagnose } = await import('../../diagnose/index.js');
    return { answers: await diagnose(request) };
  } catch (error) {
    return { error: { name: error.name, message: error.message } };
  }
}

// The page's settings a change stands for (seed, build and setting changes; draws, mistakes and training mode,
// which the page has no setting for, have none).
const settingsOf = (changes) =>
  changes.every((c) => ['seed', 'profile', 'setting'].includes(c.kind) && c.name in SETTINGS) ? Object.fromEntries(changes.map((c) => [c.name, c.to])) : null;

const stepTitle = (id) => STEPS.find((s) => s.id === id)?.title ?? id;

/**
 * @param {object} step      the step (web/steps/)
 * @param {object} settings  the page's settings
 */
export function renderDiagnose(step, settings) {
  const state = kept.get(step.id) ?? { text: '', open: false };
  kept.set(step.id, state);
  const fieldId = `diagnose-${step.id}`;
  const field = h('textarea', { id: fieldId, class: 'diagnose-field', rows: '6', spellcheck: 'false', autocomplete: 'off', placeholder: 'tensor([[0.4300, 0.1500],\n        ...])' });
  field.value = state.text;
  field.addEventListener('input', () => (state.text = field.value));
  field.addEventListener('focus', () => warmSoon(settings));
  const answer = h('div', { class: 'diagnose-answer', 'aria-live': 'polite' });
  const button = h('button', { type: 'button', class: 'button small diagnose-run' }, 'Find why');
  const box = h(
    'details',
    { class: 'diagnose', 'data-diagnose': step.id, open: state.open },
    h('summary', {}, 'My numbers are different…'),
    h(
      'div',
      { class: 'diagnose-body' },
      h('label', { for: fieldId }, 'Paste what your PyTorch printed (a tensor from this step, or any result of the chapter)'),
      field,
      h('p', { class: 'diagnose-actions' }, button),
      answer,
    ),
  );
  box.addEventListener('toggle', () => {
    state.open = box.open;
    if (box.open) warmSoon(settings);
    else stopIfUnused();
  });
  button.addEventListener('click', async () => {
    button.disabled = true;
    answer.replaceChildren(h('p', { class: 'diagnose-busy' }, 'Searching: the chapter under other seeds, builds, settings and mistakes…'));
    const started = performance.now();
    const { answers, error } = await search({ printed: field.value, settings: { ...settings }, step: null });
    button.disabled = false;
    if (error) answer.replaceChildren(h('p', { class: 'notice is-error' }, error.message));
    else answer.replaceChildren(...renderAnswers(answers, field.value, settings, step, performance.now() - started).filter(Boolean));
  });
  return box;
}

function renderAnswers({ exact, nearest }, pasted, settings, step, ms) {
  const took = h('p', { class: 'diagnose-took' }, `Searched in ${(ms / 1000).toFixed(1)} s.`);
  if (exact.length === 0) {
    if (!nearest) return [h('p', {}, 'No result of the chapter has the shape of your tensor under these settings or any change tried.'), took];
    const d = nearest.firstDifference;
    return [
      h('p', { class: 'diagnose-verdict' }, 'Nothing tried explains these numbers exactly: not another seed, the other PyTorch build, a cell run twice, a listed mistake or other sizes.'),
      h('p', {}, `The nearest is ${nearest.label} on “${stepTitle(nearest.step)}”${nearest.changes.length ? ' with these changes' : ''}: ${nearest.cells.equal} of ${nearest.cells.total} numbers are equal. The first that differs is [${d.index.join(', ')}]: you have ${d.yours}, the page has ${d.ours.toFixed(Math.max(4, d.yours.split('.')[1]?.length ?? 4))}.`),
      ...nearest.changes.map((c) => renderChange(c)),
      pastedCells(pasted, nearest.matches),
      took,
    ];
  }
  const shown = exact.slice(0, 3);
  return [
    ...shown.map((a, i) => renderAnswer(a, settings, step, i === 0)),
    exact.length > shown.length ? h('p', { class: 'diagnose-more' }, `${exact.length - shown.length} more result${exact.length - shown.length === 1 ? '' : 's'} match the same way.`) : null,
    pastedCells(pasted, shown[0].matches),
    took,
  ];
}

function renderAnswer(a, settings, step, first) {
  const where = `${a.label}${a.at.length ? `[${a.at.join(', ')}]` : ''}, on “${stepTitle(a.step)}”`;
  const verdict =
    a.changes.length === 0
      ? h('p', { class: 'diagnose-verdict' }, `These are exactly the page’s numbers, with the settings as they are: ${where}.`)
      : h('p', { class: 'diagnose-verdict' }, `Exactly ${where}, with ${a.changes.length === 1 ? 'one change' : `${a.changes.length} changes`}:`);
  const apply = settingsOf(a.changes);
  const use =
    first && a.changes.length && apply
      ? h('button', { type: 'button', class: 'button small diagnose-use', onclick: () => useSettings(a.step, { ...settings, ...apply }) }, 'Use these settings')
      : null;
  const none = first && a.changes.length && !apply ? h('p', { class: 'diagnose-note' }, 'The page has no setting for this; the line above is what to change in your code.') : null;
  return h('section', { class: 'diagnose-result', 'data-result': a.result }, verdict, ...a.changes.map(renderChange), use, none);
}

function renderChange(c) {
  return h(
    'div',
    { class: 'diagnose-change', 'data-kind': c.kind },
    h('p', {}, ...inlineCode(c.text)),
    h('p', { class: 'diagnose-code' }, h('span', { class: 'sr-only' }, 'The book’s line: '), h('code', {}, c.code.from), h('span', { 'aria-hidden': 'true' }, ' → '), h('span', { class: 'sr-only' }, ' yours: '), h('code', {}, c.code.to)),
  );
}

// The pasted numbers, each marked as equal to the result's or not.
function pastedCells(pasted, matches) {
  let numbers;
  try {
    numbers = parsePrinted(pasted).numbers;
  } catch {
    return null;
  }
  if (!matches || !numbers || numbers.length !== matches.length) return null;
  const differ = matches.filter((m) => !m).length;
  return h(
    'figure',
    { class: 'diagnose-cells' },
    h('figcaption', {}, differ ? `Your numbers: ${differ} of ${matches.length} differ (marked ✗).` : `Your numbers: all ${matches.length} match.`),
    h('p', {}, ...numbers.map((n, i) => h('span', { class: matches[i] ? 'is-equal' : 'is-different' }, matches[i] ? n.text : `${n.text} ✗`))),
  );
}

// Switches the page to the answer's settings and step (main.js writes it as one history entry).
function useSettings(stepId, settings) {
  window.dispatchEvent(new CustomEvent('attention:use-link', { detail: formatHash(stepId, settings) }));
}
