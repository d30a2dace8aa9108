// The settings panel: token words, their embeddings, seeds, sizes, dropout and the rng profile.
// renderSettings() builds the form once into its container and then shows a view of the state (values,
// per-field errors, a status line); readSettings() turns what is typed into settings plus errors.
// Inputs are text fields so that anything typed can be explained, not silently dropped.
import { h } from './dom.js';
import { BOOK, MAX_WORDS, MAX_D_IN, zeros } from '../state.js';
import { inputsLines } from '../python.js';

const MAX_WORD = 48;
const D_IN_MESSAGE = `d_in must be a whole number from 1 to ${MAX_D_IN}.`;
const LIMITS = { d_out: [1, 64], heads: [1, 16], d_in: [1, MAX_D_IN], context_length: [1, 1024] };
const SOURCE_NAMES = { typed: 'typed here: torch.tensor([...])', rand: 'drawn: torch.rand(n, d_in)', randn: 'drawn: torch.randn(n, d_in)' };

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const INTEGER = /^[+-]?\d+$/;

function parseNumber(text) {
  const t = String(text).trim().replace(/^\u2212/, '-');
  return NUMBER.test(t) ? Number(t) : NaN;
}

/** A step's `controls` keys -> the input that sets each, and a short name for it. */
export const CONTROLS = {
  tokens: { id: 'token-0', name: 'the words', tag: 'inputs' },
  embeddings: { id: 'x-0-0', name: 'the embeddings', tag: 'inputs' },
  inputs: { id: 'inputs-from', name: 'where the embeddings come from', tag: 'inputs' },
  context_length: { id: 'context_length', name: 'context_length', tag: 'context_length' },
  seed: { id: 'seed', name: 'seed', tag: 'seed' },
  seedV2: { id: 'seedV2', name: 'seed v2', tag: 'seedV2' },
  d_out: { id: 'd_out', name: 'd_out', tag: 'd_out' },
  heads: { id: 'heads', name: 'heads', tag: 'heads' },
  p: { id: 'p', name: 'dropout p', tag: 'p' },
  qkv_bias: { id: 'qkv_bias', name: 'qkv_bias', tag: 'qkv_bias' },
  profile: { id: 'profile', name: 'random numbers', tag: 'profile' },
};

const tag = (key) => h('span', { class: 'relevant-tag', 'data-tag-for': key, hidden: true }, 'this step');

// ---------------------------------------------------------------- validation (shared by the form and links)

const wordOf = (s, i) => (typeof s.tokens[i] === 'string' && s.tokens[i].trim()) || `word ${i + 1}`;

/** Problems with settings, as { fieldId: message }; empty when they can be computed. */
export function validateSettings(s) {
  const errors = {};
  if (s.tokens.length < 1 || s.tokens.length > MAX_WORDS) errors['inputs-count'] = `The sentence needs 1 to ${MAX_WORDS} words.`;
  const d = s.embeddings[0]?.length ?? 0;
  if (!inRange(d, LIMITS.d_in)) errors.d_in = D_IN_MESSAGE;
  if (s.inputs !== 'typed' && !Number.isSafeInteger(s.inputSeed)) errors.inputSeed = 'The seed for the embeddings must be a whole number (like 123).';
  if (s.context_length !== null) {
    const [lo, hi] = LIMITS.context_length;
    if (!Number.isInteger(s.context_length) || s.context_length < lo || s.context_length > hi) {
      errors.context_length = `context_length must be empty (the number of words) or a whole number from ${lo} to ${hi}.`;
    }
  }
  s.tokens.forEach((word, i) => {
    if (typeof word !== 'string' || word.trim() === '') errors[`token-${i}`] = `Word ${i + 1} is empty: type a word.`;
    else if (word.length > MAX_WORD) errors[`token-${i}`] = `Word ${i + 1} is longer than ${MAX_WORD} characters.`;
  });
  if (s.inputs === 'typed') s.embeddings.forEach((row, i) =>
    row.forEach((v, j) => {
      if (!Number.isFinite(v)) errors[`x-${i}-${j}`] = `The embedding of “${wordOf(s, i)}”, d${j}, is not a number.`;
    }),
  );
  for (const key of ['seed', 'seedV2']) {
    const v = s[key];
    if (!Number.isSafeInteger(v)) errors[key] = `${key === 'seed' ? 'Seed' : 'Seed v2'} must be a whole number (like ${BOOK[key]}).`;
  }
  for (const key of ['d_out', 'heads']) {
    const [lo, hi] = LIMITS[key];
    const v = s[key];
    if (!Number.isInteger(v) || v < lo || v > hi) {
      errors[key] = `${key === 'd_out' ? 'd_out' : 'The number of heads'} must be a whole number from ${lo} to ${hi}.`;
    }
  }
  if (!Number.isFinite(s.p) || s.p < 0 || s.p >= 1) errors.p = 'Dropout p must be a number from 0 up to (not including) 1, like 0.5.';
  return errors;
}

/** The settings the form describes, and what is wrong with them. */
export function readSettings(container) {
  const value = (id) => container.querySelector(`#${id}`).value;
  const integer = (id) => {
    const t = value(id).trim().replace(/^\u2212/, '-');
    return INTEGER.test(t) ? Number(t) : NaN;
  };
  const { n, d } = tableShape(container);
  const typedD = integer('d_in');
  const inputs = value('inputs-from');
  const settings = {
    tokens: Array.from({ length: n }, (_, i) => value(`token-${i}`).trim()),
    // the table's numbers; a new d_in pads with zeros or drops the last columns (drawn ones are drawn anew)
    embeddings: inputs === 'typed'
      ? Array.from({ length: n }, (_, i) => Array.from({ length: inRange(typedD, LIMITS.d_in) ? typedD : d }, (__, j) => (j < d ? parseNumber(value(`x-${i}-${j}`)) : 0)))
      : zeros(n, inRange(typedD, LIMITS.d_in) ? typedD : d),
    inputs,
    inputSeed: integer('inputSeed'),
    context_length: value('context_length').trim() === '' ? null : integer('context_length'),
    seed: integer('seed'),
    seedV2: integer('seedV2'),
    profile: value('profile') === 'mkl' ? 'mkl' : 'default',
    p: parseNumber(value('p')),
    d_out: integer('d_out'),
    heads: integer('heads'),
    qkv_bias: container.querySelector('#qkv_bias').checked,
  };
  const errors = validateSettings(settings);
  if (!inRange(typedD, LIMITS.d_in)) errors.d_in = D_IN_MESSAGE; // what was typed, not the width kept
  return { settings, errors };
}

const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);

const inRange = (v, [lo, hi]) => Number.isInteger(v) && v >= lo && v <= hi;

/** The words and numbers per word the inputs table has now. */
function tableShape(container) {
  const rows = container.querySelectorAll('.inputs-table tbody tr');
  return { n: rows.length, d: rows[0] ? rows[0].querySelectorAll('input.num-input').length : 0 };
}

// ---------------------------------------------------------------- the form

function field(id, label, hint, attrs = {}) {
  return h(
    'div',
    { class: 'field' },
    h('div', { class: 'field-head' }, h('label', { for: id }, label), tag(id)),
    h('input', { id, name: id, type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `${id}-hint`, ...attrs }),
    h('p', { class: 'field-hint', id: `${id}-hint` }, hint),
    h('p', { class: 'field-error', id: `${id}-error`, hidden: true }),
  );
}

// ---------------------------------------------------------------- the inputs table: one row per word

const textInput = (id, attrs = {}) => h('input', { id, name: id, type: 'text', autocomplete: 'off', spellcheck: 'false', ...attrs });

/**
 * The table of words and their numbers, from rows of { word, values } (strings as typed, or numbers);
 * `drawn` makes the numbers read-only (torch.rand / torch.randn fill them).
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
      h('td', {}, textInput(`token-${i}`, { 'aria-label': `Word ${i + 1}`, value: word })),
      ...Array.from({ length: d }, (_, j) =>
        h('td', {}, textInput(`x-${i}-${j}`, { inputmode: 'decimal', class: 'num-input', readonly: drawn, value: String(values[j] ?? 0) })),
      ),
    ),
  );
  return h('table', { class: `inputs-table${drawn ? ' is-drawn' : ''}` }, h('caption', { class: 'sr-only' }, 'Token words and their embeddings'), h('thead', {}, head), h('tbody', {}, ...body));
}

/** What the table holds now, as typed: [{ word, values: [strings] }]. */
function typedRows(container) {
  return [...container.querySelectorAll('.inputs-table tbody tr')].map((tr) => ({
    word: tr.querySelector('input[id^="token-"]').value,
    values: [...tr.querySelectorAll('input.num-input')].map((input) => input.value),
  }));
}

function replaceTable(container, rows, d, drawn) {
  const box = container.querySelector('.inputs-box');
  box.replaceChildren(inputsTable(rows, d, drawn));
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
  const form = h(
    'form',
    { class: 'settings-form', novalidate: true, 'aria-labelledby': 'settings-title' },
    h('div', { class: 'settings-top' },
      h('h2', { class: 'panel-title', id: 'settings-title' }, 'Settings'),
      // shown where the settings are a drawer over the step (main.js)
      h('button', { type: 'button', class: 'button small', id: 'close-settings' }, 'Done')),
    h('p', { class: 'settings-status', id: 'settings-status', role: 'status' }),
    h(
      'fieldset',
      {},
      h('legend', {}, 'The input sentence', tag('inputs')),
      h('p', { class: 'field-hint' }, `1 to ${MAX_WORDS} words, each with an embedding of d_in numbers.`),
      h(
        'div',
        { class: 'field-row' },
        h(
          'div',
          { class: 'field' },
          h('div', { class: 'field-head' }, h('label', { for: 'inputs-from' }, 'Embeddings')),
          h('select', { id: 'inputs-from', name: 'inputs-from' }, ...Object.entries(SOURCE_NAMES).map(([v, text]) => h('option', { value: v }, text))),
        ),
        field('d_in', 'd_in', `numbers per word (1–${MAX_D_IN})`, { inputmode: 'numeric', class: 'short-input' }),
        field('inputSeed', 'Seed', 'torch.manual_seed before the draw', { inputmode: 'numeric', class: 'short-input' }),
      ),
      h('p', { class: 'drawn-code', id: 'drawn-code' }),
      h('div', { class: 'inputs-box' }),
      h('p', { class: 'settings-actions' }, h('button', { type: 'button', class: 'button small', id: 'add-word' }, '+ Add a word')),
      h('p', { class: 'field-error', id: 'inputs-error', hidden: true }),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Trainable weights'),
      field('seed', 'Seed', 'torch.manual_seed for W_query, W_key, W_value, the classes of 3.4.2 and 3.5.3–3.6, and dropout', { inputmode: 'numeric' }),
      field('seedV2', 'Seed for SelfAttention_v2', 'torch.manual_seed for SelfAttention_v2 and the causal mask of 3.5.1', { inputmode: 'numeric' }),
      field('d_out', 'd_out', 'the size of each query, key and value vector (1–64)', { inputmode: 'numeric' }),
      h(
        'div',
        { class: 'field field-check' },
        h('input', { id: 'qkv_bias', name: 'qkv_bias', type: 'checkbox', 'aria-describedby': 'qkv_bias-hint' }),
        h('div', { class: 'field-head' }, h('label', { for: 'qkv_bias' }, 'qkv_bias'), tag('qkv_bias')),
        h('p', { class: 'field-hint', id: 'qkv_bias-hint' }, 'nn.Linear layers with a bias term'),
      ),
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Dropout and heads'),
      field('p', 'Dropout p', 'the share of weights dropout zeroes, from 0 up to 1', { inputmode: 'decimal' }),
      h(
        'div',
        { class: 'field' },
        h('div', { class: 'field-head' }, h('label', { for: 'profile' }, 'Random numbers'), tag('profile')),
        h(
          'select',
          { id: 'profile', name: 'profile', 'aria-describedby': 'profile-hint' },
          h('option', { value: 'default' }, 'the book (default PyTorch)'),
          h('option', { value: 'mkl' }, 'PyTorch built with Intel MKL'),
        ),
        h('p', { class: 'field-hint', id: 'profile-hint' }, 'PyTorch builds draw dropout masks differently; the book used the default one.'),
      ),
      field('heads', 'Number of heads', 'for multi-head attention (1–16); must divide d_out in 3.6.2', { inputmode: 'numeric' }),
      field('context_length', 'context_length', 'the most tokens CausalAttention and the multi-head modules take; empty: the number of words, as batch.shape[1] in the book', { inputmode: 'numeric' }),
    ),
    h('p', { class: 'settings-actions' }, h('button', { id: 'reset', type: 'button', class: 'button' }, 'Reset to the book')),
  );
  form.addEventListener('submit', (e) => e.preventDefault());
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

/**
 * @param {HTMLElement} container
 * @param {{ settings: object, writeValues: boolean, errors: object, isBook: boolean, changed: string[],
 *           computeError: string | null, relevant: string[], bookMarks?: { match: number, differs: number } }} view
 *        relevant: the step's `controls`; bookMarks: how many of the step's results match the book's printout
 */
export function renderSettings(container, view) {
  const form = container.querySelector('form.settings-form') ?? build(container);
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
    // drawn numbers are outputs: show the ones drawn now
    s.embeddings.forEach((row, i) => row.forEach((v, j) => set(`x-${i}-${j}`, v.toFixed(2))));
  }
  if (view.writeValues) {
    for (const key of ['seed', 'seedV2', 'd_out', 'heads', 'p', 'inputSeed']) set(key, s[key]);
    set('context_length', s.context_length ?? '');
    set('d_in', d);
    form.querySelector('#qkv_bias').checked = Boolean(s.qkv_bias);
    form.querySelector('#profile').value = s.profile;
    form.querySelector('#inputs-from').value = s.inputs;
  }
  form.querySelector('#inputSeed').closest('.field').hidden = !drawn;
  const drawnCode = form.querySelector('#drawn-code');
  drawnCode.hidden = !drawn;
  drawnCode.replaceChildren(drawn ? h('code', {}, inputsLines(s).join('; ')) : '');
  // The embedding inputs are named after the words they belong to.
  const { n: rowsNow, d: colsNow } = tableShape(form);
  const words = Array.from({ length: rowsNow }, (_, i) => form.querySelector(`#token-${i}`).value.trim() || `word ${i + 1}`);
  for (let i = 0; i < rowsNow; i++) {
    for (let j = 0; j < colsNow; j++) form.querySelector(`#x-${i}-${j}`).setAttribute('aria-label', `“${words[i]}”, d${j}`);
    form.querySelector(`[data-remove-word="${i}"]`).setAttribute('aria-label', `Remove “${words[i]}”`);
  }

  // The settings the current step is about.
  const relevant = new Set((view.relevant ?? []).map((k) => CONTROLS[k]?.tag).filter(Boolean));
  for (const el of form.querySelectorAll('[data-tag-for]')) {
    const on = relevant.has(el.dataset.tagFor);
    el.hidden = !on;
    el.closest('.field, fieldset').classList.toggle('is-relevant', on);
  }

  // Per-field errors: aria-invalid, a message the field points at. A combination the core rejects is
  // shown beside each setting it is about.
  const errors = { ...(view.errors ?? {}) };
  if (view.computeError) for (const key of view.computeFields ?? []) errors[CONTROLS[key]?.id ?? key] ??= view.computeError;
  for (const input of form.querySelectorAll('input[type="text"]')) {
    const message = errors[input.id];
    const own = form.querySelector(`#${input.id}-error`);
    const shared = own ? null : 'inputs-error';
    if (message) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    const described = [own ? `${input.id}-hint` : null, message ? (own ? own.id : shared) : null].filter(Boolean).join(' ');
    if (described) input.setAttribute('aria-describedby', described);
    else input.removeAttribute('aria-describedby');
    if (own) {
      own.textContent = message ?? '';
      own.hidden = !message;
    }
  }
  const gridMessages = Object.entries(errors)
    .filter(([id]) => id.startsWith('token-') || id.startsWith('x-') || id === 'inputs-count')
    .map(([, m]) => m);
  const gridError = form.querySelector('#inputs-error');
  gridError.replaceChildren(...gridMessages.map((m) => h('span', { class: 'error-line' }, m)));
  gridError.hidden = gridMessages.length === 0;

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
