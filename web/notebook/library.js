// The learner's notebooks, kept in local storage: an index (id, name, last change) and one entry per notebook,
// so that a damaged or oversized notebook costs only itself. A link, a step or an opened file always becomes a
// new notebook beside the others: nothing here ever writes one notebook's cells over another's.
//
// A notebook is { name, profile, cells } (and, read back, its id, last change and version: a count of its saves,
// by which a tab sees that another tab saved it meanwhile), a cell { source, kind?: 'markdown', printed?: string } (printed: what
// the cell printed where it was saved, e.g. in Jupyter).

const INDEX_KEY = 'attention-lab.notebooks';
const ENTRY_PREFIX = 'attention-lab.notebook.';
// Where the notebook page kept its single notebook before there were several: taken in once, as "My notebook".
export const LEGACY_KEY = 'attention-lab.notebook';

/** Storage refused the write (full, or blocked): the message says which notebook was not saved. */
export class LibraryError extends Error {
  name = 'LibraryError';
}

const cleanProfile = (p) => (p === 'mkl' ? 'mkl' : 'default');

/** A cell as stored: strings only, the kind and what it printed only when there is one. */
export function cleanCell(cell) {
  const source = typeof cell === 'string' ? cell : String(cell?.source ?? '');
  const out = { source };
  if (cell?.kind === 'markdown') out.kind = 'markdown';
  if (typeof cell?.printed === 'string') out.printed = cell.printed;
  return out;
}

const sameCells = (a, b) => a.length === b.length && a.every((c, i) => c.source === b[i].source && (c.kind ?? 'code') === (b[i].kind ?? 'code'));

/**
 * The library over a Storage (localStorage, or any object with getItem/setItem/removeItem). `now()` gives the
 * time of a change (milliseconds), for the tests.
 */
export function openLibrary(storage, { now = () => Date.now(), newId = () => crypto.randomUUID() } = {}) {
  const readIndex = () => {
    try {
      const list = JSON.parse(storage.getItem(INDEX_KEY) ?? '[]');
      return Array.isArray(list) ? list.filter((e) => e && typeof e.id === 'string' && typeof e.name === 'string') : [];
    } catch {
      return []; // a damaged index: the entries themselves are still there, but unlisted
    }
  };
  const write = (key, value, what) => {
    try {
      storage.setItem(key, JSON.stringify(value));
    } catch (error) {
      throw new LibraryError(`${what} could not be saved in this browser (${error.name === 'QuotaExceededError' ? 'its storage is full' : error.message}).`);
    }
  };
  const writeIndex = (list) => write(INDEX_KEY, list, 'The list of notebooks');

  function get(id) {
    const entry = readIndex().find((e) => e.id === id);
    if (!entry) return null;
    try {
      const stored = JSON.parse(storage.getItem(ENTRY_PREFIX + id) ?? 'null');
      if (!stored || !Array.isArray(stored.cells)) return null;
      return { id, name: entry.name, changed: entry.changed, version: entry.version ?? 0, profile: cleanProfile(stored.profile), cells: stored.cells.map(cleanCell) };
    } catch {
      return null;
    }
  }

  /** Saves a notebook's cells (and profile); returns its new version. */
  function save(id, { cells, profile, name }) {
    const list = readIndex();
    const entry = list.find((e) => e.id === id);
    if (!entry) throw new LibraryError('This notebook is no longer in the list (deleted in another tab?).');
    if (name !== undefined) entry.name = name;
    entry.changed = now();
    entry.version = (entry.version ?? 0) + 1;
    write(ENTRY_PREFIX + id, { profile: cleanProfile(profile), cells: cells.map(cleanCell) }, `“${entry.name}”`);
    writeIndex(list);
    return entry.version;
  }

  function create({ name, cells, profile = 'default' }) {
    const id = newId();
    const list = readIndex();
    const entry = { id, name: uniqueName(list, name), changed: now(), version: 1 };
    // The notebook first, then its line in the list: another tab never lists a notebook it cannot read yet.
    write(ENTRY_PREFIX + id, { profile: cleanProfile(profile), cells: cells.map(cleanCell) }, `“${entry.name}”`);
    try {
      writeIndex([...list, entry]);
    } catch (error) {
      storage.removeItem(ENTRY_PREFIX + id);
      throw error;
    }
    return id;
  }

  const uniqueName = (list, name) => {
    const taken = new Set(list.map((e) => e.name));
    if (!taken.has(name)) return name;
    let n = 2;
    while (taken.has(`${name} (${n})`)) n += 1;
    return `${name} (${n})`;
  };

  return {
    /** Every notebook, the most recently changed first: [{ id, name, changed }]. */
    list: () => readIndex().sort((a, b) => (b.changed ?? 0) - (a.changed ?? 0)),
    get,
    create,
    save,
    rename(id, name) {
      const list = readIndex();
      const entry = list.find((e) => e.id === id);
      if (!entry) return;
      entry.name = name.trim() || entry.name;
      writeIndex(list);
    },
    /** A copy beside it, named "… (copy)"; its id. */
    duplicate(id) {
      const original = get(id);
      if (!original) throw new LibraryError('That notebook is no longer in the list.');
      return create({ name: `${original.name} (copy)`, cells: original.cells, profile: original.profile });
    },
    /** Removes a notebook; the function returned puts it back as it was (the undo). */
    remove(id) {
      const list = readIndex();
      const at = list.findIndex((e) => e.id === id);
      if (at < 0) return () => {};
      const [entry] = list.splice(at, 1);
      const body = storage.getItem(ENTRY_PREFIX + id);
      writeIndex(list);
      storage.removeItem(ENTRY_PREFIX + id);
      return () => {
        storage.setItem(ENTRY_PREFIX + id, body);
        writeIndex([...readIndex(), entry]);
      };
    },
    /** A notebook with exactly these cells (sources and kinds), if one is kept: reopening a link finds it. */
    findSame(cells) {
      const wanted = cells.map(cleanCell);
      return readIndex().map((e) => get(e.id)).find((nb) => nb && sameCells(nb.cells, wanted))?.id ?? null;
    },
    /** The single notebook of earlier versions, taken in once as "My notebook" (and removed from its old key). */
    adoptLegacy() {
      let stored;
      try {
        stored = JSON.parse(storage.getItem(LEGACY_KEY) ?? 'null');
      } catch {
        stored = null;
      }
      if (!stored || !Array.isArray(stored.cells)) return null;
      const id = create({ name: 'My notebook', cells: stored.cells, profile: stored.profile });
      storage.removeItem(LEGACY_KEY);
      return id;
    },
  };
}

/** "just now", "5 minutes ago", "yesterday", or the date: when a notebook last changed. */
export function changedText(time, now = Date.now()) {
  const minutes = Math.round((now - time) / 60000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 24) return `${hours} hour${hours === 1 ? '' : 's'} ago`;
  if (hours < 48) return 'yesterday';
  return new Date(time).toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' });
}
