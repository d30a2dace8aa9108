// A step's formula typeset by KaTeX. The TeX comes from the step files (trusted, written with the page),
// never from user input. Without KaTeX the source is shown as text.
import { h } from './dom.js';

export function renderFormula(tex, katex) {
  if (!tex) return null;
  const box = h('div', { class: 'formula' });
  if (katex) {
    try {
      katex.render(tex, box, { displayMode: true, throwOnError: false, output: 'htmlAndMathml' });
      return box;
    } catch {
      // fall through to the source
    }
  }
  box.append(h('code', { class: 'formula-source' }, tex));
  return box;
}
