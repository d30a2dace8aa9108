// Where the chapter leads: one transformer block of the next chapter's GPT model, drawn as its layers from
// input (top) to output, the two shortcuts as lines around the parts they skip, and beside every layer the
// shape of what it outputs, at GPT-2's size and at the sizes of the settings.
import { h } from './dom.js';

// GPT-2 small (124M): 1024 tokens of context, 768 features, 12 heads of 64.
export const GPT2 = { tokens: 1024, width: 768, heads: 12 };

const shape = (rows, cols) => `${rows} × ${cols}`;

/** The block's layers in two shortcut groups, each layer with its output shape for GPT-2 and for `here`. */
export function blockLayers(here) {
  const sizes = (width) => ({ gpt2: shape(GPT2.tokens, GPT2.width), here: shape(here.tokens, width) });
  const heads = (s) => `${s.heads} heads of ${s.width / s.heads}`;
  return [
    [
      { name: 'LayerNorm', detail: 'each token’s numbers scaled to mean 0 and variance 1, then stretched and shifted by learned weights', ...sizes(here.d_in) },
      {
        name: 'Masked multi-head attention',
        detail: `this chapter’s MultiHeadAttention: GPT-2 uses ${heads(GPT2)}; here ${here.heads} head${here.heads === 1 ? '' : 's'} of ${here.d_out / here.heads}`,
        here: shape(here.tokens, here.d_out),
        gpt2: shape(GPT2.tokens, GPT2.width),
        chapter: true,
      },
      { name: 'Dropout', detail: 'zeroes a random share of the outputs while training', ...sizes(here.d_out) },
    ],
    [
      { name: 'LayerNorm', ...sizes(here.d_in) },
      {
        name: 'Feed-forward network',
        detail: `each token on its own: Linear to 4 × the width (${4 * GPT2.width} in GPT-2, ${4 * here.d_in} here), GELU, Linear back`,
        ...sizes(here.d_in),
      },
      { name: 'Dropout', ...sizes(here.d_in) },
    ],
  ];
}

function layerRow(layer) {
  return h(
    'li',
    { class: `gpt-block-layer${layer.chapter ? ' is-chapter' : ''}`, 'data-layer': layer.name },
    h('span', { class: 'gpt-block-name' }, layer.name, layer.chapter ? h('span', { class: 'gpt-here' }, 'this chapter') : null),
    layer.detail ? h('span', { class: 'gpt-block-detail' }, layer.detail) : null,
    h('span', { class: 'gpt-block-shape', 'data-size': 'gpt2' }, h('span', { class: 'gpt-block-shape-label' }, 'GPT-2 '), layer.gpt2),
    h('span', { class: 'gpt-block-shape', 'data-size': 'here' }, h('span', { class: 'gpt-block-shape-label' }, 'here '), layer.here),
  );
}

/**
 * The figure for settings `s` (words, d_in, d_out, heads). A shortcut adds a part's input to its output, so
 * it needs d_out = d_in: GPT keeps the two equal; where the settings do not, the figure says so.
 */
export function renderGptBlock(s) {
  const here = { tokens: s.tokens.length, d_in: s.embeddings[0].length, d_out: s.d_out, heads: s.heads };
  const fits = here.d_in === here.d_out;
  const input = { gpt2: shape(GPT2.tokens, GPT2.width), here: shape(here.tokens, here.d_in) };
  const add = (k) =>
    h(
      'li',
      { class: 'gpt-block-add', 'data-layer': `shortcut ${k}` },
      h('span', { class: 'gpt-block-plus', 'aria-hidden': 'true' }, '+'),
      h('span', { class: 'gpt-block-name' }, 'Shortcut: add the input of this part'),
      h('span', { class: 'gpt-block-shape', 'data-size': 'gpt2' }, h('span', { class: 'gpt-block-shape-label' }, 'GPT-2 '), input.gpt2),
      h('span', { class: 'gpt-block-shape', 'data-size': 'here' }, h('span', { class: 'gpt-block-shape-label' }, 'here '), fits ? input.here : 'needs d_out = d_in'),
    );
  const groups = blockLayers(here).map((layers, k) =>
    h('li', { class: 'gpt-block-part' }, h('ol', { class: 'gpt-block-layers' }, ...layers.map(layerRow), add(k + 1))),
  );
  return h(
    'figure',
    { class: 'gpt-block', 'aria-labelledby': 'gpt-block-title' },
    h('figcaption', { id: 'gpt-block-title' }, h('strong', {}, 'Where this leads. '),
      'One transformer block of the next chapter’s GPT model, input at the top; GPT-2 small stacks 12 of them. Each line on the left is a shortcut: ' +
      'the part’s input goes around it and is added to its output. Beside each layer, the shape of its output for one sequence (tokens × features).'),
    h(
      'ol',
      { class: 'gpt-block-flow' },
      h('li', { class: 'gpt-block-io' }, h('span', { class: 'gpt-block-name' }, 'Block input'),
        h('span', { class: 'gpt-block-shape', 'data-size': 'gpt2' }, h('span', { class: 'gpt-block-shape-label' }, 'GPT-2 '), input.gpt2),
        h('span', { class: 'gpt-block-shape', 'data-size': 'here' }, h('span', { class: 'gpt-block-shape-label' }, 'here '), input.here)),
      ...groups,
      h('li', { class: 'gpt-block-io' }, h('span', { class: 'gpt-block-name' }, 'Block output, to the next block'),
        h('span', { class: 'gpt-block-shape', 'data-size': 'gpt2' }, h('span', { class: 'gpt-block-shape-label' }, 'GPT-2 '), input.gpt2),
        h('span', { class: 'gpt-block-shape', 'data-size': 'here' }, h('span', { class: 'gpt-block-shape-label' }, 'here '), fits ? input.here : '—')),
    ),
    h('p', { class: 'gpt-block-note' },
      fits
        ? `Here d_in = d_out = ${here.d_in}, as in GPT-2 (768), so the shortcuts can add each part’s input to its output.`
        : `Here d_in = ${here.d_in} and d_out = ${here.d_out}: a shortcut adds tensors of one shape, so a GPT block keeps d_out = d_in (768 in GPT-2). Set d_out to ${here.d_in} to see the whole block’s shapes.`),
  );
}
