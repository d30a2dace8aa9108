// The page's one way to wait for the frame that shows what was just drawn: a task queued from that frame's
// animation callback runs once its paint is done, so work put there neither delays nor joins that frame.

/**
 * Resolves once what is drawn now has been painted: at once where nothing paints (a hidden tab, which runs no
 * animation frames, or outside a browser).
 */
export function afterPaint() {
  return new Promise((resolve) => {
    if (typeof requestAnimationFrame !== 'function' || globalThis.document?.visibilityState === 'hidden') return resolve();
    requestAnimationFrame(() => setTimeout(resolve));
  });
}
