// The page: loads the WebAssembly PyTorch port, keeps the one state object (which step, which settings,
// the results computed from them) in step with the URL hash, and redraws the step, the contents and the
// settings panel from it. Every number on the page comes from computeChapter(torch, settings).
import { parseHash, formatHash, isBook, bookSettings, sameSettings, repairSettings, changedNames, BOOK } from './state.js';
import { renderStep, fitLedes } from './render/step.js';
import { resolveStep } from './steps/words.js';
import { renderToc, renderHere } from './render/toc.js';
import { renderSettings, readSettings, addWord, removeWord, CONTROLS } from './render/settings.js';
import { installTakeApart } from './render/takeapart.js';
import { typesetPending } from './render/formula.js';
import { h, showStartFailure } from './render/dom.js';
import { loadAttention } from '../wasm/index.js';
import * as chapter from './chapter/index.js';
import { STEPS as ALL_STEPS } from './steps/index.js';

const $ = (id) => document.getElementById(id);
const els = {
  step: $('step'),
  notices: $('notices'),
  toc: $('toc'),
  settings: $('settings'),
  prev: $('prev'),
  next: $('next'),
  position: $('position'),
  panel: $('take-apart'),
  announce: $('announce'),
  backend: $('backend'),
  here: $('here'),
};

// The one state object. `settings`/`results` are always the last settings that computed; what is typed
// but invalid lives only in the form (and `formErrors`).
const state = {
  step: null,
  settings: bookSettings(),
  results: null,
  formErrors: {},
  computeError: null, // the core's message when it rejects the typed settings (the last results are kept)
  computeFields: [], // the settings that message is about
  linkNotice: null,
  openBooks: new Set(),
  openMistakes: new Set(), // the "What if…" switches that are on
};

// One history entry per settings edit: its first keystroke pushes an entry, the next ones (until the field
// is left or the choice made, the 'change' event) replace it. So Back undoes a whole edit, and Previous /
// Next move between steps with the settings as they are.
let editing = false;

let torch = null;
let STEPS = [];
let katex; // undefined while KaTeX loads (formulas wait), null if it failed (formulas shown as TeX)
let takeApart = null;

// ---------------------------------------------------------------- start

boot();

async function boot() {
  // The page's scripts are one bundle; the WebAssembly starts loading at once, KaTeX once the numbers are shown.
  try {
    torch = await loadAttention();
  } catch (error) {
    return fatal('The WebAssembly module could not be loaded, so nothing can be computed.', error);
  }
  performance.mark('page:loaded');
  STEPS = Array.isArray(ALL_STEPS) ? ALL_STEPS.filter((s) => s && s.id) : [];
  if (STEPS.length === 0) return fatal('There are no steps to show (web/steps/index.js lists none).');
  els.backend.textContent = torch.backend === 'wasm-simd128' ? 'WebAssembly · SIMD' : 'WebAssembly';

  takeApart = installTakeApart(els.step, els.panel, (name) => state.results?.[name]);
  wireEvents();
  fromLocation({ initial: true });
  performance.mark('page:first-step');
  document.documentElement.dataset.ready = 'true';
  els.step.removeAttribute('aria-busy');

  katex = await import('./render/katex.js').then((m) => m.default, () => null);
  typesetPending(els.step, katex);
  makeScrollersReachable();
}

function fatal(message, error) {
  showStartFailure(els.step, 'The page could not start', message, error);
  for (const b of [els.prev, els.next]) b.disabled = true;
}

// ---------------------------------------------------------------- computing

function compute(settings) {
  try {
    const results = chapter.computeChapter(torch, settings);
    // Drawn embeddings: the settings keep the numbers drawn, for the form and the code to show them.
    if (settings.inputs !== 'typed') settings.embeddings = results.inputs.values.map((row) => [...row]);
    return { results };
  } catch (error) {
    // The core rejecting a combination of settings: its message, and the settings it is about (error.settings).
    if (error?.name === 'AttentionError') return { error: error.message, fields: error.settings ?? [] };
    return { error: `Unexpected error: ${error?.message ?? error}`, fields: [] };
  }
}

/** Settings from a link, with anything invalid replaced by the book's value (and a notice saying so). */
function fromLink(settings) {
  const replaced = repairSettings(settings);
  return { settings, notice: replaced.length ? `This link’s ${replaced.join(', ')} could not be used, so the book’s value is shown instead.` : null };
}

// ---------------------------------------------------------------- the URL

const stepIndex = (id) => STEPS.findIndex((s) => s.id === id);

/** Reads the hash into the state (first load, a pasted link, back/forward). */
function fromLocation({ initial = false } = {}) {
  const parsed = parseHash(location.hash);
  const id = stepIndex(parsed.step) >= 0 ? parsed.step : STEPS[0].id;
  const unchangedSettings = state.results && sameSettings(parsed.settings, state.settings);
  const stepChanged = id !== state.step;
  if (!unchangedSettings) {
    const { settings, notice } = fromLink(parsed.settings);
    // Back / Forward (or a pasted link) brought other settings: say so, never change numbers silently.
    state.linkNotice = notice ?? (initial ? null : 'These are the settings of this point in the page’s history: Back and Forward undo and redo settings changes as well as steps.');
    editing = false;
    let outcome = compute(settings);
    if (outcome.error && outcome.fields.length) {
      // A link whose combination a module rejects: the book's value for what it names, and why.
      for (const key of outcome.fields) settings[key] = BOOK[key];
      state.linkNotice = `This link’s ${outcome.fields.join(' and ')} could not be used (${outcome.error}), so the book’s value is shown instead.`;
      outcome = compute(settings);
    }
    if (outcome.error) {
      state.computeError = outcome.error;
      state.computeFields = outcome.fields;
      if (!state.results) {
        // Nothing shown yet: fall back to the book so the page is never blank.
        outcome = compute(bookSettings());
        state.settings = bookSettings();
        state.results = outcome.results;
      }
    } else {
      state.settings = settings;
      state.results = outcome.results;
      state.computeError = null;
      state.computeFields = [];
    }
    state.formErrors = {};
  } else if (!stepChanged) {
    return;
  }
  state.step = id;
  // Canonical hash: an unknown step becomes the first, a repaired link shows what is really used.
  const canonical = formatHash(id, state.settings);
  if (location.hash !== canonical) history.replaceState(null, '', canonical);
  render({ writeForm: !unchangedSettings });
  if (!initial && stepChanged) window.scrollTo({ top: 0 });
}

function navigate(id, { focusHeading = false } = {}) {
  if (stepIndex(id) < 0) return;
  const hash = formatHash(id, state.settings);
  if (location.hash !== hash) history.pushState(null, '', hash);
  const changed = id !== state.step;
  state.step = id;
  state.linkNotice = null;
  render({ writeForm: false });
  if (changed) window.scrollTo({ top: 0 });
  const heading = els.step.querySelector('#step-title');
  if (focusHeading && heading) heading.focus({ preventScroll: true });
  else if (changed) announce(`Step ${stepIndex(id) + 1} of ${STEPS.length}: ${resolveStep(STEPS[stepIndex(id)], state.settings).title}`);
}

function announce(text) {
  els.announce.textContent = '';
  requestAnimationFrame(() => (els.announce.textContent = text));
}

// ---------------------------------------------------------------- drawing

function render({ writeForm }) {
  const index = stepIndex(state.step);
  // titles, prose and formulas that name sizes, written for these settings
  const steps = STEPS.map((s) => resolveStep(s, state.settings));
  const step = steps[index];
  takeApart.hide();
  const book = isBook(state.settings);
  let article;
  try {
    article = renderStep(step, {
      results: state.results,
      settings: state.settings,
      isBook: book,
      index,
      total: STEPS.length,
      katex,
      openBooks: state.openBooks,
      openMistakes: state.openMistakes,
      onBookToggle: (name, open) => (open ? state.openBooks.add(name) : state.openBooks.delete(name)),
    });
  } catch (error) {
    article = h(
      'article',
      { class: 'step', 'data-step': step.id, 'data-section': step.section },
      h('h2', { id: 'step-title', tabindex: '-1' }, step.title ?? step.id),
      h('p', { class: 'notice is-error', role: 'alert' }, `This step could not be drawn: ${error.message}`),
    );
  }
  els.step.replaceChildren(article);
  fitLedes(els.step);
  makeScrollersReachable();

  renderToc(els.toc, { steps, current: step.id, settings: state.settings });
  renderHere(els.here, { steps, current: step.id, settings: state.settings });
  renderSettings(els.settings, {
    settings: state.settings,
    writeValues: writeForm,
    errors: state.formErrors,
    isBook: book,
    changed: changedNames(state.settings),
    computeError: state.computeError,
    computeFields: state.computeFields ?? [],
    relevant: Array.isArray(step.controls) ? step.controls : [],
    bookMarks: {
      match: article.querySelectorAll('[data-book="match"]').length,
      differs: article.querySelectorAll('[data-book="differs"]').length,
    },
  });
  renderNotices();
  renderNav(steps, index);
  document.title = `${step.section} ${step.title} · Attention, computed live`;
}

/** A formula wider than the screen scrolls sideways; keyboard users need to be able to reach it. */
function makeScrollersReachable() {
  for (const box of els.step.querySelectorAll('.formula')) {
    if (box.scrollWidth > box.clientWidth + 1) {
      box.tabIndex = 0;
      box.setAttribute('role', 'group');
      box.setAttribute('aria-label', 'Formula (scrolls sideways)');
    } else {
      box.removeAttribute('tabindex');
      box.removeAttribute('role');
      box.removeAttribute('aria-label');
    }
  }
}

function renderNotices() {
  const items = [];
  if (state.computeError) {
    items.push(
      h('div', { class: 'notice is-error', role: 'alert' }, h('strong', {}, 'These settings could not be computed. '), state.computeError.replace(/([^.!?])$/, '$1.'), ' The numbers below are from the last settings that worked.'),
    );
  }
  if (state.linkNotice) items.push(h('div', { class: 'notice', role: 'status' }, state.linkNotice));
  els.notices.replaceChildren(...items);
}

function renderNav(steps, index) {
  const prev = steps[index - 1];
  const next = steps[index + 1];
  const hadFocus = document.activeElement;
  label(els.prev, '← Previous', prev);
  label(els.next, 'Next →', next);
  els.position.textContent = `${index + 1} / ${STEPS.length}`;
  // A button that just became disabled cannot keep the focus: hand it to the other one.
  if (hadFocus === els.next && els.next.disabled) els.prev.focus();
  if (hadFocus === els.prev && els.prev.disabled) els.next.focus();
}

function label(button, text, step) {
  button.disabled = !step;
  button.replaceChildren(...[h('span', { class: 'nav-dir' }, text), step ? h('span', { class: 'nav-title' }, step.title) : null].filter(Boolean));
}

// ---------------------------------------------------------------- events

function wireEvents() {
  window.addEventListener('popstate', () => fromLocation());
  window.addEventListener('hashchange', () => fromLocation());

  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => (fitLedes(els.step), makeScrollersReachable()), 150);
  });

  els.prev.addEventListener('click', () => move(-1));
  els.next.addEventListener('click', () => move(+1));

  document.addEventListener('keydown', (e) => {
    if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
    if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
    const t = e.target;
    if (t instanceof Element && t.closest('input, textarea, select, [contenteditable=""], [contenteditable="true"]')) return;
    const inside = t instanceof Element && els.step.contains(t);
    if (move(e.key === 'ArrowLeft' ? -1 : +1, { focusHeading: inside })) e.preventDefault();
  });

  for (const links of [els.toc, els.here]) {
    links.addEventListener('click', (e) => {
      const link = e.target instanceof Element ? e.target.closest('a[data-step-link]') : null;
      if (!link || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(link.dataset.stepLink, { focusHeading: true });
    });
  }

  // "Try it" buttons of a step: take the reader to the setting (in the drawer, where the settings are one).
  els.step.addEventListener('click', (e) => {
    const chip = e.target instanceof Element ? e.target.closest('button[data-control]') : null;
    const control = chip && CONTROLS[chip.dataset.control];
    const input = control && els.settings.querySelector(`#${control.id}`);
    if (!input) return;
    if (settingsAreDrawer()) openDrawer(chip, input);
    input.scrollIntoView({ block: 'center', behavior: motion() });
    input.focus({ preventScroll: true });
  });

  $('open-settings').addEventListener('click', (e) => (drawerOpen() ? closeDrawer() : openDrawer(e.currentTarget)));
  els.settings.addEventListener('click', (e) => {
    if (e.target instanceof Element && e.target.closest('#close-settings')) closeDrawer();
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && drawerOpen()) {
      e.preventDefault();
      closeDrawer();
    }
  });
  matchMedia(DRAWER).addEventListener('change', () => closeDrawer({ restoreFocus: false }));

  els.settings.addEventListener('input', onSettingsInput);
  els.settings.addEventListener('change', onSettingsInput);
  // Words added and removed in the form, then read like any other edit.
  els.settings.addEventListener('click', (e) => {
    const target = e.target instanceof Element ? e.target : null;
    const remove = target?.closest('[data-remove-word]');
    const next = target?.closest('#add-word') ? addWord(els.settings) : remove ? removeWord(els.settings, Number(remove.dataset.removeWord)) : null;
    if (!next) return;
    onSettingsInput({ type: 'change' });
    next.focus();
  });
  els.settings.addEventListener('click', (e) => {
    if (e.target instanceof Element && e.target.closest('#reset')) resetToBook();
  });

  for (const [button, target] of [
    [$('jump-toc'), () => els.toc.querySelector('#toc-title')],
    [$('jump-settings'), () => els.settings.querySelector('#settings-title')],
    [$('skip'), () => els.step.querySelector('#step-title')],
  ]) {
    button?.addEventListener('click', () => {
      if (button.id === 'jump-settings' && settingsAreDrawer()) return openDrawer(button);
      const el = target();
      if (!el) return;
      el.setAttribute('tabindex', '-1');
      el.focus({ preventScroll: true });
      el.scrollIntoView({ block: 'start', behavior: motion() });
    });
  }
}

const motion = () => (window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth');

// ---------------------------------------------------------------- the settings drawer

// Where the layout has no settings column (phones, tablets), the settings open as a drawer over the lower part
// of the screen, so that the step's numbers stay in sight above it while they are edited (styles.css).
const DRAWER = '(max-width: 74.99rem)';
const settingsAreDrawer = () => matchMedia(DRAWER).matches;
const drawerOpen = () => document.documentElement.classList.contains('settings-open');
let drawerOpener = null;

function openDrawer(opener, focusTarget = null) {
  drawerOpener = opener;
  document.documentElement.classList.add('settings-open');
  $('open-settings').setAttribute('aria-expanded', 'true');
  els.settings.setAttribute('role', 'dialog');
  els.settings.setAttribute('aria-modal', 'false');
  if (!focusTarget) els.settings.querySelector('#settings-title')?.setAttribute('tabindex', '-1');
  (focusTarget ?? els.settings.querySelector('#settings-title'))?.focus({ preventScroll: true });
}

function closeDrawer({ restoreFocus = true } = {}) {
  if (!drawerOpen()) return;
  document.documentElement.classList.remove('settings-open');
  $('open-settings').setAttribute('aria-expanded', 'false');
  els.settings.removeAttribute('role');
  els.settings.removeAttribute('aria-modal');
  if (restoreFocus && drawerOpener?.isConnected) drawerOpener.focus({ preventScroll: true });
  drawerOpener = null;
}

function move(delta, { focusHeading = false } = {}) {
  const target = STEPS[stepIndex(state.step) + delta];
  if (!target) return false;
  navigate(target.id, { focusHeading });
  return true;
}

function onSettingsInput(event) {
  const { settings, errors } = readSettings(els.settings);
  const hadErrors = Object.keys(state.formErrors).length > 0;
  state.formErrors = errors;
  const committed = event?.type === 'change';
  if (Object.keys(errors).length === 0) {
    // 'input' and 'change' both arrive for one edit: compute once per new set of settings.
    const unchanged = !state.computeError && sameSettings(settings, state.settings);
    if (unchanged) {
      if (committed) editing = false;
      if (hadErrors) render({ writeForm: false });
      return;
    }
    const outcome = compute(settings);
    if (outcome.error) {
      state.computeError = outcome.error;
      state.computeFields = outcome.fields;
    } else {
      state.settings = settings;
      state.results = outcome.results;
      state.computeError = null;
      state.computeFields = [];
      state.linkNotice = null;
      const hash = formatHash(state.step, settings);
      if (editing) history.replaceState(null, '', hash);
      else history.pushState(null, '', hash);
      editing = !committed;
    }
  } else if (committed) {
    editing = false;
  }
  const before = shownValues();
  render({ writeForm: false });
  showUpdated(before);
}

/** The values of the step's tensors as shown: name -> data-values text. */
function shownValues() {
  return new Map([...els.step.querySelectorAll('[data-tensor]')].map((el) => [el.dataset.tensor, el.dataset.values]));
}

/**
 * After an edit: the tensors whose numbers changed are briefly marked; where the settings sit beside the step
 * (a wide screen) or in the open drawer, the first of them is scrolled into view if it is not in view already.
 */
function showUpdated(before) {
  const changed = [...els.step.querySelectorAll('[data-tensor]')].filter(
    (el) => before.has(el.dataset.tensor) && before.get(el.dataset.tensor) !== el.dataset.values,
  );
  for (const el of changed) {
    el.classList.remove('is-updated');
    void el.offsetWidth; // restart the animation
    el.classList.add('is-updated');
  }
  const first = changed.find((el) => el.getClientRects().length > 0);
  if (!first) return;
  const rect = first.getBoundingClientRect();
  if (drawerOpen()) {
    // the drawer covers the lower part: the result goes to the top of the screen, above it
    const drawerTop = els.settings.getBoundingClientRect().top;
    if (rect.top < 0 || rect.top > drawerTop - 60) first.scrollIntoView({ block: 'start', behavior: motion() });
    return;
  }
  const besideStep = els.settings.getBoundingClientRect().left >= els.step.getBoundingClientRect().right;
  const bottom = els.prev.closest('.step-nav')?.getBoundingClientRect().top ?? innerHeight;
  if (besideStep && (rect.top > bottom - 80 || rect.bottom < 0)) first.scrollIntoView({ block: 'nearest', behavior: motion() });
}

function resetToBook() {
  state.settings = bookSettings();
  state.results = compute(state.settings).results;
  state.formErrors = {};
  state.computeError = null;
  state.computeFields = [];
  state.linkNotice = null;
  editing = false;
  history.pushState(null, '', formatHash(state.step, state.settings));
  render({ writeForm: true });
  announce('Settings reset to the book’s.');
}
