// One step of the walk-through, drawn from its data (web/steps/*.js) and the results of computeChapter():
// heading, first paragraph, each shown result with a legend for the marks in use, the optional picture, the
// note, the "What if…" mistakes, the equivalence and layout panels, formula, code, the rest of the prose, the
// recap, the notebook link with "Copy as PyTorch" and the "Try it" chips. (step, view) in, an <article> out;
// its only effects are its own buttons' handlers and the notebook link's hash, filled in when it is made.
import { append, h, inlineCode } from './dom.js';
import { renderFormula } from './formula.js';
import { shownCode, renderCode } from './code.js';
import { renderResult, renderValue, marksIn, keptFigure } from './matrix.js';
import { renderEmbeddings, renderContext } from './vectors.js';
import { sectionTitle } from './toc.js';
import { renderOverview, renderRecap } from './overview.js';
import { renderGptBlock } from './gpt-block.js';
import { installPrediction } from './predict.js';
import { installExercise } from './exercise.js';
import { queryIndex } from '../state.js';
import { theQuery } from '../steps/words.js';
import { shownResults } from '../steps/index.js';
import { renderEquivalence } from './equivalence.js';
import { renderLayout } from './layout.js';
import { renderMistakes } from './mistake.js';
import { renderDiagnose } from './diagnose.js';
import { CONTROLS } from './settings.js';
import { cellsForStep, scriptForStep } from '../notebook/chapter-cells.js';
import { notebookHash } from '../notebook/share.js';

const LEGEND = {
  masked: ['legend-masked', 'masked', 'a future token, hidden from this query: −∞ before the softmax, 0 after it'],
  dropped: ['legend-dropped', 'dropped', 'zeroed by dropout; the weights that survive are scaled by 1/(1 − p)'],
};

// "Open in notebook": the chapter's cells up to this step under the current settings, in the notebook page's
// hash (made asynchronously: the hash is compressed; until then the link opens the notebook as it was left).
// "Copy as PyTorch": the same cells as one script, also in the step's data-python attribute.
function notebookLink(step, settings, script) {
  const link = h('a', { class: 'notebook-link needs-site', href: './notebook.html', 'data-notebook-step': step.id },
    'Run this code yourself in the Python notebook →');
  // Made once the page is idle after the frame that shows the step (or at once when the pointer or the focus
  // comes to the link), not in that frame: compressing costs a keystroke a few ms, and a link an edit
  // replaced before then is never made.
  let asked = false;
  const make = () => {
    if (asked || !link.isConnected) return;
    asked = true;
    notebookHash(cellsForStep(step.id, settings), settings.profile).then((hash) => {
      link.href = `./notebook.html${hash}`;
      link.dataset.ready = 'true';
    });
  };
  if (typeof requestIdleCallback === 'function') requestIdleCallback(make, { timeout: 1000 });
  else setTimeout(make, 50);
  link.addEventListener('pointerenter', make);
  link.addEventListener('focus', make);
  const status = h('span', { class: 'copy-status', role: 'status' });
  const copy = h('button', { type: 'button', class: 'button quiet small copy-python' }, 'Copy as PyTorch');
  copy.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(script);
      status.textContent = 'Copied: a script that prints this step’s numbers with PyTorch.';
    } catch {
      status.textContent = 'Could not copy here; the script is in the notebook link too.';
    }
  });
  return h('p', { class: 'notebook-link-wrap' }, link, ' ', copy, ' ', status);
}

/**
 * @param {object} step  a step of web/steps (see the format in web/steps/index.js)
 * @param {{ results: object, settings: object, isBook: boolean, index: number, total: number, katex: object | null,
 *           openBooks: Set<string>, onBookToggle: Function, renamed?: boolean, answers?: object, onAnswer?: Function }} view
 *        renamed: the results are those shown, with words renamed: their figures are placeholders (keptFigure)
 *        later: names of results off screen, drawn once the rest of the step is on screen: placeholders (laterFigure),
 *               and of table boxes off screen in the others (render/matrix.js boxKey): placeholders too; given
 *               (an edit of the step shown, app/patch.js), every table box is a placeholder written into the one shown
 *        answers: the questions answered ({ questionId: guess }); onAnswer(id, guess): one answered (render/predict.js)
 */
/** In place of a result's figure that is drawn after the step is painted (app/patch.js): draw() makes it. */
function laterFigure(result, view) {
  const stub = h('figure', { class: 'result', 'data-tensor': result.name, 'data-later': '' });
  stub.draw = () => renderResult(result, { ...view, later: new Set() }); // all of it, its tables written into those shown
  return stub;
}

export function renderStep(step, view) {
  const { results, settings } = view;
  const script = scriptForStep(step.id, settings);
  const article = h('article', { class: 'step', 'data-step': step.id, 'data-section': step.section, 'data-python': script,
    'aria-labelledby': 'step-title' });
  const title = sectionTitle(step.section);
  append(article, 
    h(
      'header',
      { class: 'step-head' },
      h(
        'p',
        { class: 'step-eyebrow' },
        h('span', { class: 'section-num' }, step.section),
        title ? h('span', { class: 'section-title' }, ` ${title}`) : null,
      ),
      h('h2', { id: 'step-title', tabindex: '-1' }, step.title),
      h('p', { class: 'step-count' }, `Step ${view.index + 1} of ${view.total}`),
    ),
  );

  // The step's first paragraph, then at once its numbers (on the first screen, even on a phone), then how
  // they are made (formula, code) and the rest of the explanation.
  const [lede, ...more] = [step.prose ?? []].flat().map((p) => h('p', {}, ...inlineCode(p)));
  if (lede) append(article, renderLede(lede));

  const shown = shownResults(step, settings).map((name) => results[name] ?? { missing: name });
  // only words renamed: the figures shown are kept and relabelled (app/patch.js), except where a question or
  // an exercise veils them (that step is drawn anew)
  const keepFigures = view.renamed && !step.predict && !step.exercise;
  if (shown.length) {
    const section = h('section', { class: 'results', 'aria-label': 'Results' });
    if (shown.some((r) => Array.isArray(r.shape))) {
      const touch = window.matchMedia('(hover: none), (pointer: coarse)').matches;
      append(section, h('p', { class: 'results-hint' }, touch
        ? 'Tap a number to see how it was computed.'
        : 'Hover, click or Tab to a number to see how it was computed.'));
    }
    for (const r of shown) {
      if (r.missing) {
        append(section, h('p', { class: 'notice is-error' }, `No result named “${r.missing}” (check the step’s show list).`));
      } else if (Array.isArray(r.shape)) {
        append(section, keepFigures ? keptFigure(r) : view.later?.has(r.name) ? laterFigure(r, view) : renderResult(r, view));
      } else if ('value' in r) {
        append(section, renderValue(r));
      }
    }
    if (section.querySelector('[data-tensor], .notice')) append(article, section);
  }

  const marks = new Set(shown.filter((r) => !r.missing).flatMap((r) => [...marksIn(r)]));
  if (marks.size) {
    append(article, 
      h(
        'div',
        { class: 'legend', role: 'note', 'aria-label': 'Legend' },
        h('p', { class: 'legend-title' }, 'Marked cells'),
        h(
          'ul',
          {},
          ...[...marks]
            .filter((m) => LEGEND[m])
            .map((m) => {
              const [cls, name, text] = LEGEND[m];
              return h('li', {}, h('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }, m === 'dropped' ? '⊘' : ''), h('span', {}, h('strong', {}, name), ` — ${text}`));
            }),
        ),
      ),
    );
  }
  if (shown.length) append(article, renderDiagnose(step, settings));
  // a chosen query past the last word: the last word stands in, and the step says so
  const n = settings.tokens.length;
  if (step.query && settings.query > n) {
    const { x, row } = theQuery(settings);
    const sentence = n === 1 ? 'a single word' : `${n} words`;
    append(article, h('p', { class: 'notice', role: 'note' }, `With ${sentence} there is no x(${settings.query}): on this step the query is ${x}, the ${n === 1 ? 'only' : 'last'} token, and the code uses inputs[${row}].`));
  }
  if (step.view === 'embeddings') append(article, renderEmbeddings(settings));
  if (step.view === 'context') {
    append(article, renderContext(settings, results[step.context], { queryIndex: queryIndex(settings), weights: results[step.weights]?.values }));
  }
  if (step.view === 'overview') append(article, renderOverview());

  if (typeof step.note === 'function') {
    let note = null;
    try {
      note = step.note(results, settings);
    } catch (error) {
      note = `(This note could not be computed: ${error.message})`;
    }
    if (note) append(article, h('p', { class: 'step-note' }, h('span', { class: 'note-icon', 'aria-hidden': 'true' }, 'i'), h('span', {}, ...inlineCode(note))));
  }
  if (Array.isArray(step.mistakes)) append(article, renderMistakes(step.mistakes, results, settings, view.openMistakes ?? new Set()));
  if (step.equivalence) append(article, renderEquivalence(step.equivalence, results));
  if (step.layout && results[step.layout.fact]) {
    append(article, renderLayout(results[step.layout.fact].value, { ...step.layout, words: settings.tokens }));
  }


  append(article, renderFormula(step.formula, view.katex));
  const code = shownCode(step, settings);
  append(article, renderCode(code.lines, code.highlight));
  if (more.length) append(article, h('div', { class: 'prose' }, ...more));
  if (Array.isArray(step.recap)) append(article, renderRecap(step.recap));
  if (step.view === 'gpt-block') append(article, renderGptBlock(settings));
  append(article, notebookLink(step, settings, script));

  const controls = (Array.isArray(step.controls) ? step.controls : []).filter((k) => CONTROLS[k]);
  if (controls.length) {
    append(article, 
      h(
        'div',
        { class: 'try-it' },
        h('p', {}, 'Try it: change ', ...joinWords(controls.map((k) => h('button', { type: 'button', class: 'chip', 'data-control': k }, CONTROLS[k].name))), ' in the settings and every number here is recomputed.'),
      ),
    );
  }

  // asks first, with the results it is about veiled until it is answered
  if (step.predict) installPrediction(article, step.predict, results, settings, { saved: view.answers?.[step.predict.id], onAnswer: view.onAnswer });
  if (step.exercise) installExercise(article, step.exercise, results, settings);
  return article;
}

// On a narrow screen the first paragraph shows its first lines (styles.css) so that the numbers come on the
// first screen; "Read more" unfolds it, and shows only where the text is really cut. Whether it is cut is
// read when the browser has laid the paragraph out anyway (a ResizeObserver): asking right after the step is
// drawn would make the browser lay out the whole step an extra time on every edit.
const ledeWatch = typeof ResizeObserver === 'function' ? new ResizeObserver((seen) => {
  const folded = seen.map(({ target: p }) => [p.parentElement, p.parentElement.classList.contains('is-open') || p.scrollHeight > p.clientHeight + 1]);
  for (const [box, fold] of folded) box.classList.toggle('is-folded', fold);
}) : null;

function renderLede(paragraph) {
  const box = h('div', { class: 'prose lede' }, paragraph);
  const toggle = h('button', { type: 'button', class: 'button quiet small lede-toggle', 'aria-expanded': 'false' }, 'Read more');
  toggle.addEventListener('click', () => {
    const open = box.classList.toggle('is-open');
    toggle.setAttribute('aria-expanded', String(open));
    toggle.textContent = open ? 'Show less' : 'Read more';
  });
  box.append(toggle);
  return box;
}

/** Watches the ledes under `root` (the step just drawn) in place of the last step's. */
export function watchLedes(root) {
  ledeWatch?.disconnect();
  for (const p of root.querySelectorAll('.lede > p')) ledeWatch?.observe(p);
}

/** [a, b, c] -> [a, ', ', b, ' or ', c] */
function joinWords(items) {
  return items.flatMap((item, i) => (i === 0 ? [item] : [i === items.length - 1 ? ' or ' : ', ', item]));
}
