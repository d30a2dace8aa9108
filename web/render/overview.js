// Where attention sits: a GPT-style model as a stack of layers, the chapter's layer marked (the first step
// shows it), and the recap of the chapter's classes (the last step shows it, from that step's `recap` data).
import { h } from './dom.js';

// A GPT-2-style model from input to output; `part` marks the layer this chapter builds.
const GPT_LAYERS = [
  { name: 'Token embeddings + position embeddings', detail: 'each word becomes a vector (a few numbers here, 768 in GPT-2)' },
  {
    name: 'Transformer block',
    repeat: '× 12 in GPT-2 small',
    inner: [
      { name: 'LayerNorm' },
      { name: 'Masked multi-head attention', detail: 'each token gathers what it needs from the tokens before it', part: true },
      { name: 'Dropout, then add the block’s input (shortcut)' },
      { name: 'LayerNorm' },
      { name: 'Feed-forward network', detail: 'each token on its own' },
      { name: 'Dropout, then add (shortcut)' },
    ],
  },
  { name: 'Final LayerNorm' },
  { name: 'Linear output layer', detail: 'a score for every word of the vocabulary: the next-token prediction' },
];

function layer({ name, detail, part }) {
  return h(
    'li',
    { class: `gpt-layer${part ? ' is-here' : ''}` },
    h('span', { class: 'gpt-name' }, name),
    part ? h('span', { class: 'gpt-here' }, 'this chapter') : null,
    detail ? h('span', { class: 'gpt-detail' }, detail) : null,
  );
}

/** The diagram: an ordered list from input (top) to output (bottom). */
export function renderOverview() {
  return h(
    'figure',
    { class: 'overview' },
    h('figcaption', {}, h('strong', {}, 'Where attention sits. '),
      'A GPT-style model, input at the top: the chapter builds the attention layer, which every transformer block repeats.'),
    h(
      'ol',
      { class: 'gpt-stack' },
      ...GPT_LAYERS.map((l) =>
        l.inner
          ? h('li', { class: 'gpt-block' },
              h('span', { class: 'gpt-name' }, l.name, h('span', { class: 'gpt-repeat' }, ` ${l.repeat}`)),
              h('ol', { class: 'gpt-inner' }, ...l.inner.map(layer)))
          : layer(l),
      ),
    ),
  );
}

/** @param {{ name: string, adds: string }[]} rows  each class of the chapter and what it adds to the one before */
export function renderRecap(rows) {
  return h(
    'section',
    { class: 'recap', 'aria-labelledby': 'recap-title' },
    h('h3', { id: 'recap-title' }, 'Recap: what each class adds'),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'class'), h('th', { scope: 'col' }, 'adds to the one before'))),
      h('tbody', {}, ...rows.map((r) => h('tr', {}, h('th', { scope: 'row' }, h('code', {}, r.name)), h('td', {}, r.adds)))),
    ),
  );
}
