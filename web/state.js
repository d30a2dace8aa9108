// The page's one state object: which step is shown and the settings every number depends on.
// The URL hash carries both, so a link restores the exact view; only settings that differ from the book's
// are written, keeping links short.
import { BOOK_TOKENS, BOOK_EMBEDDINGS } from './book.js';

export const BOOK = Object.freeze({
  tokens: BOOK_TOKENS, // the chapter's sentence and its 6 x 3 embeddings (book/chapter3.json)
  embeddings: BOOK_EMBEDDINGS,
  seed: 123, // torch.manual_seed(123): W_query/W_key/W_value, SelfAttention_v1, dropout, 3.5.3 and 3.6
  seedV2: 789, // torch.manual_seed(789): SelfAttention_v2 and the causal-mask steps built on it
  profile: 'default', // which PyTorch build's dropout masks: 'default' (the book) or 'mkl'
  p: 0.5, // dropout probability of 3.5.2
  d_out: 2,
  heads: 2,
  qkv_bias: false,
  inputs: 'typed', // the embeddings as typed ('typed'), or drawn with torch.rand / torch.randn ('rand', 'randn')
  inputSeed: 123, // torch.manual_seed before drawing them
  context_length: null, // the modules' context_length: null is the book's batch.shape[1], the number of words
});

// The sizes the page accepts: 1 to 16 words, 1 to 16 numbers per embedding.
export const MAX_WORDS = 16;
export const MAX_D_IN = 16;
export const INPUT_SOURCES = ['typed', 'rand', 'randn'];

/** Which token is the query of the single-query steps (3.3.1, 3.4.1): x(2), or x(1) when it is the only one. */
export const queryIndex = (settings) => (settings.tokens.length > 1 ? 1 : 0);

/** n x d zeros: the shape of generated embeddings before they are drawn. */
export const zeros = (n, d) => Array.from({ length: n }, () => Array(d).fill(0));

export function bookSettings() {
  return { ...BOOK, tokens: [...BOOK.tokens], embeddings: BOOK.embeddings.map((r) => [...r]) };
}

const numberKeys = ['seed', 'seedV2', 'p', 'd_out', 'heads'];

/** Settings -> 'key=value&...' (only what differs from the book). */
export function encodeSettings(settings) {
  const params = new URLSearchParams();
  for (const key of numberKeys) if (settings[key] !== BOOK[key]) params.set(key, String(settings[key]));
  if (settings.profile !== BOOK.profile) params.set('profile', settings.profile);
  if (settings.qkv_bias !== BOOK.qkv_bias) params.set('qkv_bias', settings.qkv_bias ? '1' : '0');
  if (settings.context_length !== BOOK.context_length) params.set('context_length', String(settings.context_length));
  if (settings.tokens.join('\u0000') !== BOOK.tokens.join('\u0000')) params.set('tokens', JSON.stringify(settings.tokens));
  const d = settings.embeddings[0]?.length ?? 0;
  if (d !== BOOK.embeddings[0].length) params.set('d_in', String(d));
  if (settings.inputs !== 'typed') {
    // drawn: the seed and the shape say it all
    params.set('inputs', settings.inputs);
    params.set('inputSeed', String(settings.inputSeed));
  } else if (JSON.stringify(settings.embeddings) !== JSON.stringify(BOOK.embeddings)) {
    params.set('x', settings.embeddings.flat().join(','));
  }
  return params;
}

const wholeIn = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;

/** Reads settings from URL parameters, keeping the book's value for anything missing or invalid. */
export function decodeSettings(params) {
  const s = bookSettings();
  for (const key of numberKeys) {
    if (!params.has(key)) continue;
    const v = Number(params.get(key));
    if (Number.isFinite(v)) s[key] = v;
  }
  if (params.get('profile') === 'mkl' || params.get('profile') === 'default') s.profile = params.get('profile');
  if (params.has('qkv_bias')) s.qkv_bias = params.get('qkv_bias') === '1';
  if (params.has('context_length')) {
    const v = Number(params.get('context_length'));
    if (Number.isFinite(v)) s.context_length = v;
  }
  if (params.has('tokens')) {
    try {
      const tokens = JSON.parse(params.get('tokens'));
      if (Array.isArray(tokens) && wholeIn(tokens.length, 1, MAX_WORDS)) s.tokens = tokens.map((t) => String(t));
    } catch {
      // a damaged link keeps the book's words
    }
  }
  const n = s.tokens.length;
  const dParam = params.has('d_in') ? Number(params.get('d_in')) : BOOK.embeddings[0].length;
  const d = wholeIn(dParam, 1, MAX_D_IN) ? dParam : BOOK.embeddings[0].length;
  const source = params.get('inputs');
  if (source === 'rand' || source === 'randn') {
    s.inputs = source;
    const seed = Number(params.get('inputSeed') ?? BOOK.inputSeed);
    s.inputSeed = Number.isFinite(seed) ? seed : BOOK.inputSeed;
    s.embeddings = zeros(n, d);
    return s;
  }
  const values = params.has('x') ? params.get('x').split(',').map(Number) : null;
  if (values && values.length === n * d && values.every(Number.isFinite)) {
    s.embeddings = Array.from({ length: n }, (_, i) => values.slice(d * i, d * i + d));
  } else if (n !== BOOK.tokens.length || d !== BOOK.embeddings[0].length) {
    // words or a width without their numbers: the book's where they exist, zeros elsewhere
    s.embeddings = Array.from({ length: n }, (_, i) => Array.from({ length: d }, (__, j) => BOOK.embeddings[i]?.[j] ?? 0));
  }
  return s;
}

/** '#step=id&seed=...' -> { step, settings } */
export function parseHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  return { step: params.get('step'), settings: decodeSettings(params) };
}

export function formatHash(step, settings) {
  const params = encodeSettings(settings);
  return `#${new URLSearchParams([['step', step], ...params]).toString()}`;
}

/** True when every setting is the book's. */
export function isBook(settings) {
  return encodeSettings(settings).toString() === '';
}
