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
});

export function bookSettings() {
  return structuredClone({ ...BOOK, tokens: [...BOOK.tokens], embeddings: BOOK.embeddings.map((r) => [...r]) });
}

const numberKeys = ['seed', 'seedV2', 'p', 'd_out', 'heads'];

/** Settings -> 'key=value&...' (only what differs from the book). */
export function encodeSettings(settings) {
  const params = new URLSearchParams();
  for (const key of numberKeys) if (settings[key] !== BOOK[key]) params.set(key, String(settings[key]));
  if (settings.profile !== BOOK.profile) params.set('profile', settings.profile);
  if (settings.qkv_bias !== BOOK.qkv_bias) params.set('qkv_bias', settings.qkv_bias ? '1' : '0');
  if (settings.tokens.join('\u0000') !== BOOK.tokens.join('\u0000')) params.set('tokens', JSON.stringify(settings.tokens));
  if (JSON.stringify(settings.embeddings) !== JSON.stringify(BOOK.embeddings)) {
    params.set('x', settings.embeddings.flat().join(','));
  }
  return params;
}

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
  if (params.has('tokens')) {
    try {
      const tokens = JSON.parse(params.get('tokens'));
      if (Array.isArray(tokens) && tokens.length === BOOK.tokens.length) s.tokens = tokens.map((t) => String(t));
    } catch {
      // a damaged link keeps the book's words
    }
  }
  if (params.has('x')) {
    const values = params.get('x').split(',').map(Number);
    if (values.length === 18 && values.every(Number.isFinite)) {
      s.embeddings = [0, 1, 2, 3, 4, 5].map((i) => values.slice(3 * i, 3 * i + 3));
    }
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
