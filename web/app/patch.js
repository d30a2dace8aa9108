// An edit that leaves the page on the same step updates the step drawn before in place instead of replacing it:
// each tensor's figure keeps its elements, and only the text and attributes that changed are written
// (morphdom), so that the browser styles, lays out and paints again only those (a keystroke in a word at
// 16 x 16 x 16 changes the tables' labels, not their 512 cells). The rest of the step (prose, formula, code,
// panels) is small and is replaced whole, with its own buttons' handlers.
//
// What makes a figure safe to keep: its handlers are properties (onclick), found from the event, which the kept
// element takes over from the new drawing (render/matrix.js); everything else in it is attributes and text.
import morphdom from 'morphdom';

import { recheckOverflow } from '../render/matrix.js';

// A step whose question or exercise veils its results holds those figures in its handlers: it is drawn anew.
const HOLDS_FIGURES = '.predict, .predict-off, .exercise';
// State the page adds to a drawn figure or table box after it is drawn (outlines, fades), kept across an update.
const KEPT_CLASSES = ['is-updated', 'is-scrollable', 'fade-left', 'fade-right'];

/**
 * Shows `next` (a step just drawn) in `host`: in place of the step there if it is the same step drawn for other
 * numbers, else as a new step. Returns the article now shown.
 */
export function showStep(host, next) {
  const shown = host.firstElementChild;
  if (!shown || shown.tagName !== next.tagName || shown.dataset.step !== next.dataset.step ||
    shown.querySelector(HOLDS_FIGURES) || next.querySelector(HOLDS_FIGURES)) {
    host.replaceChildren(next);
    return next;
  }
  morphdom(shown, next, {
    getNodeKey: () => null, // matched by position: the same step draws the same structure
    onBeforeElUpdated: (from, to) => {
      const sameKind = from.classList[0] === to.classList[0]; // e.g. a table box and a cut one, after "Draw all"
      if (sameKind && (from === shown || from.matches('section.results') || from.closest('figure.result'))) return keep(from, to);
      from.replaceWith(to); // not a figure: the new drawing, with its own handlers
      return false;
    },
  });
  return shown;
}

/** Updates `from` to look like `to` (morphdom then writes the attributes that differ and goes on to the children). */
function keep(from, to) {
  if (from.matches('.offscreen-columns')) return false; // written from the layout: checked again below
  for (const name of KEPT_CLASSES) if (from.classList.contains(name)) to.classList.add(name);
  if (from.onclick || to.onclick) from.onclick = to.onclick;
  // the page's policy forbids writing a style attribute (morphdom would): the declarations go through the CSSOM
  if (from.style.cssText !== to.style.cssText) from.style.cssText = to.style.cssText;
  if (from.matches('.matrix-box')) recheckOverflow(from);
  return true;
}
