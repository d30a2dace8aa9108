// The table of contents: the steps grouped by the chapter's sections, each a real link carrying the
// current settings and the questions answered (so it can be opened in a new tab). The current step has aria-current="step".
import morphdom from 'morphdom';

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

/** @param {{ steps: object[], current: string, settings: object, answers?: object }} view */
export function renderToc(container, { steps, current, settings, answers }) {
  if (relink(container, { steps, current, settings, answers })) return;
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
                  href: formatHash(step.id, settings, answers),
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
  update(container, h('h2', { class: 'panel-title', id: 'toc-title' }, 'Contents'), list);
}

/**
 * Writes only what differs into the container (after an edit, the links' settings): 41 links replaced on every
 * keystroke would be styled, laid out and painted anew.
 */
function update(container, ...children) {
  const next = container.cloneNode(false);
  next.append(...children);
  morphdom(container, next, { childrenOnly: true, getNodeKey: () => null });
}

/**
 * After an edit on the same step the contents differ only in their links' settings (and a title that names a
 * word): written into the links drawn, when they are these steps with this one current, without building the
 * contents again to compare them (a tenth of a keystroke's script at 16 x 16 x 16). False when they must be drawn.
 */
function relink(container, { steps, current, settings, answers }) {
  const links = container.querySelectorAll('a[data-step-link]');
  if (links.length !== steps.length) return false;
  for (const [i, link] of links.entries()) {
    if (link.dataset.stepLink !== steps[i].id || link.hasAttribute('aria-current') !== (steps[i].id === current) || link.childElementCount) return false;
  }
  for (const [i, link] of links.entries()) {
    const href = formatHash(steps[i].id, settings, answers);
    if (link.getAttribute('href') !== href) link.setAttribute('href', href);
    if (link.textContent !== steps[i].title) link.textContent = steps[i].title;
  }
  return true;
}

/** The current step's link. */
export const currentLink = (container) => container.querySelector('a[aria-current="step"]');

/**
 * Where the contents scroll in a box of their own (the sticky column), brings the current step into the part
 * of that box inside the window, centred, when it is outside it; the page itself does not move.
 */
export function revealCurrent(container) {
  const link = currentLink(container);
  if (!link || container.scrollHeight <= container.clientHeight) return;
  const box = container.getBoundingClientRect();
  // below the header, the sticky box can reach past the window's bottom until the page scrolls
  const top = Math.max(box.top, 0);
  const bottom = Math.min(box.bottom, window.innerHeight);
  const at = link.getBoundingClientRect();
  if (at.top >= top && at.bottom <= bottom) return;
  container.scrollTop += at.top - top - (bottom - top - at.height) / 2;
}

// The chapter's four parts, for the header's "you are here".
const PARTS = [
  ['3.3', 'Self-attention'],
  ['3.4', 'Trainable weights'],
  ['3.5', 'Causal mask'],
  ['3.6', 'Multi-head'],
];

/** The header's compact "you are here": the chapter's parts, the current one marked; each opens its first step. */
export function renderHere(container, { steps, current, settings, answers }) {
  const part = (section) => PARTS.find(([n]) => section === n || section.startsWith(`${n}.`))?.[0];
  const here = part(steps.find((s) => s.id === current)?.section ?? '');
  const index = steps.findIndex((s) => s.id === current);
  update(
    container,
    h(
      'ol',
      { class: 'here-parts' },
      ...PARTS.map(([n, name]) => {
        const first = steps.find((s) => part(s.section) === n);
        return h(
          'li',
          { class: n === here ? 'is-here' : '' },
          first
            ? h('a', { href: formatHash(first.id, settings, answers), 'data-step-link': first.id, 'aria-current': n === here ? 'location' : null },
                h('span', { class: 'here-num' }, n), h('span', { class: 'here-name' }, ` ${name}`))
            : h('span', {}, n),
        );
      }),
    ),
    h('p', { class: 'here-step' }, `step ${index + 1} of ${steps.length}`),
  );
}
