// A step's formula typeset by KaTeX. The TeX comes from the step files (trusted, written with the page),
// never from user input. KaTeX arrives after the first numbers: until then a formula is a quiet placeholder
// (typesetPending fills it in); if KaTeX cannot load, the source is shown as text.
import { h } from './dom.js';

// On a narrow screen a display formula would run off the edge (KaTeX never breaks display math), so there it
// is typeset as inline math, which breaks after a top-level relation or operator, in a centred block.
const NARROW = '(max-width: 40rem)';

// Formulas typeset before, copied instead of typeset again on every edit (KaTeX takes milliseconds a formula;
// a step's formula changes with the sizes only): the last KEPT_FORMULAS, by width and TeX.
const typesetBefore = new Map();
const KEPT_FORMULAS = 64;

/** @param katex KaTeX, null when it could not load, undefined while it is loading */
export function renderFormula(tex, katex) {
  if (!tex) return null;
  const narrow = typeof matchMedia === 'function' && matchMedia(NARROW).matches;
  const box = h('div', { class: narrow ? 'formula is-wrapping' : 'formula' });
  if (katex === undefined) {
    box.classList.add('is-pending');
    box.dataset.tex = tex;
    box.append(h('span', { class: 'sr-only' }, tex));
    return box;
  }
  if (katex) {
    const key = `${narrow} ${tex}`;
    const known = typesetBefore.get(key);
    if (known) return known.cloneNode(true);
    try {
      katex.render(tex, box, { displayMode: !narrow, throwOnError: false, output: 'htmlAndMathml' });
      typesetBefore.set(key, box.cloneNode(true));
      if (typesetBefore.size > KEPT_FORMULAS) typesetBefore.delete(typesetBefore.keys().next().value);
      return box;
    } catch {
      // fall through to the source
    }
  }
  box.append(h('code', { class: 'formula-source' }, tex));
  return box;
}

/** Typesets the placeholders under `root` now that KaTeX has loaded (or failed: null). */
export function typesetPending(root, katex) {
  for (const box of root.querySelectorAll('.formula.is-pending')) {
    const typeset = renderFormula(box.dataset.tex, katex);
    typeset.hidden = box.hidden; // a formula that solves an exercise stays hidden until it is solved
    box.replaceWith(typeset);
  }
}
