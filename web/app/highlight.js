// After an edit: the tensors whose numbers changed are briefly outlined, and the first of them is brought into
// view where the settings leave the step in sight (beside it on a wide screen, or above the open drawer).

/** How to scroll: at once for readers who asked for reduced motion. */
export const scrollBehavior = () => (window.matchMedia('(prefers-reduced-motion: reduce)').matches ? 'auto' : 'smooth');

/** The values of the step's tensors as shown: name -> data-values text. */
export function shownValues(step) {
  return new Map([...step.querySelectorAll('[data-tensor]')].map((el) => [el.dataset.tensor, el.dataset.values]));
}

/**
 * Marks the tensors whose values differ from `before` (shownValues() before the edit) and scrolls the first
 * into view if it is not in view already (unless `scroll` is false: an earlier part of the same edit did).
 * Where it is is read in the next frame, once the browser has laid the step out for this one: reading it at
 * once would lay the page out twice per edit. Returns whether any tensor was marked.
 * @param {{ step: HTMLElement, settings: HTMLElement, nav: HTMLElement, drawerOpen: boolean, scroll?: boolean }} page
 *        nav: the step bar at the foot of the screen
 */
export function showUpdated(before, { step, settings, nav, drawerOpen, scroll = true }) {
  const changed = [...step.querySelectorAll('[data-tensor]')].filter(
    (el) => before.has(el.dataset.tensor) && before.get(el.dataset.tensor) !== el.dataset.values,
  );
  for (const el of changed) {
    // a tensor outlined already (updated in place, app/patch.js) starts its outline again: the same animation
    // under its other name (styles.css), without reading the style or the layout
    if (el.classList.contains('is-updated')) el.classList.toggle('is-updated-again');
    el.classList.add('is-updated');
  }
  if (changed.length && scroll) requestAnimationFrame(() => bringIntoView(changed, { step, settings, nav, drawerOpen }));
  return changed.length > 0;
}

function bringIntoView(changed, { step, settings, nav, drawerOpen }) {
  const first = changed.find((el) => el.isConnected && el.getClientRects().length > 0);
  if (!first) return;
  const rect = first.getBoundingClientRect();
  if (drawerOpen) {
    // the drawer covers the lower part: the result goes to the top of the screen, above it
    const drawerTop = settings.getBoundingClientRect().top;
    if (rect.top < 0 || rect.top > drawerTop - 60) first.scrollIntoView({ block: 'start', behavior: scrollBehavior() });
    return;
  }
  const besideStep = settings.getBoundingClientRect().left >= step.getBoundingClientRect().right;
  const bottom = nav.getBoundingClientRect().top;
  if (besideStep && (rect.top > bottom - 80 || rect.bottom < 0)) first.scrollIntoView({ block: 'nearest', behavior: scrollBehavior() });
}
