// "What if…": a mistake learners make on this step, computed with the same core and shown beside the right
// result, with the cell-wise difference as a heatmap and a sentence or two on what went wrong. A step's
// `mistakes` data lists them:
//   { id, question, right: resultName, wrong: resultName, code: { right, wrong }, why(results, settings) }
// The switch is a disclosure button; the tables are drawn when it is opened (and stay open across redraws).
import { h, inlineCode } from './dom.js';
import { renderResult } from './matrix.js';

/**
 * @param {object[]} mistakes   the step's `mistakes`
 * @param {object} results      computeChapter() results
 * @param {object} settings
 * @param {Set<string>} open    ids of the switches that are on (kept by the page)
 */
export function renderMistakes(mistakes, results, settings, open) {
  const usable = mistakes.filter((m) => results[m.right]?.shape && results[m.wrong]?.shape);
  if (usable.length === 0) return null;
  return h('div', { class: 'mistakes' }, ...usable.map((m) => mistakePanel(m, results, settings, open)));
}

function mistakePanel(m, results, settings, open) {
  const bodyId = `mistake-${m.id}`;
  const body = h('div', { class: 'mistake-body', id: bodyId, hidden: !open.has(m.id) });
  const button = h(
    'button',
    { type: 'button', class: 'mistake-switch', 'aria-expanded': String(open.has(m.id)), 'aria-controls': bodyId, 'data-mistake': m.id },
    h('span', { class: 'mistake-kicker' }, 'What if… '),
    m.question,
  );
  const fill = () => body.replaceChildren(...content(m, results, settings));
  if (open.has(m.id)) fill();
  button.addEventListener('click', () => {
    const on = button.getAttribute('aria-expanded') !== 'true';
    button.setAttribute('aria-expanded', String(on));
    if (on) {
      open.add(m.id);
      fill();
    } else {
      open.delete(m.id);
    }
    body.hidden = !on;
  });
  return h('section', { class: 'mistake', 'data-mistake-panel': m.id }, button, body);
}

function content(m, results, settings) {
  const right = { ...results[m.right], book: null };
  const wrong = { ...results[m.wrong], book: null };
  const ctx = { isBook: false, openBooks: new Set() };
  const sameShape = right.shape.join() === wrong.shape.join();
  return [
    h(
      'div',
      { class: 'mistake-code' },
      h('p', {}, h('span', { class: 'mistake-tag is-right' }, 'right'), h('code', {}, m.code.right)),
      h('p', {}, h('span', { class: 'mistake-tag is-wrong' }, 'the mistake'), h('code', {}, m.code.wrong)),
    ),
    h(
      'div',
      { class: 'mistake-tables' },
      renderResult(right, ctx),
      renderResult(wrong, ctx),
      sameShape
        ? renderResult(difference(m, wrong, right), ctx)
        : h('p', { class: 'mistake-shapes' }, `No cell-wise difference: the shapes differ, [${right.shape.join(', ')}] against [${wrong.shape.join(', ')}].`),
    ),
    h('p', { class: 'mistake-why' }, ...inlineCode(m.why(results, settings))),
  ];
}

/** wrong − right, cell by cell, as a result the matrix renderer can draw (on a diverging scale). */
function difference(m, wrong, right) {
  const minus = (a, b) => (Array.isArray(a) ? a.map((x, i) => minus(x, b[i])) : a - b);
  return {
    name: `${m.wrong}:difference`,
    label: 'the mistake − right',
    shape: right.shape,
    values: minus(wrong.values, right.values),
    rows: right.rows,
    cols: right.cols,
    axes: right.axes,
    book: null,
    marks: wrong.marks,
  };
}
