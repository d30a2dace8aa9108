// The notebook page: code cells (CodeMirror 6 with Python) run by loadNotebook (Python in a worker, every
// tensor op computed by the core), outputs shown as Jupyter shows them, the notebook kept in the URL.
import { loadNotebook } from '../../notebook/index.js';
import { NotebookLinkError, notebookHash, readNotebookHash } from './share.js';
import { printedField, comparePrinted } from './printed.js';
import { BOOK_TOKENS } from '../book.js';
import { inputsLines } from '../python.js';
import { bookSettings } from '../state.js';

const STORAGE_KEY = 'attention-lab.notebook';
// The first cells of a new notebook: the book's sentence (book/chapter3.json) and its attention weights.
const STARTER = [
  ['import torch', '', ...inputsLines(bookSettings()), 'inputs.shape'].join('\n'),
  'attn_scores = inputs @ inputs.T\nattn_weights = torch.softmax(attn_scores, dim=-1)\n' +
    `print(attn_weights)\nfor i, w in enumerate(attn_weights[1]):\n    print(f"${BOOK_TOKENS[1]} -> word {i}: {w:.4f}")`,
];

const $ = (id) => document.getElementById(id);
const els = {
  cells: $('cells'), runAll: $('run-all'), stop: $('stop'), restart: $('restart'), profile: $('profile'),
  addCell: $('add-cell'), copyLink: $('copy-link'), status: $('status'), loading: $('loading'),
  progress: $('progress'), progressText: $('progress-text'),
};

let notebook = null; // the loaded Notebook, once Python is ready
let ready = null; // resolves to it
let running = 0; // cells queued or running
let counter = 0; // Jupyter's execution count
const cells = []; // { root, view, output, count }

let editor = null; // ./editor.js, imported once Python has started loading

// ------------------------------------------------------------ cells
function makeCell(code, at = cells.length) {
  const cell = { root: document.createElement('section'), output: document.createElement('div'), count: null };
  cell.root.className = 'nb-cell';
  const gutter = document.createElement('div');
  gutter.className = 'nb-count';
  gutter.setAttribute('aria-hidden', 'true');
  cell.countEl = gutter;
  const tools = document.createElement('div');
  tools.className = 'nb-cell-tools';
  const tool = (text, title, action) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'button quiet small';
    b.textContent = text;
    b.setAttribute('aria-label', title);
    b.title = title;
    b.addEventListener('click', () => action(cell));
    tools.append(b);
    return b;
  };
  cell.runButton = tool('▶ Run', 'Run this cell', (c) => runCell(c));
  tool('↑', 'Move this cell up', (c) => moveCell(c, -1));
  tool('↓', 'Move this cell down', (c) => moveCell(c, +1));
  tool('✕', 'Delete this cell', deleteCell);
  const editorHost = document.createElement('div');
  editorHost.className = 'nb-editor';
  cell.output.className = 'nb-output';
  cell.output.setAttribute('aria-live', 'polite');
  cell.output.hidden = true;
  const body = document.createElement('div');
  body.className = 'nb-body';
  body.append(editorHost, cell.output, ...printedField(cell, saveSoon));
  cell.root.append(gutter, body, tools);

  cell.view = editor.createEditor(editorHost, code, {
    run: () => runCell(cell),
    runAndAdvance: () => runCell(cell, { advance: true }),
    changed: saveSoon,
  });
  cells.splice(at, 0, cell);
  els.cells.insertBefore(cell.root, cells[at + 1]?.root ?? null);
  relabel();
  return cell;
}

function relabel() {
  cells.forEach((c, i) => {
    c.root.setAttribute('aria-label', `Cell ${i + 1}, Python`);
    c.root.dataset.cell = String(i + 1);
  });
}

function moveCell(cell, delta) {
  const i = cells.indexOf(cell), j = i + delta;
  if (j < 0 || j >= cells.length) return;
  cells.splice(i, 1);
  cells.splice(j, 0, cell);
  els.cells.insertBefore(cell.root, delta < 0 ? cells[j + 1].root : cells[j].root.nextSibling);
  relabel();
  saveSoon();
  cell.view.focus();
}

function deleteCell(cell) {
  const i = cells.indexOf(cell);
  cells.splice(i, 1);
  cell.view.destroy();
  cell.root.remove();
  if (cells.length === 0) makeCell('');
  relabel();
  saveSoon();
  cells[Math.min(i, cells.length - 1)].view.focus();
}

// ------------------------------------------------------------ running
function showOutput(cell, { output, error }) {
  cell.output.replaceChildren();
  if (output) {
    const pre = document.createElement('pre');
    pre.className = 'nb-stdout';
    pre.textContent = output.replace(/\n$/, '');
    cell.output.append(pre);
  }
  if (error) {
    const pre = document.createElement('pre');
    pre.className = 'nb-error';
    pre.setAttribute('role', 'alert');
    pre.textContent = error.traceback;
    cell.output.append(pre);
  }
  cell.output.hidden = cell.output.childElementCount === 0;
  // A long tensor scrolls inside its box: reachable by keyboard too.
  if (cell.output.hidden) cell.output.removeAttribute('tabindex');
  else cell.output.setAttribute('tabindex', '0');
  editor.markErrorLine(cell.view, error?.line ?? null);
}

function setBusy(delta) {
  running += delta;
  els.stop.disabled = running === 0;
  document.documentElement.dataset.running = String(running > 0);
}

async function runCell(cell, { advance = false } = {}) {
  if (advance) {
    const i = cells.indexOf(cell);
    (cells[i + 1] ?? makeCell('')).view.focus();
  }
  const code = cell.view.state.doc.toString();
  cell.countEl.textContent = '[*]';
  cell.root.classList.add('is-running');
  setBusy(+1);
  try {
    const nb = await ready;
    // What the cell prints shows as it prints it (a long loop, a runaway one), then the whole result.
    let live = null;
    const onOutput = (text) => {
      if (!live) {
        live = document.createElement('pre');
        live.className = 'nb-stdout';
        cell.output.replaceChildren(live);
        cell.output.hidden = false;
      }
      live.textContent += text;
    };
    const result = await nb.run(code, { onOutput });
    cell.countEl.textContent = `[${++counter}]`;
    showOutput(cell, result);
    const codeUpTo = cells.slice(0, cells.indexOf(cell) + 1).map((c) => c.view.state.doc.toString());
    comparePrinted(cell, result.output, { sources: codeUpTo, profile: els.profile.value });
    return result;
  } catch (error) {
    showOutput(cell, { output: '', error: { traceback: String(error.message ?? error), line: null } });
    return { output: '', error };
  } finally {
    cell.root.classList.remove('is-running');
    setBusy(-1);
  }
}

async function runAll() {
  for (const cell of [...cells]) {
    const { error } = await runCell(cell);
    if (error) break; // as Jupyter's "run all" stops at an error
  }
}

// ------------------------------------------------------------ the notebook in the URL and in local storage
let saveTimer = 0;
function saveSoon() {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(save, 300);
}
async function save() {
  const sources = cells.map((c) => c.view.state.doc.toString());
  const hash = await notebookHash(sources, els.profile.value);
  history.replaceState(null, '', hash);
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ cells: sources, profile: els.profile.value }));
  } catch {
    // storage full or blocked: the URL still holds the notebook
  }
}

function storedNotebook() {
  try {
    const stored = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null');
    if (stored && Array.isArray(stored.cells)) {
      return { cells: stored.cells.map(String), profile: stored.profile === 'mkl' ? 'mkl' : 'default' };
    }
  } catch {
    // a damaged entry: start afresh
  }
  return null;
}

async function initialNotebook() {
  return (await readNotebookHash(location.hash)) ?? storedNotebook() ?? { cells: STARTER, profile: 'default' };
}

// ------------------------------------------------------------ start
function status(text) { els.status.textContent = text; }

/**
 * The site's service worker gives Python's worker its Content-Security-Policy on hosts that send no headers
 * (web/notebook/service-worker.js). It is waited for a moment on a first visit, so that the first worker has
 * the policy; without it (no service workers here) the worker still binds itself to the site.
 */
async function withSiteServiceWorker() {
  if (!navigator.serviceWorker) return;
  try {
    await navigator.serviceWorker.register('./notebook-sw.js');
    if (navigator.serviceWorker.controller) return;
    await new Promise((done) => {
      navigator.serviceWorker.addEventListener('controllerchange', done, { once: true });
      setTimeout(done, 3000);
    });
  } catch {
    // not registered (a private window, a host that refuses it): the worker's own binding remains
  }
}

async function start() {
  // Python first: its download is the long one. The profile is a plain parameter of the link (or stored),
  // so it is known before the cells are decoded; the editor loads meanwhile.
  const linked = new URLSearchParams(location.hash.replace(/^#/, ''));
  const profile = linked.has('cells') ? (linked.get('profile') === 'mkl' ? 'mkl' : 'default')
    : storedNotebook()?.profile ?? 'default';
  await withSiteServiceWorker();
  ready = loadNotebook({
    profile,
    onProgress: (message, fraction) => {
      els.progress.value = fraction;
      els.progressText.textContent = message;
    },
  });
  let initial;
  try {
    initial = await initialNotebook();
  } catch (error) {
    if (!(error instanceof NotebookLinkError)) throw error;
    refuseLink(error.message);
    return;
  }
  els.profile.value = initial.profile;
  if (initial.profile !== profile) ready = ready.then(async (nb) => (await nb.setProfile(initial.profile), nb));
  editor = await import('./editor.js');
  for (const code of initial.cells) makeCell(code);
  els.cells.removeAttribute('aria-busy');
  document.documentElement.dataset.ready = 'editor';
  notebook = await ready;
  els.loading.hidden = true;
  for (const b of [els.runAll, els.restart]) b.disabled = false;
  status(`Python ready (${notebook.backend}). ${notebook.interruptible ? '' : 'Stop restarts Python on this host.'}`);
  document.documentElement.dataset.ready = 'python';
}

/**
 * A link the page will not open: what is wrong with it, and nothing else. Python is stopped and every control
 * stays off, so that nothing (not even the learner's own notebook, kept in storage) replaces the link unasked.
 */
function refuseLink(message) {
  const notice = document.createElement('div');
  notice.className = 'notice is-error';
  notice.setAttribute('role', 'alert');
  const own = document.createElement('a');
  own.href = './notebook.html';
  own.textContent = 'Open your own notebook';
  notice.append(`${message} `, own, ' instead.');
  els.cells.replaceChildren(notice);
  els.cells.removeAttribute('aria-busy');
  els.loading.hidden = true;
  for (const control of [els.addCell, els.copyLink, els.profile]) control.disabled = true;
  ready.then((nb) => nb.close(), () => {});
  document.documentElement.dataset.ready = 'refused';
}

els.runAll.addEventListener('click', runAll);
els.addCell.addEventListener('click', () => makeCell('').view.focus());
els.stop.addEventListener('click', async () => {
  status('Stopping…');
  await notebook?.stop();
  status(notebook?.interruptible ? 'Stopped.' : 'Stopped: Python restarted, so run the cells again.');
});
els.restart.addEventListener('click', async () => {
  await notebook.restart();
  counter = 0;
  for (const c of cells) {
    c.countEl.textContent = '';
    showOutput(c, { output: '', error: null });
  }
  status('Restarted: the namespace is empty.');
});
els.profile.addEventListener('change', async () => {
  await (await ready).setProfile(els.profile.value);
  status(`Dropout masks now follow the ${els.profile.value === 'mkl' ? 'Intel MKL' : 'default'} build.`);
  saveSoon();
});
els.copyLink.addEventListener('click', async () => {
  await save();
  try {
    await readNotebookHash(location.hash); // the limits a link is opened with
  } catch (error) {
    if (!(error instanceof NotebookLinkError)) throw error;
    status(`No link copied: this notebook is too large for one (${error.reason}). It is kept in this browser.`);
    return;
  }
  try {
    await navigator.clipboard.writeText(location.href);
    status('Link copied: it holds every cell.');
  } catch {
    status('Copy the address bar: it holds every cell.');
  }
});

start().catch((error) => window.bootFailed?.(`Python could not start: ${error.message}`));
