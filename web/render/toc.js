// The table of contents: the steps grouped by the chapter's sections, each a real link carrying the
// current settings (so it can be opened in a new tab). The current step has aria-current="step".
import { h } from './dom.js';
import { formatHash } from '../state.js';

// The chapter's section headings, for the groups.
const SECTIONS = {
  '3.3': 'Attending to different parts of the input with self-attention',
  '3.3.1': 'A simple self-attention mechanism without trainable weights',
  '3.3.2': 'Computing attention weights for all input tokens',
  '3.4': 'Implementing self-attention with trainable weights',
  '3.4.1': 'Computing the attention weights step by step',
  '3.4.2': 'Implementing a compact self-attention Python class',
  '3.5': 'Hiding future words with causal attention',
  '3.5.1': 'Applying a causal attention mask',
  '3.5.2': 'Masking additional attention weights with dropout',
  '3.5.3': 'Implementing a compact causal attention class',
  '3.6': 'Extending single-head attention to multi-head attention',
  '3.6.1': 'Stacking multiple single-head attention layers',
  '3.6.2': 'Implementing multi-head attention with weight splits',
};

export const sectionTitle = (section) => SECTIONS[section] ?? '';

/** Consecutive steps of one section form a group. */
function groups(steps) {
  const out = [];
  for (const step of steps) {
    const lastGroup = out[out.length - 1];
    if (lastGroup && lastGroup.section === step.section) lastGroup.steps.push(step);
    else out.push({ section: step.section, steps: [step] });
  }
  return out;
}

/** @param {{ steps: object[], current: string, settings: object }} view */
export function renderToc(container, { steps, current, settings }) {
  const list = h('ol', { class: 'toc-sections' });
  for (const group of groups(steps)) {
    const title = sectionTitle(group.section);
    const headingId = `toc-${group.section}`.replace(/[^\w-]/g, '-');
    list.append(
      h(
        'li',
        { class: 'toc-section' },
        h('p', { class: 'toc-heading', id: headingId }, h('span', { class: 'toc-num' }, group.section), title ? ` ${title}` : ''),
        h(
          'ol',
          { class: 'toc-steps', 'aria-labelledby': headingId },
          ...group.steps.map((step) =>
            h(
              'li',
              {},
              h(
                'a',
                {
                  href: formatHash(step.id, settings),
                  'data-step-link': step.id,
                  'aria-current': step.id === current ? 'step' : null,
                },
                step.title,
              ),
            ),
          ),
        ),
      ),
    );
  }
  container.replaceChildren(h('h2', { class: 'panel-title', id: 'toc-title' }, 'Contents'), list);
}
