// Compact pictures of vectors: 'embeddings' draws each token's input vector as a small bar chart;
// 'context' puts each token's input beside its context vector. Bars grow from a zero line (so negative
// values point left) and every bar is labelled with its number, so nothing depends on colour.
import { h, fmt } from './dom.js';

function range(vectors) {
  const flat = vectors.flat().filter(Number.isFinite);
  return { min: Math.min(0, ...flat), max: Math.max(0, ...flat) };
}

/** A vector as rows of [name][bar][value]. */
function bars(vector, names, { min, max }) {
  const span = max - min || 1;
  const zero = ((0 - min) / span) * 100;
  return h(
    'ul',
    { class: 'bars' },
    ...vector.map((v, k) => {
      const from = Math.min(zero, ((v - min) / span) * 100);
      const width = Math.abs(v / span) * 100;
      return h(
        'li',
        { class: 'bar-row' },
        h('span', { class: 'bar-dim' }, names?.[k] ?? `d${k}`),
        h(
          'span',
          { class: 'bar-track', 'aria-hidden': 'true', style: { '--zero': `${zero}%` } },
          h('span', { class: `bar-fill${v < 0 ? ' neg' : ''}`, style: { '--from': `${from}%`, '--width': `${width}%` } }),
        ),
        h('span', { class: 'bar-num' }, fmt(v)),
      );
    }),
  );
}

/** An input's attention weight in a weighted sum: its number and a bar as long as its share of 1. */
function weightOf(w) {
  if (!Number.isFinite(w)) return null;
  return h(
    'p',
    { class: 'context-weight' },
    h('span', { class: 'context-weight-num' }, `× ${fmt(w)}`),
    h('span', { class: 'context-weight-track', 'aria-hidden': 'true' }, h('span', { class: 'context-weight-fill', style: { '--weight': `${Math.max(0, Math.min(1, w)) * 100}%` } })),
  );
}

/** Each token's 3-D embedding as a small bar chart, labelled with its word. */
/** 'd0, d1, d2'; 'd0, …, d15' when there are many. */
const featureNames = (d) => (d <= 4 ? Array.from({ length: d }, (_, j) => `d${j}`).join(', ') : `d0, …, d${d - 1}`);

export function renderEmbeddings(settings) {
  const scale = range(settings.embeddings);
  return h(
    'figure',
    { class: 'view view-embeddings' },
    h('figcaption', {}, `The input: one embedding vector (${featureNames(settings.embeddings[0].length)}) per token`),
    h(
      'ol',
      { class: 'token-cards' },
      ...settings.tokens.map((word, i) =>
        h('li', { class: 'token-card' }, h('p', { class: 'token-word' }, h('span', { class: 'token-index' }, `x${i + 1}`), ' ', word), bars(settings.embeddings[i], null, scale)),
      ),
    ),
  );
}

/**
 * Inputs beside context vectors. `context` is a result: 1-D (the context vector of one query, shown beside
 * all the inputs it blends, each with its attention weight from `weights`; `queryIndex`, default 1 = the
 * book's x(2)), 2-D (one per token, each beside its
 * input) or 3-D (batch 0). When the context vectors live in the inputs' space (3 features) both sides share
 * one scale, so the bars can be compared directly.
 */
export function renderContext(settings, context, { queryIndex = 1, weights = null } = {}) {
  if (!context || !Array.isArray(context.values)) return null;
  const nd = context.shape.length;
  if (nd < 1 || nd > 3) return null;
  const outRows = nd === 1 ? [context.values] : nd === 3 ? context.values[0] : context.values;
  const sameSpace = outRows[0].length === settings.embeddings[0].length;
  const inScale = range(sameSpace ? [...settings.embeddings, ...outRows] : settings.embeddings);
  const outScale = sameSpace ? inScale : range(outRows);
  const colNames = Array.isArray(context.cols) && context.cols.length === outRows[0].length ? context.cols : null;
  const name = context.label ?? context.name;
  const word = (i) => h('p', { class: 'token-word' }, h('span', { class: 'token-index' }, `x${i + 1}`), ' ', settings.tokens[i]);
  const scaleNote = sameSpace ? ' (one scale for both sides)' : '';

  if (nd === 1) {
    return h(
      'figure',
      { class: 'view view-context' },
      h('figcaption', {}, 'The inputs and the context vector ', h('code', {}, name), ` of the query “${settings.tokens[queryIndex]}”${scaleNote}`),
      h(
        'div',
        { class: 'context-single' },
        h('ol', { class: 'context-inputs' }, ...settings.embeddings.map((x, i) => h('li', { class: `context-input${i === queryIndex ? ' is-query' : ''}` }, word(i), weightOf(weights?.[i]), bars(x, null, inScale)))),
        h('span', { class: 'context-arrow', 'aria-hidden': 'true' }, '→'),
        h('div', { class: 'context-out' }, h('p', { class: 'token-word' }, h('code', {}, name)), bars(outRows[0], colNames, outScale)),
      ),
    );
  }
  return h(
    'figure',
    { class: 'view view-context' },
    h('figcaption', {}, 'Each input beside its context vector in ', h('code', {}, name), nd === 3 ? ' (batch 0)' : '', scaleNote),
    h(
      'ol',
      { class: 'context-rows' },
      ...outRows.map((row, i) =>
        h(
          'li',
          { class: 'context-row' },
          word(i),
          h(
            'div',
            { class: 'context-pair' },
            h('div', { class: 'context-side' }, h('p', { class: 'side-label' }, 'input'), bars(settings.embeddings[i], null, inScale)),
            h('span', { class: 'context-arrow', 'aria-hidden': 'true' }, '→'),
            h('div', { class: 'context-side' }, h('p', { class: 'side-label' }, 'context'), bars(row, colNames, outScale)),
          ),
        ),
      ),
    ),
  );
}
