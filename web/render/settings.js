// The settings panel: token words, their embeddings, seeds, sizes, dropout and the rng profile.
// renderSettings() builds the form once into its container and then shows a view of the state (values,
// per-field errors, a status line); readSettings() turns what is typed into settings plus errors.
// Inputs are text fields so that anything typed can be explained, not silently dropped.
import { h } from './dom.js';
import { BOOK } from '../state.js';

const N_TOKENS = 6;
const N_DIMS = 3;
const MAX_WORD = 48;
const LIMITS = { d_out: [1, 64], heads: [1, 16] };

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
  s.tokens.forEach((word, i) => {
    if (typeof word !== 'string' || word.trim() === '') errors[`token-${i}`] = `Word ${i + 1} is empty: type a word.`;
    else if (word.length > MAX_WORD) errors[`token-${i}`] = `Word ${i + 1} is longer than ${MAX_WORD} characters.`;
  });
  s.embeddings.forEach((row, i) =>
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
  const settings = {
    tokens: Array.from({ length: N_TOKENS }, (_, i) => value(`token-${i}`).trim()),
    embeddings: Array.from({ length: N_TOKENS }, (_, i) => Array.from({ length: N_DIMS }, (__, j) => parseNumber(value(`x-${i}-${j}`)))),
    seed: integer('seed'),
    seedV2: integer('seedV2'),
    profile: value('profile') === 'mkl' ? 'mkl' : 'default',
    p: parseNumber(value('p')),
    d_out: integer('d_out'),
    heads: integer('heads'),
    qkv_bias: container.querySelector('#qkv_bias').checked,
  };
  return { settings, errors: validateSettings(settings) };
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

function build(container) {
  const head = h('tr', {}, h('th', { scope: 'col', class: 'word-col' }, 'word'), ...Array.from({ length: N_DIMS }, (_, j) => h('th', { scope: 'col' }, `d${j}`)));
  const rows = Array.from({ length: N_TOKENS }, (_, i) =>
    h(
      'tr',
      {},
      h('td', {}, h('input', { id: `token-${i}`, name: `token-${i}`, type: 'text', autocomplete: 'off', spellcheck: 'false', 'aria-label': `Word ${i + 1}` })),
      ...Array.from({ length: N_DIMS }, (_, j) =>
        h('td', {}, h('input', { id: `x-${i}-${j}`, name: `x-${i}-${j}`, type: 'text', autocomplete: 'off', spellcheck: 'false', inputmode: 'decimal', class: 'num-input' })),
      ),
    ),
  );
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
      h('p', { class: 'field-hint' }, 'Six words and a 3-number embedding for each.'),
      h('div', { class: 'inputs-box' }, h('table', { class: 'inputs-table' }, h('caption', { class: 'sr-only' }, 'Token words and their embeddings'), h('thead', {}, head), h('tbody', {}, ...rows))),
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
  if (view.writeValues) {
    s.tokens.forEach((w, i) => set(`token-${i}`, w));
    s.embeddings.forEach((row, i) => row.forEach((v, j) => set(`x-${i}-${j}`, v)));
    for (const key of ['seed', 'seedV2', 'd_out', 'heads', 'p']) set(key, s[key]);
    form.querySelector('#qkv_bias').checked = Boolean(s.qkv_bias);
    form.querySelector('#profile').value = s.profile;
  }
  // The embedding inputs are named after the words they belong to.
  const words = Array.from({ length: N_TOKENS }, (_, i) => form.querySelector(`#token-${i}`).value.trim() || `word ${i + 1}`);
  for (let i = 0; i < N_TOKENS; i++) {
    for (let j = 0; j < N_DIMS; j++) form.querySelector(`#x-${i}-${j}`).setAttribute('aria-label', `“${words[i]}”, d${j}`);
  }

  // The settings the current step is about.
  const relevant = new Set((view.relevant ?? []).map((k) => CONTROLS[k]?.tag).filter(Boolean));
  for (const el of form.querySelectorAll('[data-tag-for]')) {
    const on = relevant.has(el.dataset.tagFor);
    el.hidden = !on;
    el.closest('.field, fieldset').classList.toggle('is-relevant', on);
  }

  // Per-field errors: aria-invalid, a message the field points at.
  const errors = view.errors ?? {};
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
    .filter(([id]) => id.startsWith('token-') || id.startsWith('x-'))
    .map(([, m]) => m);
  const gridError = form.querySelector('#inputs-error');
  gridError.replaceChildren(...gridMessages.map((m) => h('span', { class: 'error-line' }, m)));
  gridError.hidden = gridMessages.length === 0;

  const status = form.querySelector('#settings-status');
  const nErrors = Object.keys(errors).length;
  status.className = `settings-status${nErrors || view.computeError ? ' is-error' : view.isBook ? ' is-book' : ' is-changed'}`;
  const text = nErrors
    ? `${nErrors === 1 ? 'One field needs' : `${nErrors} fields need`} fixing. The page keeps the last numbers that worked.`
    : view.computeError
      ? `These settings could not be computed: ${view.computeError} The page keeps the last numbers that worked.`
      : view.isBook
        ? 'The book’s settings: every number should match what the book prints.'
        : `Changed from the book: ${view.changed.join(', ')}. ${onThisStep(view.bookMarks)}`;
  if (status.textContent !== text) status.textContent = text; // a live region: speak only on change
}
