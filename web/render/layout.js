// The layout explorer of the multi-head steps: pick an element of the split view [b, heads, tokens, head_dim]
// and see which element of the storage of queries [b, tokens, d_out] it is, from the view's shape, strides
// and offset (the core's own, as t.stride() and t.storage_offset() give them), with both cells outlined
// in the tables on the step. It also shows why contiguous() comes before view() when the heads are merged.
import { h } from './dom.js';

const AXES = ['batch', 'head', 'token', 'column'];

/** Storage position of an index under strides and offset. */
export const storageIndex = (index, strides, offset) => index.reduce((at, i, d) => at + i * strides[d], offset);

/** The index whose row-major position in `shape` is `at`. */
export function unravel(at, shape) {
  const index = [];
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = at % shape[d];
    at = Math.floor(at / shape[d]);
  }
  return index;
}

/**
 * @param {{ shape, strides, offset, contiguous, storage, storageStrides, viewError }} layout  results.mha_layout.value
 * @param {{ view: string, storage: string, viewLabel: string, storageLabel: string, words: string[] }} names
 *        the two results' names, what the text calls them, and the token words
 */
export function renderLayout(layout, names) {
  const pick = [0, 0, Math.min(1, layout.shape[2] - 1), 0];
  const out = h('div', { class: 'layout-out', 'aria-live': 'polite' });
  const selects = AXES.map((axis, d) =>
    h(
      'label',
      { class: 'layout-pick' },
      h('span', {}, axis),
      h(
        'select',
        {
          'data-axis': String(d),
          onchange: (e) => {
            pick[d] = Number(e.target.value);
            update();
          },
        },
        ...Array.from({ length: layout.shape[d] }, (_, i) =>
          h('option', { value: String(i), selected: i === pick[d] }, d === 2 && names.words[i] !== undefined ? `${i} (${names.words[i]})` : String(i)),
        ),
      ),
    ),
  );
  const section = h(
    'section',
    { class: 'layout-explorer', 'aria-labelledby': 'layout-title' },
    h('h3', { id: 'layout-title' }, 'Where does an element of the split view live?'),
    h('p', { class: 'layout-hint' }, h('code', {}, `${names.viewLabel} = ${names.storageLabel}.view(b, num_tokens, num_heads, head_dim).transpose(1, 2)`), ' copies nothing: view() and transpose() give the same storage new strides. Pick an element of ', h('code', {}, names.viewLabel), ':'),
    h('div', { class: 'layout-picks' }, ...selects),
    out,
    h(
      'p',
      { class: 'layout-contiguous' },
      h('code', {}, `${names.viewLabel}.is_contiguous()`),
      ` → ${layout.contiguous ? 'True' : 'False'}. `,
      layout.viewError
        ? ['Merging the heads back with ', h('code', {}, '.view(b, num_tokens, d_out)'), ' on the transposed tensor fails in the core as in PyTorch: ', h('q', { class: 'layout-error' }, layout.viewError), '. ', h('code', {}, 'contiguous()'), ' first copies the elements into row-major order, and then view() can regroup them.']
        : 'With these sizes the heads can be merged back with view() directly.',
    ),
  );

  function update() {
    const at = storageIndex(pick, layout.strides, layout.offset);
    const home = unravel(at, layout.storage);
    const terms = pick.map((i, d) => `${i}·${layout.strides[d]}`).join(' + ');
    out.replaceChildren(
      h('p', {}, h('code', {}, `${names.viewLabel}[${pick.join(', ')}]`), ` has shape [${layout.shape.join(', ')}], strides (${layout.strides.join(', ')}) and offset ${layout.offset}: it is storage element ${layout.offset ? `${layout.offset} + ` : ''}${terms} = `, h('strong', { 'data-storage-index': String(at) }, String(at)), '.'),
      h('p', {}, `In ${names.storageLabel}, shape [${layout.storage.join(', ')}], strides (${layout.storageStrides.join(', ')}), storage element ${at} is `, h('code', { 'data-storage-home': home.join(',') }, `${names.storageLabel}[${home.join(', ')}]`), '.'),
    );
    // outline both cells where the tables are on the step
    const step = section.closest('[data-step]');
    if (!step) return;
    for (const c of step.querySelectorAll('td.is-picked')) c.classList.remove('is-picked');
    step.querySelector(`[data-tensor="${names.view}"] td[data-index="${pick.join(',')}"]`)?.classList.add('is-picked');
    step.querySelector(`[data-tensor="${names.storage}"] td[data-index="${home.join(',')}"]`)?.classList.add('is-picked');
  }
  update();
  // once on the page: outline the cells (update() needs the step around it)
  requestAnimationFrame(update);
  return section;
}
