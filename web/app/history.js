// The browser's history as the page keeps it: every step and every settings edit is one entry, so Back undoes
// an edit (however many keys it took) and Previous / Next move between steps. writeHash() is the one place
// that writes the URL.

// An edit under way: its first write made an entry, the next ones replace it, until the field is left or the
// choice made (the 'change' event).
let editing = false;

/** Shows `hash` in the address bar: as a new entry of the history, or in place of the current one. */
export function writeHash(hash, { replace = false } = {}) {
  if (location.hash === hash) return;
  if (replace) history.replaceState(null, '', hash);
  else history.pushState(null, '', hash);
}

/** Writes the hash of an edit's newly computed settings: one entry for the whole edit. */
export function writeEdit(hash, { committed }) {
  writeHash(hash, { replace: editing });
  editing = !committed;
}

/** The edit under way is over: the next one makes an entry of its own. */
export function endEdit() {
  editing = false;
}
