// The page's state as its URL holds it: which step is shown and the settings every number depends on.
// SETTINGS declares each setting once: its book value, its name, its URL parameter, its limits and its
// control. The URL codec, the validation and the change detection below, and the settings form
// (render/settings.js), are all made from it. A link holds only the settings that differ from the book's,
// so the book's view of a step is just '#step=<id>'.
import { BOOK_TOKENS, BOOK_EMBEDDINGS } from './book.js';

// The sizes the page accepts: 1 to 16 words, 1 to 16 numbers per embedding.
export const MAX_WORDS = 16;
export const MAX_D_IN = 16;
const MAX_WORD_LENGTH = 48;

/** n x d zeros: the shape of generated embeddings before they are drawn. */
export const zeros = (n, d) => Array.from({ length: n }, () => Array(d).fill(0));

const drawn = (s) => s.inputs !== 'typed';
const widthOf = (s) => s.embeddings[0]?.length ?? 0;
const inRange = (v, [lo, hi]) => Number.isInteger(v) && v >= lo && v <= hi;
const span = ([lo, hi]) => `${lo}–${hi}`;
/** A name at the start of a sentence: 'seed' -> 'Seed', while a Python name such as d_out keeps its case. */
export const opening = (name) => (name.split(' ')[0].includes('_') ? name : name[0].toUpperCase() + name.slice(1));

// Numbers as typed in the form: a typographic minus is a minus; anything else that is not a number is NaN,
// so that it can be explained rather than dropped.
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const INTEGER = /^[+-]?\d+$/;
const cleaned = (text) => String(text).trim().replace(/^\u2212/, '-');
export const parseNumber = (text) => (NUMBER.test(cleaned(text)) ? Number(cleaned(text)) : NaN);
const parseInteger = (text) => (INTEGER.test(cleaned(text)) ? Number(cleaned(text)) : NaN);
/** A number as a link writes it (encode's String), else undefined: '', '0x10' and 'NaN' are not numbers here. */
const finite = (text) => (Number.isFinite(parseNumber(text)) ? parseNumber(text) : undefined);
const choice = (text, setting) => (Object.hasOwn(setting.options, text) ? text : undefined);

/**
 * Kinds of setting: how a control's value is read (`read`), written in a link and read back (`encode`,
 * `decode`: undefined keeps the book's value) and what is wrong with a value (`problem`: a message or null).
 */
const KINDS = {
  // a torch.manual_seed: any whole number
  seed: {
    read: parseInteger,
    encode: String,
    decode: finite,
    problem: (v, setting) => (Number.isSafeInteger(v) ? null : `${opening(setting.name)} must be a whole number (like ${setting.book}).`),
  },
  // a size within limits, or null (an empty field) where the setting says what empty means
  size: {
    read: (text, setting) => (setting.empty && text.trim() === '' ? null : parseInteger(text)),
    encode: String,
    decode: finite,
    problem(v, setting) {
      if ((setting.empty && v === null) || inRange(v, setting.limits)) return null;
      const whole = `a whole number from ${setting.limits[0]} to ${setting.limits[1]}`;
      return `${opening(setting.name)} must be ${setting.empty ? `empty (${setting.empty}) or ${whole}` : whole}.`;
    },
  },
  probability: {
    read: parseNumber,
    encode: String,
    decode: finite,
    problem: (v, setting) =>
      (Number.isFinite(v) && v >= 0 && v < 1 ? null : `${opening(setting.name)} must be a number from 0 up to (not including) 1, like ${setting.book}.`),
  },
  // one of `options` (value -> what the control says)
  choice: { read: (text, setting) => choice(text, setting) ?? setting.book, encode: String, decode: choice },
  flag: { read: Boolean, encode: (v) => (v ? '1' : '0'), decode: (text) => (text === '1' ? true : text === '0' ? false : undefined) },
  // the sentence's words, and the numbers of its embeddings: read from the inputs table (render/settings.js)
  words: { encode: JSON.stringify },
  numbers: { encode: (rows) => rows.flat().join(',') },
};

const wordProblem = (word, i) =>
  word.trim() === '' ? `Word ${i + 1} is empty: type a word.` : word.length > MAX_WORD_LENGTH ? `Word ${i + 1} is longer than ${MAX_WORD_LENGTH} characters.` : null;
const wordOf = (s, i) => s.tokens[i]?.trim() || `word ${i + 1}`;

/**
 * Every setting, in the order of the URL's parameters. Each has its `kind` (above), its `book` value and its
 * `name` (how the page speaks of it: the settings status, a step's Try-it chips, messages), and as needed:
 *   label     the form's label, where the form's context makes another one clearer (else the name)
 *   hint      the line under its control (a function of the setting when it quotes the limits)
 *   limits    [lowest, highest]; empty: what an empty field means, for a size that may be left out (null)
 *   options   a choice's values -> what its control says for each
 *   id        its control's id (else its key); tag: the marker it shares, on its fieldset's legend
 *   param     its URL parameter (else its key)
 *   get       its value when the settings hold it another way (d_in is the embeddings' width)
 *   applies   whether these settings use it (the draw's seed only for drawn numbers, the typed numbers only
 *             when typed): only then is it in links, checked and shown; `always` writes it in links even at
 *             the book's value
 *   changed   how the status names a change of it (else its name)
 *   fromLink  reads it from a link where that takes more than its kind's decode (runs even when absent);
 *             returns false when the link has a value for it that cannot be used
 *   problems  { fieldId: message }, for a setting with several fields
 *   repair    puts usable values back into a link's settings where the book's value as a whole is not the
 *             way (one empty word of several); returns what it replaced
 */
export const SETTINGS = {
  seed: {
    kind: 'seed', book: 123, name: 'seed',
    hint: 'torch.manual_seed for W_query, W_key, W_value, the classes of 3.4.2 and 3.5.3–3.6, and dropout',
  },
  seedV2: {
    kind: 'seed', book: 789, name: 'seed for SelfAttention_v2',
    hint: 'torch.manual_seed for SelfAttention_v2 and the causal mask of 3.5.1',
  },
  p: { kind: 'probability', book: 0.5, name: 'dropout p', hint: 'the share of weights dropout zeroes, from 0 up to 1' },
  d_out: {
    kind: 'size', book: 2, limits: [1, 64], name: 'd_out',
    hint: ({ limits }) => `the size of each query, key and value vector (${span(limits)})`,
  },
  heads: {
    kind: 'size', book: 2, limits: [1, 16], name: 'heads', label: 'Number of heads',
    hint: ({ limits }) => `for multi-head attention (${span(limits)}); must divide d_out in 3.6.2`,
  },
  profile: {
    kind: 'choice', book: 'default', name: 'random numbers',
    options: { default: 'the book (default PyTorch)', mkl: 'PyTorch built with Intel MKL' },
    hint: 'PyTorch builds draw dropout masks differently; the book used the default one.',
  },
  qkv_bias: { kind: 'flag', book: false, name: 'qkv_bias', hint: 'nn.Linear layers with a bias term' },
  context_length: {
    kind: 'size', book: null, limits: [1, 1024], empty: 'the number of words', name: 'context_length',
    hint: 'the most tokens CausalAttention and the multi-head modules take; empty: the number of words, as batch.shape[1] in the book',
  },
  tokens: {
    kind: 'words', book: BOOK_TOKENS, limits: [1, MAX_WORDS], name: 'words', id: 'token-0', tag: 'inputs',
    fromLink(text, s) {
      if (text === null) return true;
      let words = null;
      try {
        words = JSON.parse(text);
      } catch {
        // a damaged link keeps the book's words
      }
      if (!Array.isArray(words) || !inRange(words.length, this.limits)) return false;
      s.tokens = words.map(String);
      return true;
    },
    problems(s) {
      const [lo, hi] = this.limits;
      const count = inRange(s.tokens.length, this.limits) ? {} : { 'inputs-count': `The sentence needs ${lo} to ${hi} words.` };
      return { ...count, ...Object.fromEntries(s.tokens.map((w, i) => [`token-${i}`, wordProblem(w, i)]).filter(([, m]) => m)) };
    },
    repair(s) {
      return s.tokens.flatMap((w, i) => (wordProblem(w, i) ? ((s.tokens[i] = BOOK_TOKENS[i] ?? `word${i + 1}`), [`word ${i + 1}`]) : []));
    },
  },
  d_in: {
    kind: 'size', book: BOOK_EMBEDDINGS[0].length, limits: [1, MAX_D_IN], name: 'd_in', get: widthOf,
    hint: ({ limits }) => `numbers per word (${span(limits)})`,
    // A width reshapes the embeddings: the book's numbers where it has them, zeros elsewhere (a link's own
    // numbers, when it has them, come with `x`).
    fromLink(text, s) {
      const usable = text === null || inRange(finite(text), this.limits);
      const d = text !== null && usable ? finite(text) : this.book;
      s.embeddings = s.tokens.map((_, i) => Array.from({ length: d }, (__, j) => BOOK_EMBEDDINGS[i]?.[j] ?? 0));
      return usable;
    },
  },
  inputs: {
    kind: 'choice', book: 'typed', name: 'where the embeddings come from', label: 'Embeddings', id: 'inputs-from', tag: 'inputs',
    options: { typed: 'typed here: torch.tensor([...])', rand: 'drawn: torch.rand(n, d_in)', randn: 'drawn: torch.randn(n, d_in)' },
    changed: (s) => `embeddings drawn with torch.${s.inputs}`,
  },
  // a link to drawn numbers always names their seed: with the shape, it says them all
  inputSeed: {
    kind: 'seed', book: 123, name: 'seed for the embeddings', label: 'Seed', hint: 'torch.manual_seed before the draw',
    applies: drawn, always: true,
  },
  embeddings: {
    kind: 'numbers', book: BOOK_EMBEDDINGS, name: 'embeddings', id: 'x-0-0', tag: 'inputs', param: 'x',
    applies: (s) => !drawn(s),
    fromLink(text, s) {
      const n = s.tokens.length;
      const d = widthOf(s);
      if (drawn(s)) {
        s.embeddings = zeros(n, d);
        return true; // not in use: the draw makes them
      }
      if (text === null) return true;
      const values = text.split(',').map(parseNumber);
      if (values.length !== n * d || !values.every(Number.isFinite)) return false;
      s.embeddings = Array.from({ length: n }, (_, i) => values.slice(d * i, d * i + d));
      return true;
    },
    problems(s) {
      const cells = s.embeddings.flatMap((row, i) => row.map((v, j) => [i, j, v])).filter(([, , v]) => !Number.isFinite(v));
      return Object.fromEntries(cells.map(([i, j]) => [`x-${i}-${j}`, `The embedding of “${wordOf(s, i)}”, d${j}, is not a number.`]));
    },
  },
  // the token the single-query steps follow, by its position in the sentence (x(2) is the second word)
  query: {
    kind: 'size', book: 2, limits: [1, MAX_WORDS], name: 'query token', label: 'Query token',
    hint: ({ limits }) => `which word x(i) the one-query steps of 3.3.1 and 3.4.1 follow (${span(limits)}; the book takes x(2); past the last word, the last)`,
  },
};

const ENTRIES = Object.entries(SETTINGS);
/** A setting's value in settings (d_in is the width of the embeddings). */
export const settingValue = (key, s) => (SETTINGS[key].get ? SETTINGS[key].get(s) : s[key]);
/** Whether a setting is used by these settings (the draw's seed only when the numbers are drawn). */
export const inUse = (key, s) => SETTINGS[key].applies?.(s) ?? true;
const same = (a, b) => (typeof a === 'object' && a !== null ? JSON.stringify(a) === JSON.stringify(b) : a === b);

/** The id of a setting's control. */
export const controlId = (key) => SETTINGS[key].id ?? key;

/** A setting's value read from its control (a checkbox's `checked`, else the text or choice). */
export const readControl = (key, value) => KINDS[SETTINGS[key].kind].read(value, SETTINGS[key]);

/** What is wrong with one value of a single-field setting, or null. */
export const problemWith = (key, value) => KINDS[SETTINGS[key].kind].problem?.(value, SETTINGS[key]) ?? null;

/** The book's settings (frozen: bookSettings() gives a copy to change). */
export const BOOK = Object.freeze(Object.fromEntries(ENTRIES.filter(([, setting]) => !setting.get).map(([key, setting]) => [key, setting.book])));

export function bookSettings() {
  return { ...BOOK, tokens: [...BOOK.tokens], embeddings: BOOK.embeddings.map((r) => [...r]) };
}

/**
 * The 0-based row of the query of the single-query steps (3.3.1, 3.4.1): the chosen word (the book's x(2)), or
 * the last word when the sentence is shorter than that.
 */
export const queryIndex = (settings) => Math.min(settings.query ?? SETTINGS.query.book, settings.tokens.length) - 1;

/** The settings that go into a link: those in use that differ from the book's. */
const inLink = (s) => ENTRIES.filter(([key, setting]) => inUse(key, s) && (setting.always || !same(settingValue(key, s), setting.book)));

/** Settings -> 'key=value&...' (only what differs from the book). */
export function encodeSettings(settings) {
  return new URLSearchParams(inLink(settings).map(([key, setting]) => [setting.param ?? key, KINDS[setting.kind].encode(settingValue(key, settings))]));
}

/** A link's value as a message quotes it: short ones whole, long ones cut. */
export const quoted = (text) => (text.length > 24 ? `${text.slice(0, 24)}…` : text);

/**
 * Reads settings from URL parameters, keeping the book's value for anything missing or unreadable. Returns
 * the settings and what could not be read, as the page names it ('seed (abc)'), in the URL's order.
 */
export function decodeSettings(params) {
  const s = bookSettings();
  const dropped = [];
  for (const [key, setting] of ENTRIES) {
    const text = params.get(setting.param ?? key);
    let used = true;
    if (setting.fromLink) used = setting.fromLink(text, s);
    else if (text !== null && inUse(key, s)) {
      const value = KINDS[setting.kind].decode(text, setting);
      if (value === undefined) used = false;
      else s[key] = value;
    }
    if (!used) dropped.push(`${setting.name} (${quoted(text)})`);
  }
  return { settings: s, dropped };
}

/** Problems with settings, as { fieldId: message }; empty when they can be computed. */
export function validateSettings(s) {
  const errors = {};
  for (const [key, setting] of ENTRIES) {
    if (!inUse(key, s)) continue;
    if (setting.problems) Object.assign(errors, setting.problems(s));
    else {
      const message = problemWith(key, settingValue(key, s));
      if (message) errors[controlId(key)] = message;
    }
  }
  return errors;
}

/**
 * Settings from a link made usable: whatever is wrong gets the book's value. Returns what was replaced, as
 * the page names it ('word 2', 'seed (1.5)').
 */
export function repairSettings(s) {
  return ENTRIES.flatMap(([key, setting]) => {
    if (!inUse(key, s)) return [];
    if (setting.repair) return setting.repair(s);
    if (!problemWith(key, settingValue(key, s))) return [];
    const replaced = `${setting.name} (${s[key]})`;
    s[key] = setting.book;
    return [replaced];
  });
}

/** How the page names the settings that differ from the book's, in the URL's order. */
export const changedNames = (s) => inLink(s).map(([, setting]) => setting.changed?.(s) ?? setting.name);

/** The settings that differ from the book's with their values, as a script's header names them. */
export const changedValues = (s) =>
  inLink(s).map(([key, setting]) => {
    const v = settingValue(key, s);
    if (setting.changed) return setting.changed(s);
    if (setting.kind === 'words') return `${setting.name}: ${v.join(' ')}`;
    if (setting.kind === 'numbers') return `${setting.name} as typed below`;
    if (setting.kind === 'choice') return `${setting.name}: ${setting.options[v]}`;
    return `${setting.name} ${setting.kind === 'flag' ? (v ? 'True' : 'False') : v}`;
  });

/** True when two settings compute the same numbers (they make the same link). */
export const sameSettings = (a, b) => encodeSettings(a).toString() === encodeSettings(b).toString();

/**
 * True when two settings differ at most in the words' text, as many words in each: they compute the same
 * numbers, since a word's numbers are a setting of their own (x, or the draw's seed and shape).
 */
export const sameNumbers = (a, b) => a.tokens.length === b.tokens.length && sameSettings({ ...a, tokens: b.tokens }, b);

/** True when every setting is the book's. */
export const isBook = (settings) => encodeSettings(settings).toString() === '';

// The questions answered (render/predict.js), after the settings: 'answers=top-score.2_mask-zeros.skipped', each
// question's id, a dot and the answer's text (which render/predict.js reads back, and names when it cannot), in
// characters a link writes as they are (question ids have neither '.' nor '_', answers no '_').
const ANSWERS = 'answers';

/** { questionId: guess } -> 'id.guess_...' */
export const encodeAnswers = (answers) => Object.entries(answers).map(([id, guess]) => `${id}.${guess}`).join('_');

/** 'id.text_...' -> { questionId: text } (an entry without its '.' has the empty text, which no question takes). */
function decodeAnswers(text) {
  const at = (entry) => (entry.includes('.') ? entry.indexOf('.') : entry.length);
  return Object.fromEntries((text ?? '').split('_').filter(Boolean).map((entry) => [entry.slice(0, at(entry)), entry.slice(at(entry) + 1)]));
}

/**
 * '#step=id&seed=...&answers=...' -> { step, settings, dropped, answers } (dropped: the settings that could not be
 * read; answers: { questionId: text } as the link writes them)
 */
export function parseHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const { settings, dropped } = decodeSettings(params);
  const unknown = [...new Set(params.keys())].filter((name) => !LINK_NAMES.has(name));
  return {
    step: params.get('step'),
    settings,
    dropped: [...dropped, ...unknown.map((name) => `unknown setting “${name}” (${quoted(params.get(name))})`)],
    answers: decodeAnswers(params.get(ANSWERS)),
  };
}

// What a link may hold: the step, each setting's parameter and the answers.
const LINK_NAMES = new Set(['step', ...ENTRIES.map(([key, setting]) => setting.param ?? key), ANSWERS]);

/** The link of a step, its settings and the answers given ({ questionId: guess }). */
export function formatHash(step, settings, answers = {}) {
  const answered = encodeAnswers(answers);
  return `#${new URLSearchParams([['step', step], ...encodeSettings(settings), ...(answered ? [[ANSWERS, answered]] : [])]).toString()}`;
}
