// The notebook page: code cells (CodeMirror 6 with Python) run by loadNotebook (Python in a worker, every
// tensor op computed by the core), outputs shown as Jupyter shows them. The learner's notebooks are kept in
// local storage (./library.js); the one open is also in the URL. Links, steps and .ipynb files open as new
// notebooks beside the others, and a second tab on the same notebook is told.
import { loadNotebook, stoppedBeforeItRan } from '../../notebook/index.js';
import { NotebookLinkError, notebookHash, readNotebookHash } from './share.js';
import { LibraryError, changedText, openLibrary } from './library.js';
import { IpynbError, readIpynb, writeIpynb } from './ipynb.js';
import { printedField, comparePrinted } from './printed.js';
import { BOOK_TOKENS } from '../book.js';
import { inputsLines } from '../python.js';
import { bookSettings } from '../state.js';

// The first cells of a new notebook: the book's sentence (book/chapter3.json) and its attention weights.
const STARTER = [
  ['import torch', '', ...inputsLines(bookSettings()), 'inputs.shape'].join('\n'),
  'attn_scores = inputs @ inputs.T\nattn_weights = torch.softmax(attn_scores, dim=-1)\n' +
    `print(attn_weights)\nfor i, w in enumerate(attn_weights[1]):\n    print(f"${BOOK_TOKENS[1]} -> word {i}: {w:.4f}")`,
];
const CURRENT_KEY = 'attention-lab.notebook-open'; // sessionStorage: this tab's notebook, across reloads
const ISOLATION_RELOAD_KEY = 'attention-lab.isolation-reload'; // sessionStorage: reloaded once to be isolated

const $ = (id) => document.getElementById(id);
const els = {
  cells: $('cells'), runAll: $('run-all'), stop: $('stop'), restart: $('restart'), profile: $('profile'),
  addCell: $('add-cell'), copyLink: $('copy-link'), status: $('status'), loading: $('loading'),
  progress: $('progress'), progressText: $('progress-text'), name: $('notebook-name'), list: $('notebook-list'),
  library: $('notebooks'), newNotebook: $('new-notebook'), duplicate: $('duplicate'), notices: $('notices'),
  mode: $('mode'), openFile: $('open-ipynb'), file: $('ipynb-file'), download: $('download-ipynb'), count: $('notebook-count'),
};

let notebook = null; // the loaded Notebook, once Python is ready
let ready = null; // resolves to it
let snapshotRead = null; // the look in the cache for the snapshot kept (resolves to its bytes or null)
let snapshotStored = null; // the keeping of the snapshot this start made, if it made one (resolves once done)
let running = 0; // cells queued or running
let counter = 0; // Jupyter's execution count
const cells = []; // { root, kind, view | text, output, countEl, printed, run }

let editor = null; // ./editor.js, imported once Python has started loading
// What the loader reported, in order, with the page's time: for the bench and the tests (window.notebookLoad).
const progressLog = [];
window.notebookLoad = progressLog;

// ------------------------------------------------------------ cells
function makeCell(data, at = cells.length) {
  const { source, kind = 'code', printed } = typeof data === 'string' ? { source: data } : data;
  const cell = { root: document.createElement('section'), output: document.createElement('div'), kind, run: null };
  if (printed !== undefined) cell.printed = printed;
  cell.root.className = kind === 'markdown' ? 'nb-cell is-markdown' : 'nb-cell';
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
  if (kind === 'code') cell.runButton = tool('▶ Run', 'Run this cell', (c) => runCell(c));
  tool('↑', 'Move this cell up', (c) => moveCell(c, -1));
  tool('↓', 'Move this cell down', (c) => moveCell(c, +1));
  tool('✕', 'Delete this cell', deleteCell);
  const body = document.createElement('div');
  body.className = 'nb-body';
  cell.root.append(gutter, body, tools);
  if (kind === 'markdown') {
    // A Jupyter text cell, shown as its text (kept, moved and saved with the notebook, not run).
    cell.text = document.createElement('div');
    cell.text.className = 'nb-markdown';
    cell.text.textContent = source;
    body.append(cell.text);
  } else {
    const editorHost = document.createElement('div');
    editorHost.className = 'nb-editor';
    cell.output.className = 'nb-output';
    cell.output.setAttribute('aria-live', 'polite');
    cell.output.hidden = true;
    body.append(editorHost, cell.output, ...printedField(cell, () => { if (!applyingOther) edited(); }));
    cell.view = editor.createEditor(editorHost, source, {
      run: () => runCell(cell),
      runAndAdvance: () => runCell(cell, { advance: true }),
      changed: () => { if (!applyingOther) edited(); },
    });
  }
  cells.splice(at, 0, cell);
  els.cells.insertBefore(cell.root, cells[at + 1]?.root ?? null);
  relabel();
  return cell;
}

const sourceOf = (cell) => (cell.kind === 'markdown' ? cell.text.textContent : cell.view.state.doc.toString());
const focusCell = (cell) => (cell.view ?? cell.root.querySelector('button')).focus();

/** The cells as kept: source, kind, and what they printed where they came from. */
const cellData = () => cells.map((c) => ({
  source: sourceOf(c),
  ...(c.kind === 'markdown' ? { kind: 'markdown' } : {}),
  ...(c.printed !== undefined ? { printed: c.printed } : {}),
}));

function relabel() {
  cells.forEach((c, i) => {
    c.root.setAttribute('aria-label', `Cell ${i + 1}, ${c.kind === 'markdown' ? 'text' : 'Python'}`);
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
  edited();
  focusCell(cell);
}

function removeCellView(cell) {
  cell.view?.destroy();
  cell.root.remove();
}

function deleteCell(cell) {
  const i = cells.indexOf(cell);
  cells.splice(i, 1);
  removeCellView(cell);
  if (cells.length === 0) makeCell('');
  relabel();
  edited();
  focusCell(cells[Math.min(i, cells.length - 1)]);
}

function showCells(list) {
  for (const c of cells.splice(0)) removeCellView(c);
  for (const data of list.length ? list : ['']) makeCell(data);
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

let stopsWhileLoading = 0; // Stops pressed before Python was ready: the cells waiting for it then do not run

const whenNoneRun = []; // called once no cell is queued or running
function setBusy(delta) {
  running += delta;
  els.stop.disabled = running === 0;
  document.documentElement.dataset.running = String(running > 0);
  if (running === 0) whenNoneRun.splice(0).forEach((then) => then());
}

/** Resolves once the cells queued or running have finished, or after `ms` of a cell that runs on. */
function cellsDone(ms) {
  return new Promise((resolve) => {
    if (running === 0) return resolve();
    whenNoneRun.push(resolve);
    setTimeout(resolve, ms);
  });
}

async function runCell(cell, { advance = false } = {}) {
  if (advance) {
    const i = cells.indexOf(cell);
    focusCell(cells[i + 1] ?? makeCell(''));
  }
  if (cell.kind !== 'code') return { output: '', error: null };
  const code = cell.view.state.doc.toString();
  cell.countEl.textContent = '[*]';
  cell.root.classList.add('is-running');
  setBusy(+1);
  // What the cell prints shows as it prints it (a long loop, a runaway one), then the whole result; what it
  // printed before a Stop stays above the interrupt's message.
  let live = null;
  let printedLive = '';
  const onOutput = (text) => {
    if (!live) {
      live = document.createElement('pre');
      live.className = 'nb-stdout';
      cell.output.replaceChildren(live);
      cell.output.hidden = false;
    }
    printedLive += text;
    live.textContent += text;
  };
  const stopsBefore = stopsWhileLoading;
  try {
    const nb = await ready;
    if (stopsWhileLoading !== stopsBefore) { // Stop was pressed while this cell waited for Python to load
      const stopped = stoppedBeforeItRan();
      cell.countEl.textContent = '';
      showOutput(cell, stopped);
      return stopped;
    }
    const result = await nb.run(code, { onOutput });
    const output = result.output || printedLive;
    cell.countEl.textContent = `[${++counter}]`;
    cell.run = { count: counter, output, error: result.error };
    showOutput(cell, { ...result, output });
    const codeUpTo = cells.slice(0, cells.indexOf(cell) + 1).filter((c) => c.kind === 'code').map(sourceOf);
    comparePrinted(cell, output, { sources: codeUpTo, profile: els.profile.value });
    return result;
  } catch (error) {
    cell.run = null;
    showOutput(cell, { output: printedLive, error: { traceback: String(error.message ?? error), line: null } });
    return { output: printedLive, error };
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

// ------------------------------------------------------------ the learner's notebooks
// Local storage, or (where the browser refuses it: some private windows) a store that lasts as long as the page.
const storage = (() => {
  try {
    const probe = 'attention-lab.probe';
    localStorage.setItem(probe, '1');
    localStorage.removeItem(probe);
    return localStorage;
  } catch {
    const kept = new Map();
    return { getItem: (k) => kept.get(k) ?? null, setItem: (k, v) => kept.set(k, String(v)), removeItem: (k) => kept.delete(k) };
  }
})();
const library = openLibrary(storage);
const tab = Math.random().toString(36).slice(2);
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('attention-lab.notebooks') : null;

let current = null; // { id, name }: the notebook on the page
let base = 0; // the version of it in storage that the page shows, or saved last
let dirty = false; // typed since the last save
let held = false; // another tab changed this notebook while this one had unsaved edits: nothing is saved until the learner chooses
let latestOther = null; // the last version of it another tab saved
let applyingOther = false; // cells being replaced by another tab's version: not an edit

function status(text) { els.status.textContent = text; }

/**
 * A notice above the cells, with buttons ([label, action] pairs). `key` replaces an earlier notice of the same
 * key; a button removes its notice.
 */
function notice(key, message, actions = [], kind = 'info') {
  els.notices.querySelector(`[data-notice="${key}"]`)?.remove();
  const box = document.createElement('div');
  box.className = `notice nb-notice is-${kind}`;
  box.dataset.notice = key;
  box.setAttribute('role', kind === 'warn' ? 'alert' : 'status');
  const p = document.createElement('p');
  p.textContent = message;
  box.append(p);
  for (const [label, action] of actions) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'button small';
    b.textContent = label;
    b.addEventListener('click', () => { box.remove(); action(); });
    box.append(b);
  }
  els.notices.append(box);
  return box;
}
const dropNotice = (key) => els.notices.querySelector(`[data-notice="${key}"]`)?.remove();

let saveTimer = 0;
function edited() {
  dirty = true;
  clearTimeout(saveTimer);
  saveTimer = setTimeout(save, 300);
}

/** The open notebook into storage and the URL; other tabs hear of it. */
async function save() {
  clearTimeout(saveTimer);
  if (!current) return;
  const open = current;
  const data = cellData();
  // The link is made first, then storage and the address bar change in the same task: a reload never finds
  // the notebook saved ahead of its link (it would open the older link as yet another notebook).
  const hash = await notebookHash(data.map((c) => c.source), els.profile.value);
  if (current !== open) return;
  const sources = (cells) => cells.map((c) => c.source).join('\0');
  if (sources(cellData()) !== sources(data)) return; // typed meanwhile: the save that edit scheduled keeps it
  if (dirty && !held) keep(data);
  history.replaceState(null, '', hash);
}

function keep(data) {
  const stored = library.get(current.id);
  if (stored && stored.version !== base) {
    askOverOther(); // saved by another tab since this one loaded it (its message missed, or crossed with ours)
    return;
  }
  try {
    try {
      base = library.save(current.id, { cells: data, profile: els.profile.value });
    } catch (error) {
      if (!(error instanceof LibraryError) || library.get(current.id)) throw error;
      // deleted meanwhile (another tab): kept again, under its name, rather than lost
      current.id = library.create({ name: current.name, cells: data, profile: els.profile.value });
      base = library.get(current.id).version;
      sessionStorage.setItem(CURRENT_KEY, current.id);
    }
    dirty = false;
    announce();
  } catch (error) {
    if (!(error instanceof LibraryError)) throw error;
    notice('storage', `${error.message} The address bar still holds every cell; download it as .ipynb to keep it.`, [], 'warn');
  }
  renderList();
}

/**
 * Tells other tabs that the open notebook was saved, with its contents: another tab's local storage may not
 * show the write yet when the message arrives.
 */
function announce() {
  const nb = library.get(current.id);
  if (nb) channel?.postMessage({ type: 'saved', id: current.id, tab, notebook: nb });
}

/** The list of notebooks in the "Your notebooks" panel. */
function renderList() {
  const list = library.list();
  els.count.textContent = String(list.length);
  els.list.replaceChildren(...list.map((entry) => {
    const li = document.createElement('li');
    const open = document.createElement('button');
    open.type = 'button';
    open.className = 'nb-open';
    open.textContent = entry.name;
    if (entry.id === current?.id) open.setAttribute('aria-current', 'true');
    open.addEventListener('click', () => { els.library.open = false; switchTo(entry.id); });
    const when = document.createElement('span');
    when.className = 'nb-changed';
    when.textContent = `changed ${changedText(entry.changed)}`;
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.className = 'button quiet small nb-copy';
    copy.textContent = 'Duplicate';
    copy.setAttribute('aria-label', `Duplicate “${entry.name}”`);
    copy.addEventListener('click', () => duplicate(entry.id));
    const remove = document.createElement('button');
    remove.type = 'button';
    remove.className = 'button quiet small nb-remove';
    remove.textContent = 'Delete';
    remove.setAttribute('aria-label', `Delete “${entry.name}”`);
    remove.addEventListener('click', () => deleteNotebook(entry.id));
    li.append(open, when, copy, remove);
    return li;
  }));
}

/** Puts notebook `id` on the page (its cells, name, profile); Python's namespace starts empty for it. */
async function show(id, { restart = true } = {}) {
  const nb = library.get(id);
  if (!nb) return false;
  current = { id, name: nb.name };
  base = nb.version;
  sessionStorage.setItem(CURRENT_KEY, id);
  els.name.value = nb.name;
  document.title = `${nb.name} · Your chapter-3 notebook`;
  els.profile.value = nb.profile;
  showCells(nb.cells);
  dirty = false;
  held = false;
  dropNotice('other-tab');
  history.replaceState(null, '', await notebookHash(nb.cells.map((c) => c.source), nb.profile));
  renderList();
  channel?.postMessage({ type: 'opened', id, tab });
  if (restart && notebook) {
    counter = 0;
    await notebook.restart();
    if (notebook.profile !== nb.profile) await notebook.setProfile(nb.profile);
  }
  return true;
}

async function switchTo(id) {
  if (id === current?.id) return;
  await save();
  await show(id);
  status(`Opened “${current.name}”; Python's namespace is empty for it.`);
}

async function duplicate(id) {
  await save();
  try {
    const copy = library.duplicate(id);
    await show(copy);
    status(`Opened “${current.name}”, a copy: the original is unchanged.`);
  } catch (error) {
    if (!(error instanceof LibraryError)) throw error;
    notice('storage', error.message, [], 'warn');
  }
}

async function deleteNotebook(id) {
  if (id === current?.id) await save();
  const name = library.get(id)?.name ?? 'The notebook';
  const undo = library.remove(id);
  channel?.postMessage({ type: 'deleted', id, tab });
  if (id === current?.id) {
    const next = library.list()[0]?.id ?? library.create({ name: 'My notebook', cells: STARTER });
    await show(next);
  }
  renderList();
  notice('deleted', `“${name}” was deleted.`, [['Undo', async () => {
    undo();
    await show(id);
    status(`“${name}” is back.`);
  }]]);
}

/** Adds a notebook beside the others and opens it, telling the learner where theirs are. */
async function openAsNew({ name, cells: list, profile }, why) {
  await save();
  const id = library.create({ name, cells: list, profile });
  await show(id);
  const others = library.list().length - 1;
  notice('opened', `${why} It opened as a new notebook, “${current.name}”${others ? `, beside your ${others} other${others === 1 ? '' : 's'} (Your notebooks)` : ''}: nothing of yours was changed.`);
}

// A step's cells end with the step's own: '# 3.6.2 Its title'. The notebook is named after it.
function linkName(list) {
  const heading = /^# (\d\.\d(?:\.\d)?) (.+)$/.exec(list.at(-1)?.split('\n')[0] ?? '');
  return heading ? `Chapter 3 up to ${heading[1]} ${heading[2]}` : 'Notebook from a link';
}

// Another tab on the same notebook.
channel?.addEventListener('message', async ({ data }) => {
  if (!current || data?.id !== current.id || data.tab === tab) return;
  if (data.type === 'opened' || data.type === 'here') {
    if (data.type === 'opened') channel.postMessage({ type: 'here', id: current.id, tab });
    notice('other-tab', `“${current.name}” is also open in another tab. A change made there is offered here before anything you typed is replaced.`);
  } else if (data.type === 'saved') {
    const theirs = data.notebook;
    latestOther = theirs;
    if (theirs.version === base) { // renamed there
      current.name = theirs.name;
      els.name.value = theirs.name;
      renderList();
      return;
    }
    if (!dirty) {
      loadOther(theirs);
      notice('other-tab', `“${current.name}” was changed in another tab; its cells here are now that version.`);
      return;
    }
    askOverOther();
  } else if (data.type === 'deleted') {
    notice('other-tab', `“${current.name}” was deleted in another tab. It is kept again as soon as you change it here, or now with Keep it.`, [['Keep it', () => keep(cellData())]], 'warn');
  }
});

/** Another tab saved the open notebook while this one has unsaved edits: nothing is saved until the learner chooses. */
function askOverOther() {
  held = true;
  clearTimeout(saveTimer);
  notice('other-tab', `“${current.name}” was changed in another tab while you were typing here. Nothing is saved until you choose.`, [
    ['Keep mine as a new notebook', async () => {
      held = false;
      const id = library.create({ name: `${current.name} (this tab)`, cells: cellData(), profile: els.profile.value });
      current = { id, name: library.get(id).name };
      base = library.get(id).version;
      sessionStorage.setItem(CURRENT_KEY, id);
      els.name.value = current.name;
      dirty = false;
      renderList();
      status(`Your version is kept as “${current.name}”; the other tab's stays as it was.`);
    }],
    ['Load the other tab’s version', () => {
      held = false;
      const latest = [library.get(current.id), latestOther].filter(Boolean).sort((a, b) => b.version - a.version)[0];
      if (latest) loadOther(latest);
      status('Loaded the version saved in the other tab.');
    }],
    ], 'warn');
}

/** Another tab's version of the open notebook, in place: cells whose text is unchanged keep their output. */
function loadOther(nb) {
  applyingOther = true;
  try {
    if (nb.cells.length === cells.length && nb.cells.every((c, i) => (c.kind ?? 'code') === cells[i].kind)) {
      nb.cells.forEach((c, i) => {
        const cell = cells[i];
        if (sourceOf(cell) === c.source) return;
        if (cell.view) cell.view.dispatch({ changes: { from: 0, to: cell.view.state.doc.length, insert: c.source } });
        else cell.text.textContent = c.source;
      });
    } else {
      showCells(nb.cells);
    }
  } finally {
    applyingOther = false;
  }
  current.name = nb.name;
  base = nb.version;
  els.name.value = nb.name;
  els.profile.value = nb.profile;
  dirty = false;
  renderList();
}

// ------------------------------------------------------------ .ipynb files
async function openFiles(files) {
  for (const file of files) {
    try {
      const nb = readIpynb(await file.text(), file.name);
      await openAsNew(nb, `${file.name} has ${nb.cells.length} cell${nb.cells.length === 1 ? '' : 's'}.`);
    } catch (error) {
      if (!(error instanceof IpynbError || error instanceof LibraryError)) throw error;
      notice('file', error.message, [], 'warn');
    }
  }
}

function downloadIpynb() {
  const text = writeIpynb({ profile: els.profile.value, cells: cells.map((c, i) => ({ ...cellData()[i], run: c.run })) });
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'application/x-ipynb+json' }));
  link.download = `${(current?.name ?? 'notebook').replace(/[\\/:*?"<>|]+/g, '-')}.ipynb`;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  status(`Downloaded ${link.download}: Jupyter opens it, with the outputs shown here.`);
}

// ------------------------------------------------------------ start
/**
 * The site's service worker (web/notebook/service-worker.js) gives the pages COOP/COEP and Python's worker its
 * Content-Security-Policy on hosts that send no headers, and keeps the site for offline use. It is waited for a
 * moment on a first visit; once it controls the page, one reload makes the page cross-origin isolated (the
 * headers apply to a page loaded through it), so that Stop keeps Python's variables. Without it (no service
 * workers here) the worker still binds itself to the site, and Stop restarts Python. Resolves to false when
 * the page is reloading.
 */
async function withSiteServiceWorker() {
  // The head's script (register-early.js) may be reloading the page already: nothing to start then.
  if (window.notebookIsolation === 'reloading') return false;
  if (!navigator.serviceWorker) return true;
  try {
    const registering = navigator.serviceWorker.register('./notebook-sw.js');
    // With a service worker in control (a return visit, or a first one that it controls already) nothing waits for
    // the registration, which checks for a new version meanwhile.
    if (navigator.serviceWorker.controller) registering.catch(() => {});
    else await registering;
    if (!navigator.serviceWorker.controller) {
      await new Promise((done) => {
        navigator.serviceWorker.addEventListener('controllerchange', done, { once: true });
        setTimeout(done, 3000);
      });
    }
  } catch {
    window.notebookIsolation = 'settled';
    return true; // not registered (a private window, a host that refuses it): the worker's own binding remains
  }
  if (window.notebookIsolation === 'reloading') return false;
  const reloaded = sessionStorage.getItem(ISOLATION_RELOAD_KEY) === '1';
  if (!globalThis.crossOriginIsolated && navigator.serviceWorker.controller && !reloaded) {
    sessionStorage.setItem(ISOLATION_RELOAD_KEY, '1');
    window.notebookIsolation = 'reloading';
    location.reload();
    return false;
  }
  // Python starts on this page: a controller that comes later no longer reloads it (register-early.js).
  window.notebookIsolation = 'settled';
  // A new deployment's service worker took over: this page still runs the old one's scripts. A first
  // controller arriving late (a slow start, past the wait above) is no deployment: it only keeps the site.
  let controller = navigator.serviceWorker.controller;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    const first = !controller;
    controller = navigator.serviceWorker.controller;
    if (first) {
      if (notebook) keepSiteOffline(); // else Python's start asks for it
      return;
    }
    notice('update', 'A new version of this site was published. Your notebooks are kept; reload to use it.', [['Reload', async () => {
      await save();
      location.reload();
    }]]);
  });
  return true;
}

/** What Stop does here and whether the site works offline, beside the toolbar. */
function showMode(offline = '') {
  const stop = notebook?.interruptible ?? globalThis.crossOriginIsolated
    ? 'Stop keeps your variables (this page is cross-origin isolated).'
    : navigator.serviceWorker
      ? 'Stop restarts Python: this page is not cross-origin isolated here.'
      : 'Stop restarts Python: this browser gives the page no service worker, which would let Stop keep your variables.';
  els.mode.textContent = `${stop}${offline ? ` ${offline}` : ''}`;
}

/** Asks the service worker to keep every file of the site, so that it opens and runs offline from now on. */
function keepSiteOffline() {
  const worker = navigator.serviceWorker?.controller;
  if (!worker) return;
  const channel = new MessageChannel();
  channel.port1.onmessage = ({ data }) => {
    if (data.kept) {
      showMode('Works offline: the site is kept in this browser.');
      document.documentElement.dataset.offline = 'kept';
    } else if (data.failed) showMode(`Not kept for offline use (${data.failed}).`);
    else if (data.done % 10 === 0 || data.done === data.of) showMode(`Keeping the site for offline use: ${data.done} of ${data.of} files…`);
  };
  worker.postMessage({ type: 'keep-site' }, [channel.port2]);
}

// Python's snapshot (the whole WebAssembly memory once cells and torch are imported: notebook/session.js) is kept
// in the cache of the site's build, beside the files the service worker keeps: a return visit restores Python from
// it instead of starting it. A new deployment's cache replaces that one whole, snapshot included, so another
// build's snapshot is never offered (and the loader refuses one made from other files anyway). The dev server's
// build ('dev') changes with every edit: no snapshot there.
const SNAPSHOT_URL = new URL('./notebook-python-snapshot', location.href).href;
// The snapshot the site's build made under Node (scripts/build-notebook-snapshot.mjs): with no snapshot of its
// own, a first visit restores Python from it instead of starting it. Under Save-Data it is read only once the
// service worker keeps it (6 MB gzipped). Chromium's own estimate of the network (navigator.connection.downlink)
// is no guide: with no traffic measured yet it says 1.45 Mbit/s, even on localhost.
const BUILD_SNAPSHOT_URL = new URL('./notebook-python-snapshot.gz', location.href).href;

/** The build's snapshot's address, or null where the learner asked to save data and it is not kept yet. */
async function buildSnapshotURL() {
  if (!navigator.connection?.saveData) return BUILD_SNAPSHOT_URL;
  const kept = await globalThis.caches?.match(BUILD_SNAPSHOT_URL).catch(() => null);
  return kept ? BUILD_SNAPSHOT_URL : null;
}

/** The service worker's cache for this build, or null (no service worker, or it does not answer within a second). */
async function buildCache() {
  const worker = navigator.serviceWorker?.controller;
  if (!worker || !globalThis.caches) return null;
  const answer = await new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = ({ data }) => resolve(data);
    worker.postMessage({ type: 'build' }, [channel.port2]);
    setTimeout(() => resolve(null), 1000); // a service worker of an earlier version does not answer
  });
  return answer?.cache && answer.build !== 'dev' ? answer.cache : null;
}

/**
 * { snapshot: promise of the kept bytes or null, keep(bytes), stored(): the last keep done }: what loadNotebook
 * restores from and keeps.
 */
function snapshotStore() {
  const cacheName = buildCache().catch(() => null);
  const snapshot = cacheName.then(async (name) => {
    if (!name) return null;
    const kept = await (await caches.open(name)).match(SNAPSHOT_URL);
    return kept ? kept.arrayBuffer() : null;
  }).catch(() => null);
  const keep = async (bytes) => {
    const name = await cacheName;
    // Only into a cache that is still there: once a new deployment has deleted it, it is not made again.
    if (!name || !(await caches.has(name))) return;
    await (await caches.open(name)).put(SNAPSHOT_URL, new Response(bytes, { headers: { 'Content-Type': 'application/octet-stream' } }));
  };
  let stored = Promise.resolve();
  // a full disk: the next visit starts Python
  return { snapshot, keep: (bytes) => { stored = keep(bytes).catch(() => {}); }, stored: () => stored };
}

/** The notebook this tab opens: a link's as a new one (or the same one again on a reload), else the last one. */
async function initialNotebook(linked) {
  library.adoptLegacy();
  if (linked) {
    const same = library.findSame(linked.cells.map((source) => ({ source })));
    if (same) return { id: same };
    return { id: null, linked };
  }
  const mine = sessionStorage.getItem(CURRENT_KEY);
  if (mine && library.get(mine)) return { id: mine };
  const last = library.list()[0]?.id;
  return { id: last ?? library.create({ name: 'My notebook', cells: STARTER }) };
}

async function start() {
  // Python first: its download is the long one. The profile is a plain parameter of the link (or stored),
  // so it is known before the cells are decoded; the editor loads meanwhile.
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const stored = library.get(sessionStorage.getItem(CURRENT_KEY) ?? '') ?? library.get(library.list()[0]?.id ?? '');
  const profile = params.has('cells') ? (params.get('profile') === 'mkl' ? 'mkl' : 'default') : stored?.profile ?? 'default';
  if (!(await withSiteServiceWorker())) return;
  showMode();
  loadPython(profile);
  let linked;
  try {
    linked = await readNotebookHash(location.hash);
  } catch (error) {
    if (!(error instanceof NotebookLinkError)) throw error;
    refuseLink(error.message);
    return;
  }
  const initial = await initialNotebook(linked);
  // Python's worker waits for the page to say which snapshot it restores (a look in the cache): the editor's
  // scripts, evaluated first, held that answer back by a quarter of a second on a busy machine.
  await snapshotRead;
  editor = await import('./editor.js');
  if (initial.id) await show(initial.id, { restart: false });
  else {
    const list = linked.cells.map((source) => ({ source }));
    await openAsNew({ name: linkName(linked.cells), cells: list, profile: linked.profile }, 'This link holds a notebook.');
  }
  if (els.profile.value !== profile) ready = ready.then(async (nb) => (await nb.setProfile(els.profile.value), nb));
  els.cells.removeAttribute('aria-busy');
  document.documentElement.dataset.ready = 'editor';
  await pythonReady();
}

/**
 * Starts loading Python (`ready`), its progress shown as it comes: every report of the loader at once, and
 * between reports each second adds how long it has waited.
 */
function loadPython(profile) {
  let said = { message: 'Loading Python…', at: performance.now() };
  els.progressText.textContent = said.message;
  // (looked at five times a second, so that the count shows a second after the words, not up to two)
  const ticker = setInterval(() => {
    const waited = Math.floor((performance.now() - said.at) / 1000);
    const text = `${said.message} (${waited} s)`;
    if (waited >= 1 && els.progressText.textContent !== text) els.progressText.textContent = text;
  }, 200);
  const snapshots = snapshotStore();
  snapshotRead = snapshots.snapshot;
  snapshotStored = snapshots.stored;
  ready = buildSnapshotURL().then((snapshotURL) => loadNotebook({
    profile,
    snapshot: snapshots.snapshot,
    snapshotURL,
    onSnapshot: snapshots.keep,
    onProgress: (message, fraction) => {
      // the same words again (a download that trickles, 0.1 MB at a time) do not restart the count of seconds
      if (message !== said.message) said = { message, at: performance.now() };
      els.progress.value = fraction;
      els.progressText.textContent = message;
      progressLog.push({ message, fraction, at: Math.round(performance.now()) });
    },
  }));
  ready.finally(() => clearInterval(ticker)).catch(() => {});
}

/**
 * Once Python is loaded: the toolbar on and the mode said. A start that failed (a download cut off, a browser
 * out of memory) is said where the progress was, with Try again, rather than leaving the line where it stopped.
 */
async function pythonReady() {
  try {
    notebook = await ready;
  } catch (error) {
    els.progress.hidden = true;
    const retry = document.createElement('button');
    retry.type = 'button';
    retry.className = 'button quiet small';
    retry.textContent = 'Try again';
    retry.addEventListener('click', () => {
      retry.remove();
      els.progress.hidden = false;
      els.progress.value = 0;
      els.loading.classList.remove('is-failed');
      loadPython(els.profile.value);
      pythonReady();
    }, { once: true });
    els.progressText.textContent = `Python could not start (${String(error?.message ?? error).replace(/^loadNotebook: /, '')}). Your cells are kept, and Try again starts it anew.`;
    els.progressText.setAttribute('role', 'alert');
    els.progressText.after(retry);
    els.loading.classList.add('is-failed');
    document.documentElement.dataset.ready = 'failed';
    return;
  }
  els.progressText.removeAttribute('role');
  els.loading.hidden = true;
  for (const b of [els.runAll, els.restart]) b.disabled = false;
  status(`Python ready (${notebook.backend}${{ given: ', restored from the snapshot this browser keeps', build: ", restored from the site's snapshot" }[notebook.restoredFrom] ?? ''}). ${notebook.interruptible ? '' : 'Stop restarts Python on this host.'}`);
  showMode();
  document.documentElement.dataset.ready = 'python';
  // The cells run while Python started come first: keeping the site (some 20 files fetched and written to the
  // cache on a first visit) would share the two cores with their first run. And a snapshot this start made is
  // kept first: the service worker then leaves the build's (6 MB) out.
  cellsDone(5000).then(() => snapshotStored?.()).then(keepSiteOffline);
}

/**
 * A link the page will not open: what is wrong with it, and nothing else. Python is stopped and every control
 * stays off, so that nothing (not even the learner's own notebooks, kept in storage) replaces the link unasked.
 */
function refuseLink(message) {
  const box = document.createElement('div');
  box.className = 'notice is-error';
  box.setAttribute('role', 'alert');
  const own = document.createElement('a');
  own.href = './notebook.html';
  own.textContent = 'Open your own notebook';
  box.append(`${message} `, own, ' instead.');
  els.cells.replaceChildren(box);
  els.cells.removeAttribute('aria-busy');
  els.loading.hidden = true;
  for (const control of [els.addCell, els.copyLink, els.profile, els.name, els.newNotebook, els.duplicate, els.download, els.openFile]) control.disabled = true;
  ready.then((nb) => nb.close(), () => {});
  document.documentElement.dataset.ready = 'refused';
}

els.runAll.addEventListener('click', runAll);
els.addCell.addEventListener('click', () => makeCell('').view.focus());
els.stop.addEventListener('click', async () => {
  if (!notebook) { // Python is still loading: nothing runs yet, and the cells waiting for it will not
    stopsWhileLoading++;
    status('Stopped: the cells waiting for Python will not run.');
    return;
  }
  status('Stopping…');
  // what Stop did, not what it can do: an interrupt Python did not take within the grace restarts it too
  const done = await notebook?.stop();
  status(done === 'restarted' ? 'Stopped: Python restarted, so run the cells again.' : 'Stopped: the namespace is kept.');
});
els.restart.addEventListener('click', async () => {
  await notebook.restart();
  counter = 0;
  for (const c of cells.filter((c) => c.kind === 'code')) {
    c.countEl.textContent = '';
    c.run = null;
    showOutput(c, { output: '', error: null });
  }
  status('Restarted: the namespace is empty.');
});
els.profile.addEventListener('change', async () => {
  await (await ready).setProfile(els.profile.value);
  status(`Dropout masks now follow the ${els.profile.value === 'mkl' ? 'Intel MKL' : 'default'} build.`);
  edited();
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
els.name.addEventListener('change', () => {
  if (!current) return;
  library.rename(current.id, els.name.value);
  current.name = library.get(current.id)?.name ?? current.name;
  els.name.value = current.name;
  document.title = `${current.name} · Your chapter-3 notebook`;
  renderList();
  announce();
});
els.newNotebook.addEventListener('click', async () => {
  els.library.open = false;
  await save();
  await show(library.create({ name: 'Untitled notebook', cells: [''] }));
  status(`Opened “${current.name}”, a new empty notebook.`);
  focusCell(cells[0]);
});
els.duplicate.addEventListener('click', () => current && duplicate(current.id));
els.library.addEventListener('toggle', () => { if (els.library.open) renderList(); });
els.openFile.addEventListener('click', () => els.file.click());
els.file.addEventListener('change', async () => {
  await openFiles([...els.file.files]);
  els.file.value = '';
});
els.download.addEventListener('click', downloadIpynb);
// Dropping .ipynb files anywhere on the page opens them.
document.addEventListener('dragover', (event) => {
  if ([...(event.dataTransfer?.items ?? [])].some((i) => i.kind === 'file')) event.preventDefault();
});
document.addEventListener('drop', (event) => {
  const files = [...(event.dataTransfer?.files ?? [])];
  if (!files.length || !current) return;
  event.preventDefault();
  openFiles(files);
});
// A notebook link pasted into the address bar of this page opens as a new notebook too.
addEventListener('hashchange', async () => {
  if (!current) return;
  let linked;
  try {
    linked = await readNotebookHash(location.hash);
  } catch (error) {
    if (!(error instanceof NotebookLinkError)) throw error;
    notice('link', error.message, [], 'warn');
    return;
  }
  if (!linked || linked.cells.join('\0') === cellData().map((c) => c.source).join('\0')) return;
  const same = library.findSame(linked.cells.map((source) => ({ source })));
  if (same) await switchTo(same);
  else await openAsNew({ name: linkName(linked.cells), cells: linked.cells.map((source) => ({ source })), profile: linked.profile }, 'This link holds a notebook.');
});
// Leaving the page saves what was typed in the last moment.
// Closing the tab leaves no time for the link: the cells are kept at once.
addEventListener('pagehide', () => { if (current && dirty && !held) keep(cellData()); });

start().catch((error) => window.bootFailed?.(`Python could not start: ${error.message}`));
