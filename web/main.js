// The page: keeps the one state object (which step, which settings, the results computed from them) in step
// with the URL hash, redraws the step, the contents and the settings panel from it, and wires the page's
// events to it. Every number on the page comes from computeChapter(torch, settings). Its other concerns are
// modules of app/: starting (start.js), the history (history.js), the settings drawer (drawer.js) and
// outlining what an edit changed (highlight.js).
import { parseHash, formatHash, encodeAnswers, isBook, bookSettings, sameSettings, sameNumbers, repairSettings, changedNames, quoted, BOOK } from './state.js';
import { renderStep, watchLedes } from './render/step.js';
import { answersFromLink } from './render/predict.js';
import { resolveStep } from './steps/words.js';
import { renderToc, renderHere, revealCurrent, currentLink } from './render/toc.js';
import { renderSettings, readSettings, addWord, removeWord, CONTROLS } from './render/settings.js';
import { installTakeApart } from './render/takeapart.js';
import { typesetPending } from './render/formula.js';
import { h } from './render/dom.js';
import * as chapter from './chapter/index.js';
import { STEPS, shownResults } from './steps/index.js';
import { loadCore, loadKatex } from './app/start.js';
import { writeHash, writeEdit, endEdit } from './app/history.js';
import { installDrawer } from './app/drawer.js';
import { shownValues, showUpdated, scrollBehavior } from './app/highlight.js';
import { warmUpNotebook } from './app/warm-up.js';
import { showStep, showLater, watchFigures, figuresOffScreen } from './app/patch.js';
import { computeFirst } from './app/compute.js';
import { afterPaint } from './render/after-paint.js';

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
  answers: {}, // the questions answered, { questionId: guess }: in the link, which can share a quiz (render/predict.js)
  finishChapter: null, // computes the sections the step shown did not need: while the page starts (startChapter), after a seed edit (computeFirst)
  openBooks: new Set(),
  openMistakes: new Set(), // the "What if…" switches that are on
};

let torch = null;
let katex; // undefined while KaTeX loads (formulas wait), null if it failed (formulas shown as TeX)
let takeApart = null;
let drawer = null;

// ---------------------------------------------------------------- start

boot();

async function boot() {
  // (The single file may hold its first step drawn at build time: then this module runs only once that step is
  // painted, scripts/prerender-single-file.mjs.)
  // The page's scripts are one bundle; the WebAssembly starts loading at once, KaTeX once the numbers are shown.
  torch = await loadCore({ step: els.step, nav: [els.prev, els.next], backend: els.backend });
  if (!torch) return;
  takeApart = installTakeApart(els.step, els.panel, (name) => state.results?.[name]);
  // The step the link names comes first: computed only as far as it needs and drawn alone. The rest of the
  // chapter, the contents, the settings and the step buttons (hidden until data-ready) follow once it is painted.
  const link = location.hash;
  fromLocation({ initial: true, start: true });
  performance.mark('page:first-step');
  const showRest = firstScreenFirst(els.step);
  els.step.removeAttribute('aria-busy');
  await afterPaint();
  // the link's canonical form, written after the paint (an address-bar update the first frame need not wait for),
  // unless another link was followed meanwhile: fromLocation() below takes that one
  if (location.hash === link) writeHash(formatHash(state.step, state.settings, state.answers), { replace: true });
  showRest();
  finishStart(link);
  wireEvents();
  fromLocation(); // a link followed while the page started
  performance.mark('page:ready');
  document.documentElement.dataset.ready = 'true';

  katex = await loadKatex();
  typesetPending(els.step, katex);
  watchScrollers();
  warmUpNotebook(); // while the learner reads, the notebook's files come into the cache
}

/**
 * The first frame holds the first screen only: when the step's results already reach below the window, the parts
 * after them (how the numbers are made, the rest of the explanation) are left out of it (data-first-screen, in
 * styles.css) and shown by the function returned, after that frame: the frame then styles, lays out and asks the
 * system for the fonts of what can be seen (each such request a wait for the browser process), not of the whole
 * step. The results' place is the layout that frame needs anyway.
 */
function firstScreenFirst(host) {
  const results = host.querySelector(':scope > article > section.results');
  if (!results?.nextElementSibling) return () => {};
  host.dataset.firstScreen = '';
  const show = () => delete host.dataset.firstScreen;
  if (results.getBoundingClientRect().bottom >= window.innerHeight) return show;
  show(); // the parts after the results are on the first screen: all of the step in the first frame, as before
  return () => {};
}

/** The start after the first step is on screen: the rest of the chapter, then the panels around the step. */
function finishStart(link) {
  const finish = state.finishChapter;
  state.finishChapter = null;
  try {
    if (finish) state.results = timed('page:compute', finish);
  } catch {
    // settings a later section rejects (a link's context_length, heads): the whole chapter again, which takes the
    // book's values for those and says so, as for any link
    state.results = null;
    fromLocation({ initial: true, hash: link });
    return;
  }
  renderPanels({ writeForm: true, article: els.step.firstElementChild });
}

// ---------------------------------------------------------------- computing

/** Runs fn as a named performance measure ('page:compute', 'page:draw-step', ...), which the benchmark reads. */
function timed(name, fn) {
  const start = performance.now();
  try {
    return fn();
  } finally {
    performance.measure(name, { start, end: performance.now() });
  }
}

/**
 * The chapter for `settings`; with `first` (result names), the part that makes them, and finish() for the rest:
 * the sections up to the last that `first` needs, or with `seedEdit` (settings that differ from those computed
 * last in seeds only, so that no section can reject them) only the sections `first` needs.
 */
function compute(settings, first = null, { seedEdit = false } = {}) {
  try {
    const { results, finish = null } = timed('page:compute', () =>
      !first ? { results: chapter.computeChapter(torch, settings) }
        : seedEdit ? computeFirst(torch, settings, first) : chapter.startChapter(torch, settings, first));
    // Drawn embeddings: the settings keep the numbers drawn, for the form and the code to show them.
    if (settings.inputs !== 'typed') settings.embeddings = results.inputs.values.map((row) => [...row]);
    return { results, finish };
  } catch (error) {
    // The core rejecting a combination of settings: its message, and the settings it is about (error.settings).
    if (error?.name === 'AttentionError') return { error: error.message, fields: error.settings ?? [] };
    return { error: `Unexpected error: ${error?.message ?? error}`, fields: [] };
  }
}

/** The results a step needs drawn at once: those it shows and those its picture draws, and the inputs. */
const firstResults = (step, settings) => [...shownResults(step, settings), step.context, step.weights, 'inputs'].filter(Boolean);

/** Settings from a link, with anything unreadable or invalid replaced by the book's value (and a notice naming it). */
function fromLink({ settings, dropped }) {
  const replaced = [...dropped, ...repairSettings(settings)];
  const list = replaced.length > 1 ? `${replaced.slice(0, -1).join(', ')} and ${replaced.at(-1)}` : replaced[0];
  return { settings, notice: replaced.length ? `This link’s ${list} could not be used; the page uses the book’s settings there instead.` : null };
}

// ---------------------------------------------------------------- the URL

const stepIndex = (id) => STEPS.findIndex((s) => s.id === id);

/**
 * Reads the hash into the state (first load, a pasted link, back/forward). `start`: the page's first step, with
 * the chapter computed as far as it needs and the panels left for finishStart(); `hash`: the link it came from.
 */
function fromLocation({ initial = false, start = false, hash = location.hash } = {}) {
  const parsed = parseHash(hash);
  const known = stepIndex(parsed.step) >= 0;
  const id = known ? parsed.step : STEPS[0].id;
  // A step the page does not have is named, as a setting it cannot use is; no step at all is the first one.
  const stepNotice = parsed.step && !known ? `This link’s step “${quoted(parsed.step)}” is not a step of this page, so the first step is shown.` : null;
  const withStepNotice = (notice) => [stepNotice, notice].filter(Boolean).join(' ') || null;
  const unchangedSettings = state.results && !parsed.dropped.length && sameSettings(parsed.settings, state.settings);
  const stepChanged = id !== state.step;
  const answersChanged = encodeAnswers(parsed.answers) !== encodeAnswers(state.answers);
  if (!unchangedSettings) {
    const { settings, notice } = fromLink(parsed);
    // Back / Forward (or a pasted link) brought other settings: say so, never change numbers silently.
    state.linkNotice = withStepNotice(notice) ?? (initial ? null : 'These are the settings of this point in the page’s history: Back and Forward undo and redo settings changes as well as steps.');
    endEdit();
    const step = STEPS[stepIndex(id)];
    let outcome = compute(settings, start ? firstResults(step, settings) : null);
    if (outcome.error && outcome.fields.length) {
      // A link whose combination a module rejects: the book's value for what it names, and why.
      for (const key of outcome.fields) settings[key] = BOOK[key];
      state.linkNotice = withStepNotice(`This link’s ${outcome.fields.join(' and ')} could not be used (${outcome.error}), so the book’s value is shown instead.`);
      outcome = compute(settings);
    }
    if (outcome.error) {
      state.computeError = outcome.error;
      state.computeFields = outcome.fields;
      if (!state.results) {
        // Nothing shown yet: fall back to the book so the page is never blank.
        // one settings object for both, so a later rename compares against what was computed
        const book = bookSettings();
        outcome = compute(book);
        state.settings = book;
        state.results = outcome.results;
      }
    } else {
      state.settings = settings;
      state.results = outcome.results;
      state.finishChapter = outcome.finish;
      state.computeError = null;
      state.computeFields = [];
    }
    state.formErrors = {};
  } else if (stepNotice) {
    state.linkNotice = stepNotice;
  } else if (!stepChanged && !answersChanged) {
    return;
  }
  // the link's answers, for the questions of these numbers; one that cannot be used is named and asked again
  const read = answersFromLink(parsed.answers, STEPS.map((s) => s.predict).filter(Boolean), state.results, state.settings);
  state.answers = read.answers;
  if (read.notice && !state.linkNotice?.includes(read.notice)) state.linkNotice = [state.linkNotice, read.notice].filter(Boolean).join(' ');
  state.step = id;
  // Canonical hash: an unknown step becomes the first, a repaired link shows what is really used (the page's first
  // step: once it is painted, boot()).
  if (!start) writeHash(formatHash(id, state.settings, state.answers), { replace: true });
  render({ writeForm: !unchangedSettings, panels: !start });
  if (!initial && stepChanged) window.scrollTo({ top: 0 });
}

function navigate(id, { focusHeading = false } = {}) {
  if (stepIndex(id) < 0) return;
  writeHash(formatHash(id, state.settings, state.answers));
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

let revealedStep = null; // the step the contents were last scrolled to
// The figures an edit left for after its frame, [figure, draw()] (app/patch.js showLater), until drawn.
let laterFigures = null;

/** renamed: the results are the ones shown, with only words renamed (their figures get new labels, not drawn). */
/** panels: the contents, the settings and the step buttons too (the page's first step is painted without them). */
/** offScreen: the names of the figures off screen, drawn after this frame (an edit that stays on its step). */
function render({ writeForm, renamed = false, panels = true, offScreen = null }) {
  if (laterFigures) {
    // an earlier edit's figures still to draw: this edit draws them anew (now or later), another step replaces
    // them; anything else draws them first, so that no figure keeps the last numbers
    const figures = laterFigures;
    laterFigures = null;
    if (!offScreen && els.step.firstElementChild?.dataset.step === state.step) showLater(figures);
  }
  const index = stepIndex(state.step);
  // its title, prose and formulas that name sizes, written for these settings
  const step = resolveStep(STEPS[index], state.settings);
  takeApart.hide();
  const book = isBook(state.settings);
  const drawStart = performance.now();
  const draw = (keepFigures, later = null) => {
    try {
      return renderStep(step, {
        results: state.results,
        settings: state.settings,
        isBook: book,
        index,
        total: STEPS.length,
        katex,
        openBooks: state.openBooks,
        openMistakes: state.openMistakes,
        onBookToggle: (name, open) => (open ? state.openBooks.add(name) : state.openBooks.delete(name)),
        printInFull,
        renamed: keepFigures,
        later,
        answers: state.answers,
        onAnswer,
      });
    } catch (error) {
      return h(
        'article',
        { class: 'step', 'data-step': step.id, 'data-section': step.section },
        h('h2', { id: 'step-title', tabindex: '-1' }, step.title ?? step.id),
        h('p', { class: 'notice is-error', role: 'alert' }, `This step could not be drawn: ${error.message}`),
      );
    }
  };
  // the same step for other numbers: updated in place (a computing edit writes its tables' numbers into those
  // shown); with figures kept, or left for later, only where the step shows them
  const later = [];
  const article = (renamed && showStep(els.step, draw(true))) || (offScreen && showStep(els.step, draw(false, offScreen), later)) ||
    showStep(els.step, draw(false));
  if (later.length) laterFigures = later;
  watchFigures(els.step);
  watchLedes(els.step);
  watchScrollers();
  performance.measure('page:draw-step', { start: drawStart, end: performance.now() });
  renderNotices();
  document.title = `${step.section} ${step.title} · Attention, computed live`;
  if (panels) renderPanels({ writeForm, article });
}

/** The contents and the line saying where the step is: links that carry the settings and the answers. */
function renderContents(steps = STEPS.map((s) => resolveStep(s, state.settings)), step = steps[stepIndex(state.step)]) {
  const view = { steps, current: step.id, settings: state.settings, answers: state.answers };
  renderToc(els.toc, view);
  renderHere(els.here, view);
}

/** The contents, the line saying where the step is, the settings and the step buttons, around `article`. */
function renderPanels({ writeForm, article }) {
  const index = stepIndex(state.step);
  const steps = STEPS.map((s) => resolveStep(s, state.settings)); // every title, as these settings word them
  const step = steps[index];
  const panelsStart = performance.now();
  renderContents(steps, step);
  // only when the step is another: an edit leaves the contents where they are (and the page unmeasured)
  if (step.id !== revealedStep) revealCurrent(els.toc);
  revealedStep = step.id;
  renderSettings(els.settings, {
    settings: state.settings,
    writeValues: writeForm,
    errors: state.formErrors,
    isBook: isBook(state.settings),
    changed: changedNames(state.settings),
    computeError: state.computeError,
    computeFields: state.computeFields,
    relevant: step.controls ?? [],
    bookMarks: bookMarks(article),
  });
  renderNav(steps, index);
  performance.measure('page:draw-panels', { start: panelsStart, end: performance.now() });
}

/** How many of the step's tensors match the book's printout and how many differ. */
const bookMarks = (article) => ({
  match: article.querySelectorAll('[data-book="match"]').length,
  differs: article.querySelectorAll('[data-book="differs"]').length,
});

/** str(torch.tensor(values)) with torch.set_printoptions(profile='full'), then the defaults again (the page's printouts use them); null if it fails. */
function printInFull(values) {
  try {
    torch.setPrintOptions({ profile: 'full' });
    return torch.tensor(values).toString();
  } catch {
    return null;
  } finally {
    torch.setPrintOptions({ profile: 'default' });
  }
}

/** A formula wider than the screen scrolls sideways; keyboard users need to be able to reach it. */
function makeScrollerReachable(box) {
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

// Checked when the browser has laid the formulas out anyway (and again when a font arrives): reading their
// widths right after a step is drawn would lay the whole step out an extra time on every edit.
const scrollerWatch = typeof ResizeObserver === 'function'
  ? new ResizeObserver((seen) => seen.map(({ target }) => target).forEach(makeScrollerReachable))
  : null;
document.fonts?.addEventListener('loadingdone', () => els.step.querySelectorAll('.formula').forEach(makeScrollerReachable));

/** Watches the formulas of the step now drawn (in place of the last step's). */
function watchScrollers() {
  scrollerWatch?.disconnect();
  for (const box of els.step.querySelectorAll('.formula')) scrollerWatch?.observe(box);
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
  const position = `${index + 1} / ${STEPS.length}`;
  if (els.position.textContent !== position) els.position.textContent = position; // an edit leaves it as it is
  // A button that just became disabled cannot keep the focus: hand it to the other one.
  if (hadFocus === els.next && els.next.disabled) els.prev.focus();
  if (hadFocus === els.prev && els.prev.disabled) els.next.focus();
}

function label(button, text, step) {
  button.disabled = !step;
  const next = [h('span', { class: 'nav-dir' }, text), step ? h('span', { class: 'nav-title' }, step.title) : null].filter(Boolean);
  // written when it changes (another step, a title that names a word), not on every edit
  if (next.length !== button.children.length || next.some((el, i) => !el.isEqualNode(button.children[i]))) button.replaceChildren(...next);
}

// ---------------------------------------------------------------- events

function wireEvents() {
  window.addEventListener('popstate', () => fromLocation());
  window.addEventListener('hashchange', () => fromLocation());
  // "Use these settings" (render/diagnose.js): a link's step and settings taken as the learner's own choice
  window.addEventListener('attention:use-link', ({ detail: hash }) => {
    writeHash(hash);
    fromLocation({ initial: true });
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
    if (drawer.isDrawer()) drawer.open(chip, input);
    input.scrollIntoView({ block: 'center', behavior: scrollBehavior() });
    input.focus({ preventScroll: true });
  });

  drawer = installDrawer(els.settings, $('open-settings'));

  els.settings.addEventListener('input', onSettingsEvent);
  els.settings.addEventListener('change', onSettingsEvent);
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
    // the contents open at the current step, not at their top
    [$('jump-toc'), () => currentLink(els.toc) ?? els.toc.querySelector('#toc-title')],
    [$('jump-settings'), () => els.settings.querySelector('#settings-title')],
    [$('skip'), () => els.step.querySelector('#step-title')],
  ]) {
    button.addEventListener('click', () => {
      if (button.id === 'jump-settings' && drawer.isDrawer()) return drawer.open(button);
      const el = target();
      if (!el) return;
      const link = el.matches('a[href]');
      if (!link) el.setAttribute('tabindex', '-1'); // a heading takes focus; a link keeps its place in the Tab order
      el.focus({ preventScroll: true });
      el.scrollIntoView({ block: link ? 'center' : 'start', behavior: scrollBehavior() });
    });
  }
}

// ---------------------------------------------------------------- moving and editing

function move(delta, { focusHeading = false } = {}) {
  const target = STEPS[stepIndex(state.step) + delta];
  if (!target) return false;
  navigate(target.id, { focusHeading });
  return true;
}

// Typing reads the form once per frame: a burst of keystrokes computes and draws once, with all of them.
// A committed edit ('change') is read at once, with any keystroke still waiting.
let pendingInput = 0;
function onSettingsEvent(event) {
  if (event.type === 'input') {
    pendingInput ||= requestAnimationFrame(() => {
      pendingInput = 0;
      onSettingsInput({ type: 'input' });
    });
    return;
  }
  cancelAnimationFrame(pendingInput);
  pendingInput = 0;
  onSettingsInput(event);
}

function onSettingsInput(event) {
  const { settings, errors } = readSettings(els.settings);
  const hadErrors = Object.keys(state.formErrors).length > 0;
  state.formErrors = errors;
  const committed = event?.type === 'change';
  let renamed = false; // only words' text changed: the results are kept, with the new words
  if (Object.keys(errors).length === 0) {
    // 'input' and 'change' both arrive for one edit: compute once per new set of settings.
    const unchanged = !state.computeError && sameSettings(settings, state.settings);
    if (unchanged) {
      if (committed) endEdit();
      if (hadErrors) render({ writeForm: false });
      return;
    }
    renamed = !state.computeError && renameWords(settings);
    // a seed edit computes first what the step shows (and what that reads), the rest once the step is painted
    const seedEdit = !state.computeError && !renamed && sameSettings({ ...settings, inputSeed: state.settings.inputSeed, seed: state.settings.seed, seedV2: state.settings.seedV2 }, state.settings);
    const outcome = renamed ? {} : compute(settings, seedEdit ? firstResults(STEPS[stepIndex(state.step)], settings) : null, { seedEdit });
    if (outcome.error) {
      state.computeError = outcome.error;
      state.computeFields = outcome.fields;
    } else {
      if (!renamed) {
        state.settings = settings;
        state.results = outcome.results;
        state.finishChapter = outcome.finish;
      }
      state.computeError = null;
      state.computeFields = [];
      state.linkNotice = null;
      writeEdit(formatHash(state.step, state.settings, state.answers), { committed });
    }
  } else if (committed) {
    endEdit();
  }
  const before = timed('page:highlight', () => shownValues(els.step));
  // A computing edit draws the figures on screen first and those off screen once that frame is painted.
  const computed = !renamed && !state.computeError && Object.keys(errors).length === 0;
  render({ writeForm: false, renamed, offScreen: computed ? figuresOffScreen(els.step) : null });
  const outlined = timed('page:highlight', () => showUpdated(before, highlighted()));
  if (laterFigures) drawLater(laterFigures, outlined);
  if (state.finishChapter) finishLater(state.finishChapter, state.results);
}

const highlighted = () => ({ step: els.step, settings: els.settings, nav: els.prev.closest('.step-nav'), drawerOpen: drawer.isOpen() });
// in idle time, or at once where the browser has no idle callbacks
const whenIdle = (fn) => (window.requestIdleCallback ? requestIdleCallback(fn, { timeout: 100 }) : setTimeout(fn));

/**
 * Computes the rest of the chapter after a seed edit (compute), in idle time once its step is painted, unless
 * other results have replaced those it finishes by then.
 */
function finishLater(finish, results) {
  afterPaint().then(() => whenIdle(() => {
    if (state.finishChapter !== finish || state.results !== results) return;
    state.finishChapter = null;
    try {
      state.results = timed('page:compute-rest', finish);
    } catch {
      // no section rejects a seed, but if one does: the whole chapter again from the link, as a link is computed
      state.results = null;
      fromLocation({ initial: true });
    }
  }));
}

/**
 * Draws an edit's off-screen figures once its frame is painted, in idle time, unless another render took them
 * first (a keystroke more: that edit draws them). Outlined as changed as the others were; scrolled to only if
 * none of those changed.
 */
function drawLater(figures, outlined) {
  afterPaint().then(() => whenIdle(() => {
    if (laterFigures !== figures) return;
    laterFigures = null;
    const before = new Map(figures.map(([figure]) => [figure.dataset.tensor, figure.dataset.values]));
    const article = els.step.firstElementChild;
    const marks = JSON.stringify(bookMarks(article));
    timed('page:draw-later', () => showLater(figures));
    showUpdated(before, { ...highlighted(), scroll: !outlined });
    // the settings say whether the step's numbers match the book's: written again if a figure drawn now changed that
    if (JSON.stringify(bookMarks(article)) !== marks) renderPanels({ writeForm: false, article });
  }));
}

/**
 * A word renamed (its text only) changes no number: the results are kept and renamed instead of computed again.
 * The chapter labels its results' rows and columns, and names words in its take-apart text, with the very array
 * of words of the settings it computed (chapter/context.js), so the new words written into that array rename
 * them everywhere. False (compute) when the numbers change, or when the results are labelled with another array.
 */
function renameWords(settings) {
  const words = state.settings.tokens;
  if (!sameNumbers(settings, state.settings) || state.results?.inputs?.rows !== words) return false;
  words.splice(0, words.length, ...settings.tokens);
  state.settings = { ...settings, tokens: words, embeddings: state.settings.embeddings }; // drawn numbers stay the drawn ones
  return true;
}

/** A question answered (null: asked again): kept in the state and the link, so that a link shares the quiz. */
function onAnswer(id, guess) {
  const { [id]: _, ...others } = state.answers;
  state.answers = guess === null ? others : { ...others, [id]: guess };
  writeHash(formatHash(state.step, state.settings, state.answers), { replace: true });
  renderContents(); // their links carry the answers too
}

function resetToBook() {
  state.settings = bookSettings();
  state.results = compute(state.settings).results;
  state.finishChapter = null;
  state.formErrors = {};
  state.computeError = null;
  state.computeFields = [];
  state.linkNotice = null;
  endEdit();
  writeHash(formatHash(state.step, state.settings, state.answers));
  render({ writeForm: true });
  announce('Settings reset to the book’s.');
}
