// The learner's notebooks in storage (web/notebook/library.js), over an in-memory Storage: the list and its
// order, rename, duplicate, delete and undo, versions, finding a link's notebook again, the earlier single
// notebook taken in, and a full storage named in the error.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { LEGACY_KEY, LibraryError, changedText, openLibrary } from '../../web/notebook/library.js';

function memoryStorage({ limit = Infinity } = {}) {
  const kept = new Map();
  return {
    kept,
    getItem: (k) => kept.get(k) ?? null,
    setItem(k, v) {
      const size = [...kept].reduce((n, [key, value]) => n + (key === k ? 0 : value.length), 0) + String(v).length;
      if (size > limit) throw Object.assign(new Error('quota'), { name: 'QuotaExceededError' });
      kept.set(k, String(v));
    },
    removeItem: (k) => kept.delete(k),
  };
}

function library(storage = memoryStorage()) {
  let clock = 1000;
  let ids = 0;
  return openLibrary(storage, { now: () => (clock += 1000), newId: () => `nb${++ids}` });
}

test('notebooks are listed by last change, and a save moves one to the top with a new version', () => {
  const lib = library();
  const a = lib.create({ name: 'A', cells: ['a = 1'] });
  const b = lib.create({ name: 'B', cells: [{ source: '# notes', kind: 'markdown' }, { source: 'b', printed: '2\n' }], profile: 'mkl' });
  assert.deepEqual(lib.list().map((e) => e.name), ['B', 'A']);
  assert.deepEqual(lib.get(b).cells, [{ source: '# notes', kind: 'markdown' }, { source: 'b', printed: '2\n' }]);
  assert.equal(lib.get(b).profile, 'mkl');
  const before = lib.get(a).version;
  assert.equal(lib.save(a, { cells: ['a = 2'], profile: 'default' }), before + 1);
  assert.deepEqual(lib.list().map((e) => e.name), ['A', 'B']);
  assert.deepEqual(lib.get(a).cells, [{ source: 'a = 2' }]);
});

test('names stay apart; rename, duplicate, and delete with undo', () => {
  const lib = library();
  const a = lib.create({ name: 'Mine', cells: ['x'] });
  assert.equal(lib.get(lib.create({ name: 'Mine', cells: ['y'] })).name, 'Mine (2)');
  lib.rename(a, '  Scores  ');
  assert.equal(lib.get(a).name, 'Scores');
  lib.rename(a, '   ');
  assert.equal(lib.get(a).name, 'Scores', 'an empty name keeps the old one');
  const copy = lib.duplicate(a);
  assert.equal(lib.get(copy).name, 'Scores (copy)');
  assert.deepEqual(lib.get(copy).cells, lib.get(a).cells);
  const undo = lib.remove(a);
  assert.equal(lib.get(a), null);
  assert.equal(lib.list().length, 2);
  undo();
  assert.deepEqual(lib.get(a).cells, [{ source: 'x' }]);
  assert.equal(lib.list().length, 3);
  assert.throws(() => lib.save('gone', { cells: [] }), LibraryError);
});

test("a link's cells find the notebook that holds exactly them; the earlier single notebook is taken in once", () => {
  const storage = memoryStorage();
  storage.setItem(LEGACY_KEY, JSON.stringify({ cells: ['old = 1'], profile: 'mkl' }));
  const lib = library(storage);
  const id = lib.adoptLegacy();
  assert.deepEqual(lib.get(id), { id, name: 'My notebook', changed: lib.get(id).changed, version: 1, profile: 'mkl', cells: [{ source: 'old = 1' }] });
  assert.equal(storage.getItem(LEGACY_KEY), null);
  assert.equal(lib.adoptLegacy(), null, 'only once');
  assert.equal(lib.findSame([{ source: 'old = 1' }]), id);
  assert.equal(lib.findSame([{ source: 'old = 2' }]), null);
  assert.equal(lib.findSame([{ source: 'old = 1', kind: 'markdown' }]), null, 'a text cell is not a code cell');
});

test('a full storage is an error that names the notebook, and leaves no half-made entry', () => {
  const lib = library(memoryStorage({ limit: 600 }));
  lib.create({ name: 'Small', cells: ['x = 1'] });
  assert.throws(() => lib.create({ name: 'Big', cells: ['x'.repeat(1000)] }),
    (e) => e instanceof LibraryError && e.message === '“Big” could not be saved in this browser (its storage is full).');
  assert.deepEqual(lib.list().map((e) => e.name), ['Small']);
});

test('a damaged index or entry is read as nothing rather than failing the page', () => {
  const storage = memoryStorage();
  storage.setItem('attention-lab.notebooks', '{not json');
  const lib = library(storage);
  assert.deepEqual(lib.list(), []);
  const id = lib.create({ name: 'Fresh', cells: ['a'] });
  storage.setItem(`attention-lab.notebook.${id}`, '[broken');
  assert.equal(lib.get(id), null);
});

test('when a notebook last changed, in words', () => {
  const now = Date.UTC(2026, 0, 10, 12);
  assert.equal(changedText(now - 10_000, now), 'just now');
  assert.equal(changedText(now - 60_000, now), '1 minute ago');
  assert.equal(changedText(now - 5 * 60_000, now), '5 minutes ago');
  assert.equal(changedText(now - 3 * 3_600_000, now), '3 hours ago');
  assert.equal(changedText(now - 30 * 3_600_000, now), 'yesterday');
  assert.match(changedText(now - 10 * 86_400_000, now), /2025|2026/);
});
