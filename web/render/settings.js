// The settings panel: token words, their embeddings, seeds, sizes, dropout and the rng profile.
// renderSettings() builds the form once into its container and then shows a view of the state (values,
// per-field errors, a status line); readSettings() turns what is typed into settings plus errors.
// Each control, its label, hint and limits come from the settings' schema (state.js SETTINGS); this file
// only arranges them. Inputs are text fields so that anything typed can be explained, not silently dropped.
import { h } from './dom.js';
import { afterPaint } from './after-paint.js';
import { overflowOf, showOverflow, watchOverflow } from './matrix.js';
import { SETTINGS, MAX_WORDS, zeros, opening, controlId, readControl, problemWith, settingValue, inUse, validateSettings, parseNumber } from '../state.js';
import { inputsLines } from '../python.js';

/** A step's `controls` keys -> the input that sets each, and how the page names it. */
export const CONTROLS = Object.fromEntries(
  Object.entries(SETTINGS).map(([key, setting]) => [key, { id: controlId(key), name: setting.name, tag: setting.tag ?? key }]),
);

// The settings with a control of their own (the words and their numbers are the inputs table's).
export const FIELDS = Object.keys(SETTINGS).filter((key) => !['words', 'numbers'].includes(SETTINGS[key].kind));

/**
 * Where each control stands in the form, by fieldset (the words and their numbers are in the inputs table):
 * every setting of FIELDS once (tests/node/settings-form.test.js), so a new setting needs its place here.
 */
export const FORM_LAYOUT = Object.freeze({
  'above the inputs table': ['inputs', 'd_in', 'inputSeed'],
  'below the inputs table': ['query'],
  'Trainable weights': ['seed', 'seedV2', 'd_out', 'qkv_bias'],
  'Dropout and heads': ['p', 'profile', 'heads', 'context_length'],
});

const tag = (key) => h('span', { class: 'relevant-tag', 'data-tag-for': key, hidden: true }, 'this step');

/** The settings the form describes, and what is wrong with them. */
export function readSettings(container) {
  const read = (key) => {
    const input = container.querySelector(`#${controlId(key)}`);
    return readControl(key, input.type === 'checkbox' ? input.checked : input.value);
  };
  const settings = Object.fromEntries(FIELDS.filter((key) => !SETTINGS[key].get).map((key) => [key, read(key)]));
  const value = (id) => container.querySelector(`#${id}`).value;
  const { n, d } = tableShape(container);
  const typedD = read('d_in');
  const widthProblem = problemWith('d_in', typedD);
  const width = widthProblem ? d : typedD;
  settings.tokens = Array.from({ length: n }, (_, i) => value(`token-${i}`).trim());
  // the table's numbers; a new d_in pads with zeros or drops the last columns (drawn ones are drawn anew)
  settings.embeddings = settings.inputs === 'typed'
    ? Array.from({ length: n }, (_, i) => Array.from({ length: width }, (__, j) => (j < d ? parseNumber(value(`x-${i}-${j}`)) : 0)))
    : zeros(n, width);
  const errors = validateSettings(settings);
  if (widthProblem) errors.d_in = widthProblem; // what was typed, not the width kept
  return { settings, errors };
}

/** Sets (or, for null, removes) an attribute only where it changes: an edit leaves the table's hundreds of fields untouched. */
function setIfChanged(el, name, value) {
  if (el.getAttribute(name) === value) return;
  if (value === null) el.removeAttribute(name);
  else el.setAttribute(name, value);
}

const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);

/** The words and numbers per word the inputs table has now. */
function tableShape(container) {
  const rows = container.querySelectorAll('.inputs-table tbody tr');
  return { n: rows.length, d: rows[0] ? rows[0].querySelectorAll(NUMBER_CELLS).length : 0 };
}

// A typed number is a field; a drawn one is the text of its cell (256 read-only fields at 16 x 16 were half
// the rendering of a seed edit).
const NUMBER_CELLS = 'input.num-input, td.drawn-num';
const cellValue = (el) => (el.tagName === 'INPUT' ? el.value : el.textContent);

// ---------------------------------------------------------------- the form

/** A setting's control as the schema describes it: a text field, a choice or a checkbox, with its label and hint. */
function control(key, attrs = {}) {
  const setting = SETTINGS[key];
  const id = controlId(key);
  const label = h('label', { for: id }, setting.label ?? opening(setting.name));
  const ownTag = setting.tag ? null : tag(id); // a shared tag sits on the fieldset's legend
  const hintText = typeof setting.hint === 'function' ? setting.hint(setting) : setting.hint;
  const hint = hintText ? h('p', { class: 'field-hint', id: `${id}-hint` }, hintText) : null;
  const describedBy = hint ? { 'aria-describedby': `${id}-hint` } : {};
  if (setting.kind === 'flag') {
    return h('div', { class: 'field field-check' }, h('input', { id, name: id, type: 'checkbox', ...describedBy }), h('div', { class: 'field-head' }, label, ownTag), hint);
  }
  if (setting.kind === 'choice') {
    const options = Object.entries(setting.options).map(([v, text]) => h('option', { value: v }, text));
    return h('div', { class: 'field' }, h('div', { class: 'field-head' }, label, ownTag), h('select', { id, name: id, ...describedBy }, ...options), hint);
  }
  const inputmode = setting.kind === 'probability' ? 'decimal' : 'numeric';
  return h(
    'div',
    { class: 'field' },
    h('div', { class: 'field-head' }, label, ownTag),
    h('input', { id, name: id, type: 'text', autocomplete: 'off', spellcheck: 'false', ...describedBy, inputmode, ...attrs }),
    hint,
    h('p', { class: 'field-error', id: `${id}-error`, hidden: true }),
  );
}

// ---------------------------------------------------------------- the inputs table: one row per word

const textInput = (id, attrs = {}) => h('input', { id, name: id, type: 'text', autocomplete: 'off', spellcheck: 'false', ...attrs });

/**
 * The table of words and their numbers, from rows of { word, values } (strings as typed, or numbers);
 * `drawn` shows the numbers as text (torch.rand / torch.randn fill them), each row headed by its word.
 */
function inputsTable(rows, d, drawn) {
  const head = h(
    'tr',
    {},
    h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'remove')),
    h('th', { scope: 'col', class: 'word-col' }, 'word'),
    ...Array.from({ length: d }, (_, j) => h('th', { scope: 'col' }, `d${j}`)),
  );
  const body = rows.map(({ word, values }, i) =>
    h(
      'tr',
      {},
      // the remove button first, so that it stays in sight when many numbers make the table scroll
      h('td', {}, h('button', { type: 'button', class: 'icon-button', 'data-remove-word': String(i), disabled: rows.length <= 1, 'aria-label': `Remove word ${i + 1}` }, '×')),
      // a drawn number's cell has no label of its own: the word heads its row, as d_j its column
      h(drawn ? 'th' : 'td', drawn ? { scope: 'row' } : {}, textInput(`token-${i}`, { 'aria-label': `Word ${i + 1}`, value: word })),
      ...Array.from({ length: d }, (_, j) =>
        drawn
          ? h('td', { id: `x-${i}-${j}`, class: 'drawn-num' }, String(values[j] ?? 0))
          : h('td', {}, textInput(`x-${i}-${j}`, { inputmode: 'decimal', class: 'num-input', value: String(values[j] ?? 0) })),
      ),
    ),
  );
  return h('table', { class: `inputs-table${drawn ? ' is-drawn' : ''}` }, h('caption', { class: 'sr-only' }, 'Token words and their embeddings'), h('thead', {}, head), h('tbody', {}, ...body));
}

/** What the table holds now, as typed: [{ word, values: [strings] }]. */
function typedRows(container) {
  return [...container.querySelectorAll('.inputs-table tbody tr')].map((tr) => ({
    word: tr.querySelector('input[id^="token-"]').value,
    values: [...tr.querySelectorAll(NUMBER_CELLS)].map(cellValue),
  }));
}

// The table scrolls inside its box where it is wider than the settings, and the box shows it as a result's table
// does (watchOverflow): faded edges and a line. Typed numbers widen their column: the table changes size, not its
// box, so the table is watched too.
const inputsOverflowWatch = typeof ResizeObserver === 'function'
  ? new ResizeObserver((seen) => seen.map((e) => overflowOf(e.target.closest('.inputs-box'))).forEach(showOverflow))
  : null;

function replaceTable(container, rows, d, drawn) {
  const box = container.querySelector('.inputs-box');
  const table = inputsTable(rows, d, drawn);
  const old = box.querySelector(':scope > table');
  if (old) inputsOverflowWatch?.unobserve(old);
  box.replaceChildren(table, h('p', { class: 'scroll-hint' }, 'Scroll sideways for more columns'));
  inputsOverflowWatch?.observe(table);
  container.querySelector('#add-word').disabled = rows.length >= MAX_WORDS;
}

/** Adds a word at the end (its numbers 0) and returns its word input. */
export function addWord(container) {
  const rows = typedRows(container);
  if (rows.length >= MAX_WORDS) return null;
  const { d } = tableShape(container);
  rows.push({ word: `word${rows.length + 1}`, values: Array(d).fill('0') });
  replaceTable(container, rows, d, container.querySelector('#inputs-from').value !== 'typed');
  return container.querySelector(`#token-${rows.length - 1}`);
}

/** Removes word i and returns the control to focus next. */
export function removeWord(container, i) {
  const rows = typedRows(container);
  if (rows.length <= 1) return null;
  rows.splice(i, 1);
  const { d } = tableShape(container);
  replaceTable(container, rows, d, container.querySelector('#inputs-from').value !== 'typed');
  return container.querySelector(`[data-remove-word="${Math.min(i, rows.length - 1)}"]`) ?? container.querySelector('#add-word');
}

function build(container) {
  const fieldset = (legend, ...children) => h('fieldset', {}, h('legend', {}, ...legend), ...children);
  const short = { class: 'short-input' };
  const form = h(
    'form',
    { class: 'settings-form', novalidate: true, 'aria-labelledby': 'settings-title' },
    h('div', { class: 'settings-top' },
      h('h2', { class: 'panel-title', id: 'settings-title' }, 'Settings'),
      // shown where the settings are a drawer over the step (app/drawer.js)
      h('button', { type: 'button', class: 'button small', id: 'close-settings' }, 'Done')),
    h('p', { class: 'settings-status', id: 'settings-status', role: 'status' }),
    fieldset(
      ['The input sentence', tag('inputs')],
      h('p', { class: 'field-hint' }, `${SETTINGS.tokens.limits.join(' to ')} words, each with an embedding of d_in numbers.`),
      h('div', { class: 'field-row' }, ...FORM_LAYOUT['above the inputs table'].map((key) => control(key, SETTINGS[key].kind === 'choice' ? undefined : short))),
      h('p', { class: 'drawn-code', id: 'drawn-code' }),
      h('div', { class: 'inputs-box' }),
      h('p', { class: 'settings-actions' }, h('button', { type: 'button', class: 'button small', id: 'add-word' }, '+ Add a word')),
      h('p', { class: 'field-error', id: 'inputs-error', hidden: true }),
      ...FORM_LAYOUT['below the inputs table'].map((key) => control(key, short)),
    ),
    ...['Trainable weights', 'Dropout and heads'].map((legend) => fieldset([legend], ...FORM_LAYOUT[legend].map((key) => control(key)))),
    h('p', { class: 'settings-actions' }, h('button', { id: 'reset', type: 'button', class: 'button' }, 'Reset to the book')),
  );
  form.addEventListener('submit', (e) => e.preventDefault());
  const box = form.querySelector('.inputs-box');
  watchOverflow(box); // scrolled, or the settings column or drawer resized
  container.replaceChildren(form);
  return form;
}

/** What the step's book marks say, in words, so that the status never contradicts them. */
function onThisStep(marks) {
  const { match = 0, differs = 0 } = marks ?? {};
  if (match + differs === 0) return 'This step shows nothing the book prints.';
  if (differs === 0) return `On this step, ${match === 1 ? 'the result the book prints still matches it' : `all ${match} results the book prints still match it`}.`;
  if (match === 0) return `On this step, ${differs === 1 ? 'the result the book prints differs' : `all ${differs} results the book prints differ`} from it.`;
  return `On this step, ${differs} of the ${match + differs} results the book prints differ from it.`;
}

// A new draw changes every drawn number: at 16 x 16, 256 cells whose table is laid out and painted again, in the
// frame that shows the step. More than this many are written once that frame is painted, the table aria-busy
// until then (a seed edit's step first, its echo in the settings a frame later).
const DRAWN_NUMBERS_AT_ONCE = 64;
let drawnNumbersLater = null; // the numbers an edit left for after its frame, until written or replaced

/** Writes the drawn numbers' new texts ([cell, text]) into their cells: now, or after the frame when they are many. */
function writeDrawnNumbers(table, changed) {
  const write = () => {
    for (const [cell, text] of changed) cell.firstChild.data = text; // the text node kept: no new node to lay out
    table?.removeAttribute('aria-busy');
  };
  if (changed.length <= DRAWN_NUMBERS_AT_ONCE) return write();
  table.setAttribute('aria-busy', 'true');
  const mine = (drawnNumbersLater = write);
  afterPaint().then(() => {
    if (drawnNumbersLater !== mine) return;
    drawnNumbersLater = null;
    write();
  });
}

/**
 * @param {HTMLElement} container
 * @param {{ settings: object, writeValues: boolean, errors: object, isBook: boolean, changed: string[],
 *           computeError: string | null, relevant: string[], bookMarks?: { match: number, differs: number } }} view
 *        relevant: the step's `controls`; bookMarks: how many of the step's results match the book's printout
 */
export function renderSettings(container, view) {
  const form = container.querySelector('form.settings-form') ?? build(container);
  // an earlier edit's numbers not yet written: written first, so that what follows starts from what it showed
  const earlier = drawnNumbersLater;
  drawnNumbersLater = null;
  earlier?.();
  const s = view.settings;
  const set = (id, v) => {
    const el = form.querySelector(`#${id}`);
    if (el.value !== String(v)) el.value = String(v);
  };
  const d = s.embeddings[0].length;
  const drawn = s.inputs !== 'typed';
  const shown = tableShape(form);
  const drawnShown = form.querySelector('.inputs-table')?.classList.contains('is-drawn');
  // The table follows the settings when they are written (a link, Back, Reset) and when a new d_in or
  // source has been computed; rows are added and removed in place (addWord, removeWord).
  if (view.writeValues || !form.querySelector('.inputs-table') || shown.d !== d || drawnShown !== drawn) {
    const shownValues = (row) => (drawn ? row.map((v) => v.toFixed(2)) : row);
    const rows = view.writeValues || shown.n !== s.tokens.length
      ? s.tokens.map((word, i) => ({ word, values: shownValues(s.embeddings[i]) }))
      : typedRows(form).map((row, i) => ({ ...row, values: s.embeddings[i] ? shownValues(s.embeddings[i]) : row.values }));
    replaceTable(form, rows, d, drawn);
  } else if (drawn && shown.n === s.tokens.length) {
    // drawn numbers are outputs: show the ones drawn now, each cell read from its row
    const changed = [];
    for (const [i, tr] of form.querySelectorAll('.inputs-table tbody tr').entries()) {
      for (const [j, cell] of tr.querySelectorAll('td.drawn-num').entries()) {
        const text = s.embeddings[i][j].toFixed(2);
        if (cell.textContent !== text) changed.push([cell, text]);
      }
    }
    writeDrawnNumbers(form.querySelector('.inputs-table'), changed);
  }
  if (view.writeValues) {
    for (const key of FIELDS) {
      const input = form.querySelector(`#${controlId(key)}`);
      if (input.type === 'checkbox') input.checked = settingValue(key, s);
      else set(input.id, settingValue(key, s) ?? '');
    }
  }
  for (const key of FIELDS) form.querySelector(`#${controlId(key)}`).closest('.field').hidden = !inUse(key, s);
  // written only where it changes, as everything below: an edit restyles only what it changed
  const drawnCode = form.querySelector('#drawn-code');
  drawnCode.hidden = !drawn;
  const code = drawn ? inputsLines(s).join('; ') : '';
  if (drawnCode.textContent !== code) drawnCode.replaceChildren(drawn ? h('code', {}, code) : '');
  // The embedding inputs are named after the words they belong to (each row's fields read from its row: 256
  // look-ups by id on every keystroke were a tenth of its script at 16 x 16).
  for (const [i, tr] of form.querySelectorAll('.inputs-table tbody tr').entries()) {
    const word = tr.querySelector(`#token-${i}`).value.trim() || `word ${i + 1}`;
    for (const [j, input] of tr.querySelectorAll('input.num-input').entries()) setIfChanged(input, 'aria-label', `“${word}”, d${j}`);
    setIfChanged(tr.querySelector(`[data-remove-word="${i}"]`), 'aria-label', `Remove “${word}”`);
  }

  // The settings the current step is about.
  const relevant = new Set((view.relevant ?? []).map((k) => CONTROLS[k]?.tag).filter(Boolean));
  for (const el of form.querySelectorAll('[data-tag-for]')) {
    const on = relevant.has(el.dataset.tagFor);
    if (el.hidden === on) el.hidden = !on;
    el.closest('.field, fieldset').classList.toggle('is-relevant', on);
  }

  // Per-field errors: aria-invalid, a message the field points at. A combination the core rejects is
  // shown beside each setting it is about.
  const errors = { ...(view.errors ?? {}) };
  if (view.computeError) for (const key of view.computeFields ?? []) errors[CONTROLS[key]?.id ?? key] ??= view.computeError;
  const errorLines = new Map([...form.querySelectorAll('.field-error[id]')].map((el) => [el.id, el])); // read once, not per field
  for (const input of form.querySelectorAll('input[type="text"]')) {
    const message = errors[input.id];
    const own = errorLines.get(`${input.id}-error`);
    const shared = own ? null : 'inputs-error';
    setIfChanged(input, 'aria-invalid', message ? 'true' : null);
    const described = [own ? `${input.id}-hint` : null, message ? (own ? own.id : shared) : null].filter(Boolean).join(' ');
    setIfChanged(input, 'aria-describedby', described || null);
    if (own) {
      if (own.textContent !== (message ?? '')) own.textContent = message ?? '';
      if (own.hidden !== !message) own.hidden = !message;
    }
  }
  const gridMessages = Object.entries(errors)
    .filter(([id]) => id.startsWith('token-') || id.startsWith('x-') || id === 'inputs-count')
    .map(([, m]) => m);
  const gridError = form.querySelector('#inputs-error');
  if (gridMessages.length || gridError.firstChild) gridError.replaceChildren(...gridMessages.map((m) => h('span', { class: 'error-line' }, m)));
  if (gridError.hidden !== !gridMessages.length) gridError.hidden = !gridMessages.length;

  const status = form.querySelector('#settings-status');
  const nErrors = Object.keys(view.errors ?? {}).length;
  status.className = `settings-status${nErrors || view.computeError ? ' is-error' : view.isBook ? ' is-book' : ' is-changed'}`;
  const text = nErrors
    ? `${nErrors === 1 ? 'One field needs' : `${nErrors} fields need`} fixing. The page keeps the last numbers that worked.`
    : view.computeError
      ? `These settings could not be computed: ${sentence(view.computeError)} The page keeps the last numbers that worked.`
      : view.isBook
        ? 'The book’s settings: every number should match what the book prints.'
        : `Changed from the book: ${view.changed.join(', ')}. ${onThisStep(view.bookMarks)}`;
  if (status.textContent !== text) status.textContent = text; // a live region: speak only on change
}
