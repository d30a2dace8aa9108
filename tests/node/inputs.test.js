// Any input the page accepts: 1 to 16 words of 1 to 16 numbers, typed or drawn with torch.rand / torch.randn
// under a seed, and a context_length. The settings round-trip through the URL; the chapter computes every
// size; drawn inputs are the API's own draws; a combination a module rejects names the settings to blame.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings, formatHash, parseHash, zeros, validateSettings, repairSettings, changedNames, isBook, SETTINGS, MAX_WORDS, MAX_D_IN } from '../../web/state.js';

let torch;
before(async () => {
  torch = await loadAttention();
});

/** n words of d numbers, all different, some negative. */
function typed(n, d) {
  return {
    ...bookSettings(),
    tokens: Array.from({ length: n }, (_, i) => `w${i}`),
    embeddings: Array.from({ length: n }, (_, i) => Array.from({ length: d }, (__, j) => Math.round(((i * 7 + j * 3) % 11) * 10 - 45) / 100)),
  };
}

const roundTrip = (s) => parseHash(formatHash('embeddings', s)).settings;

test('sizes from 1 x 1 to 16 x 16, drawn inputs and context_length survive the URL', () => {
  const cases = [
    typed(1, 1),
    typed(MAX_WORDS, MAX_D_IN),
    typed(3, 6),
    { ...typed(5, 2), context_length: 9 },
    { ...bookSettings(), inputs: 'rand', inputSeed: 7, tokens: ['a', 'b'], embeddings: zeros(2, 4) },
    { ...bookSettings(), inputs: 'randn', inputSeed: -3, tokens: ['a', 'b', 'c'], embeddings: zeros(3, 16) },
  ];
  for (const s of cases) assert.deepEqual(roundTrip(s), s, formatHash('embeddings', s));
  // the book's settings make no parameters at all
  assert.equal(formatHash('embeddings', bookSettings()), '#step=embeddings');
});

test('a damaged link falls back: too many words, numbers that do not fill the table, a bad d_in', () => {
  const book = bookSettings();
  const tooMany = JSON.stringify(Array.from({ length: MAX_WORDS + 1 }, (_, i) => `w${i}`));
  assert.deepEqual(parseHash(`#tokens=${encodeURIComponent(tooMany)}`).settings.tokens, book.tokens);
  // four words and 7 numbers for d_in 2: the book's numbers where it has them, zeros beyond
  const s = parseHash(`#tokens=${encodeURIComponent('["a","b","c","d"]')}&d_in=2&x=1,2,3,4,5,6,7`).settings;
  assert.deepEqual(s.embeddings, book.embeddings.slice(0, 4).map((row) => row.slice(0, 2)));
  assert.equal(parseHash('#d_in=17').settings.embeddings[0].length, 3);
});

test('validation names the field: words, d_in, the draw seed, context_length', () => {
  assert.deepEqual(validateSettings(bookSettings()), {});
  assert.ok(validateSettings({ ...bookSettings(), tokens: [], embeddings: [] })['inputs-count']);
  assert.ok(validateSettings({ ...typed(2, 2), embeddings: [[], []] }).d_in);
  assert.ok(validateSettings({ ...bookSettings(), inputs: 'rand', inputSeed: 1.5 }).inputSeed);
  assert.ok(validateSettings({ ...bookSettings(), context_length: 0 }).context_length);
  assert.deepEqual(validateSettings({ ...bookSettings(), context_length: 6 }), {});
});

// A value other than the book's for each kind of single-field setting, and one its checks refuse.
const OTHER = {
  seed: (s) => [s.book + 1, 1.5],
  size: (s) => [s.limits[0] === s.book ? s.limits[1] : s.limits[0], s.limits[1] + 1],
  probability: () => [0.25, 1],
  choice: (s) => [Object.keys(s.options).find((v) => v !== s.book), null],
  flag: (s) => [!s.book, null],
};
// The single-field settings the state holds (d_in is the embeddings' width; the table has its own tests).
const SINGLE = Object.entries(SETTINGS).filter(([, s]) => OTHER[s.kind] && !s.get);
/** The book's settings with one changed; the draw's seed is used with drawn numbers, which start as zeros. */
function used(key, value) {
  const s = { ...bookSettings(), [key]: value, ...(key === 'inputSeed' ? { inputs: 'rand' } : {}) };
  return s.inputs === 'typed' ? s : { ...s, embeddings: zeros(s.tokens.length, s.embeddings[0].length) };
}

test('each setting of the schema goes through a link on its own and is named in the status', () => {
  assert.ok(SINGLE.length >= 9, SINGLE.map(([k]) => k).join(' '));
  for (const [key, setting] of SINGLE) {
    const [other] = OTHER[setting.kind](setting);
    const s = used(key, other);
    const hash = formatHash('embeddings', s);
    assert.ok(new URLSearchParams(hash.slice(1)).has(setting.param ?? key), `${key}: ${hash}`);
    assert.deepEqual(roundTrip(s), s, hash);
    assert.equal(isBook(s), false, key);
    assert.ok(changedNames(s).includes(setting.changed?.(s) ?? setting.name), `${key}: ${changedNames(s)}`);
    assert.deepEqual(validateSettings(s), {}, key);
  }
});

test('a link’s unusable value is replaced by the book’s and named as the page names its setting', () => {
  for (const [key, setting] of SINGLE) {
    const [, refused] = OTHER[setting.kind](setting);
    if (refused === null) continue;
    const s = parseHash(formatHash('embeddings', used(key, refused))).settings;
    assert.ok(validateSettings(s)[setting.id ?? key], `${key} = ${refused} is refused`);
    assert.deepEqual(repairSettings(s), [`${setting.name} (${refused})`], key);
    assert.deepEqual(s, used(key, setting.book), key);
  }
  const words = parseHash(`#tokens=${encodeURIComponent('["a","","c"]')}`).settings;
  assert.deepEqual(repairSettings(words), ['word 2']);
  assert.deepEqual(words.tokens, ['a', bookSettings().tokens[1], 'c']);
});

test('every size computes: shapes follow n and d_in through the chapter', () => {
  for (const [n, d] of [[1, 1], [1, 16], [2, 3], [16, 1], [16, 16], [7, 5]]) {
    const r = computeChapter(torch, typed(n, d));
    assert.deepEqual(r.inputs.shape, [n, d]);
    assert.deepEqual(r.attn_weights.shape, [n, n]);
    assert.deepEqual(r.W_query.shape, [d, 2]);
    assert.deepEqual(r.ca_context_vecs.shape, [2, n, 2]);
    assert.deepEqual(r.mha_out.shape, [2, n, 2]);
    // the query of 3.3.1 is x(2), or x(1) when it is alone
    assert.deepEqual(r.query.values, r.inputs.values[n > 1 ? 1 : 0]);
    for (const row of r.attn_weights.values) assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 1e-5);
  }
});

test('drawn inputs are torch.rand / torch.randn under their seed, and the other draws are unchanged', () => {
  for (const kind of ['rand', 'randn']) {
    const s = { ...bookSettings(), inputs: kind, inputSeed: 42, tokens: ['a', 'b', 'c', 'd', 'e'], embeddings: zeros(5, 4) };
    const r = computeChapter(torch, s);
    torch.manualSeed(42);
    const expected = torch[kind](5, 4).toArray();
    assert.deepEqual(r.inputs.values, expected, kind);
    // the same numbers typed in give the same chapter: the weights draw from their own seeds
    const asTyped = computeChapter(torch, { ...s, inputs: 'typed', embeddings: expected });
    for (const name of ['W_query', 'attn_weights', 'dropout_weights', 'mha_out']) assert.deepEqual(r[name].values, asTyped[name].values, `${kind}: ${name}`);
  }
});

test('a combination a module rejects throws the core’s message and names the settings', () => {
  const cases = [
    [{ ...bookSettings(), context_length: 4 }, ['context_length'], /^CausalAttention: the input has 6 tokens, more than context_length = 4$/],
    [{ ...bookSettings(), heads: 3 }, ['heads', 'd_out'], /^MultiHeadAttention: d_out must be divisible by num_heads, got d_out = 2 and num_heads = 3$/],
  ];
  for (const [settings, keys, message] of cases) {
    assert.throws(() => computeChapter(torch, settings), (error) => {
      assert.equal(error.name, 'AttentionError');
      assert.match(error.message, message);
      assert.deepEqual(error.settings, keys);
      return true;
    });
  }
  // and the module is usable afterwards: the book's settings compute again
  assert.deepEqual(computeChapter(torch, bookSettings()).mha_out.shape, [2, 6, 2]);
  // context_length larger than the number of words is fine
  assert.deepEqual(computeChapter(torch, { ...bookSettings(), context_length: 10 }).mha_out.shape, [2, 6, 2]);
});
