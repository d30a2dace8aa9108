// Hostile or careless links: every setting of a link that the page cannot use is named (state.js's parseHash
// lists what it could not read, repairSettings what it read but cannot use), and every other one is used.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SETTINGS, bookSettings, parseHash, repairSettings } from '../../web/state.js';

// Per setting key: values a link may carry that are usable (as the setting then holds them), and values that are not.
const VALUES = {
  seed: { usable: [['7', 7], ['-3', -3], ['+12', 12], ['1e3', 1000]], unusable: ['abc', 'NaN', '', 'Infinity', '0x10', '1.5', '1e400', '9007199254740993'] },
  seedV2: { usable: [['0', 0], ['42', 42]], unusable: ['NaN', ' ', '12abc', '-0.5'] },
  p: { usable: [['0', 0], ['0.25', 0.25], ['.9', 0.9]], unusable: ['1', '-0.1', 'half', 'NaN', '', '1e999'] },
  d_out: { usable: [['4', 4], ['64', 64]], unusable: ['0', '65', '2.5', 'four', ''] },
  heads: { usable: [['1', 1], ['2', 2]], unusable: ['0', '17', 'x', '1e1000'] },
  profile: { usable: [['mkl', 'mkl']], unusable: ['MKL', 'intel', '', 'constructor', '__proto__'] },
  qkv_bias: { usable: [['1', true], ['0', false]], unusable: ['true', 'yes', '', '2', 'constructor', 'toString'] },
  context_length: { usable: [['1', 1], ['1024', 1024]], unusable: ['0', '1025', 'many', '', '-1'] },
  tokens: { usable: [['["a","b","c"]', ['a', 'b', 'c']]], unusable: ['[', 'not json', '{}', '[]', JSON.stringify(Array(17).fill('w')), '"word"'] },
  d_in: { usable: [['2', 2], ['16', 16]], unusable: ['0', '17', 'wide', '', '2.5'] },
};
// x depends on the words and d_in of the link, so its values are made for them.
const UNUSABLE_X = ['1,2,abc', '', 'NaN', '1,,2', 'Infinity'];

/** A small seeded generator (mulberry32), so that a failure can be run again. */
function random(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Whether a notice entry ('seed (abc)') names the setting `key`. */
const names = (entry, key) => entry.startsWith(`${SETTINGS[key].name} (`);

test('400 hostile links: each setting that cannot be used is named, and each other one is used', () => {
  const next = random(19);
  const pick = (list) => list[Math.floor(next() * list.length)];
  for (let round = 0; round < 400; round++) {
    const params = new URLSearchParams([['step', 'embeddings']]);
    const expected = {}; // key -> the value the settings must hold, or null where the link's must be named
    for (const key of Object.keys(VALUES)) {
      if (next() < 0.4) continue; // not in this link
      const hostile = next() < 0.5;
      const [text, value] = hostile ? [pick(VALUES[key].unusable), null] : pick(VALUES[key].usable);
      params.set(SETTINGS[key].param ?? key, text);
      expected[key] = value;
    }
    if (next() < 0.6) {
      // the numbers, for the words and width the link asks for (unusable when either of those is)
      const n = expected.tokens === null ? 1 + Math.floor(next() * 3) : (expected.tokens ?? bookSettings().tokens).length;
      const d = expected.d_in === null ? 5 : expected.d_in ?? SETTINGS.d_in.book; // 5: the width the link meant
      const hostile = next() < 0.5 || expected.tokens === null || expected.d_in === null;
      const values = Array.from({ length: n * d }, (_, i) => (i % 7) / 10 - 0.3);
      params.set('x', hostile ? pick(UNUSABLE_X) : values.join(','));
      expected.embeddings = hostile ? null : Array.from({ length: n }, (_, i) => values.slice(d * i, d * i + d));
    }
    const hash = `#${params}`;
    const { settings, dropped } = parseHash(hash);
    const notice = [...dropped, ...repairSettings(settings)];
    for (const [key, value] of Object.entries(expected)) {
      const named = notice.some((entry) => names(entry, key));
      if (value === null) assert.ok(named, `${hash}: ${key} is named (notice: ${notice.join(', ')})`);
      else {
        assert.ok(!named, `${hash}: ${key} is used, not named (notice: ${notice.join(', ')})`);
        const held = key === 'd_in' ? settings.embeddings[0].length : settings[key];
        assert.deepEqual(held, value, `${hash}: ${key}`);
      }
    }
    assert.equal(notice.length, Object.values(expected).filter((v) => v === null).length, `${hash}: named once each (notice: ${notice.join(', ')})`);
  }
});

test('a parameter the page does not know is named too, once however often it appears', () => {
  assert.deepEqual(parseHash('#step=embeddings&seeed=5&seed=7').dropped, ['unknown setting “seeed” (5)']);
  assert.deepEqual(parseHash('#seed=7&heads=x&foo=1&foo=2').dropped, ['heads (x)', 'unknown setting “foo” (1)']);
  assert.equal(parseHash('#step=embeddings&seeed=5&seed=7').settings.seed, 7);
});

test('a named value is quoted as the link has it, long ones cut', () => {
  assert.deepEqual(parseHash('#seed=abc&qkv_bias=yes').dropped, ['seed (abc)', 'qkv_bias (yes)']);
  const [entry] = parseHash(`#x=${'1,'.repeat(100)}`).dropped;
  assert.equal(entry, 'embeddings (1,1,1,1,1,1,1,1,1,1,1,1,…)');
});
