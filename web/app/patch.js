// An edit that leaves the page on the same step updates the step drawn before in place instead of replacing it:
// each tensor's figure keeps its elements, and only the text and attributes that changed are written
// (morphdom), so that the browser styles, lays out and paints again only those (a keystroke in a word at
// 16 x 16 x 16 changes the tables' labels, not their 512 cells). The rest of the step (prose, formula, code,
// panels) is small and is replaced whole, with its own buttons' handlers. A keystroke that only renames a word
// draws no figure at all: the step comes with placeholders, and the figures shown get the new labels. An edit
// that computes draws no table either: each table box comes as a placeholder that writes its numbers, colours
// and marks into the table shown in its place (render/matrix.js patchMatrixBox), or draws it where that table is
// another.
//
// What makes a figure safe to keep: its handlers are properties (onclick), found from the event, which the kept
// element takes over from the new drawing (render/matrix.js); everything else in it is attributes and text.
import morphdom from 'morphdom';

import { boxKey, recheckOverflow, relabel } from '../render/matrix.js';

// A step whose question or exercise veils its results holds those figures in its handlers: it is drawn anew.
const HOLDS_FIGURES = '.predict, .predict-off, .exercise';
// State the page adds to a drawn figure or table box after it is drawn (outlines, fades), kept across an update.
const KEPT_CLASSES = ['is-updated', 'is-updated-again', 'is-scrollable', 'fade-left', 'fade-right'];
// Parts of a step whose handlers (if any) use only their own elements: kept when nothing in them changed (the
// "Try it" chips are handled from the page, main.js; the results' hint is text).
const SAME_WHEN_EQUAL = new Set(['step-head', 'prose', 'formula', 'code', 'step-note', 'legend', 'try-it', 'results-hint']);
const TABLE_PARTS = new Set(['TABLE', 'THEAD', 'TBODY', 'TR', 'TD', 'TH']);

/**
 * Shows `next` (a step just drawn) in `host`: in place of the step there if it is the same step drawn for other
 * numbers, else as a new step. Returns the article now shown, or null when `next` keeps figures (words renamed:
 * render/matrix.js keptFigure) or leaves figures for later (render/step.js laterFigure) that the step shown does
 * not have in the same places: it must be drawn whole. `later` receives the figures left for later, as
 * [figure shown, draw()], each shown meanwhile as it was, with aria-busy (showLater draws them).
 */
export function showStep(host, next, later = []) {
  const shown = host.firstElementChild;
  const same = shown && shown.tagName === next.tagName && shown.dataset.step === next.dataset.step &&
    !shown.querySelector(HOLDS_FIGURES) && !next.querySelector(HOLDS_FIGURES);
  const kept = [...next.querySelectorAll(':scope > .results > figure[data-kept], :scope > .results > figure[data-later]')];
  if (kept.length && !(same && keepsFigures(shown, next, kept))) return null;
  const laterBoxes = [...next.querySelectorAll(':scope > .results > figure .matrix-box[data-later]')];
  if (laterBoxes.length && !(same && keepsBoxes(shown, next, laterBoxes))) return null;
  if (!same) {
    host.replaceChildren(drawn(next));
    return next;
  }
  morphdom(shown, next, {
    getNodeKey: () => null, // matched by position: the same step draws the same structure
    onBeforeElUpdated: (from, to) => {
      if (writtenInto(from, to)) return false;
      if (to.result && to.hasAttribute('data-kept')) {
        relabel(from, to.result); // the same numbers: only the words in its labels are written
        return false;
      }
      if (to.draw && to.hasAttribute('data-later')) {
        from.setAttribute('aria-busy', 'true'); // its numbers are the last ones until showLater
        later.push([from, to.draw, to.patch]);
        return false;
      }
      // morphdom goes top down and only into what is kept: below a figure's top, everything is the figure's
      const sameKind = from.classList[0] === to.classList[0]; // e.g. a table box and a cut one, after "Draw all"
      const top = from.parentNode === shown;
      const inResults = !top && from.parentNode.parentNode === shown; // a child of the results section
      const kept = from === shown || (top ? from.matches('section.results') : inResults ? from.matches('figure.result') : true);
      if (sameKind && kept) return keep(from, to);
      // the step's text, formula and code, unchanged (a word not in them): left as they are, not laid out again
      if ((top || inResults) && SAME_WHEN_EQUAL.has(from.classList[0]) && from.isEqualNode(to)) return false;
      from.replaceWith(drawn(to)); // not a figure: the new drawing, with its own handlers
      return false;
    },
    // a placeholder never shows: where nothing stands in its place (keepsBoxes rules that out), its drawing does
    onBeforeNodeAdded: drawn,
    onElUpdated: (el) => el.paint?.(el),
  });
  return shown;
}

/**
 * A table box placeholder of render/matrix.js (patchedBox) written into the box shown in its place (`from`), or
 * its drawing put there when that box holds another table; false for any other element.
 */
function writtenInto(from, to) {
  if (!(to.patch && to.hasAttribute('data-patch'))) return false;
  if (!to.patch(from)) from.replaceWith(to.draw());
  return true;
}

/** `node` as it is shown: a placeholder drawn, and the placeholders in it (a part of a step that is new) drawn too. */
function drawn(node) {
  if (node.nodeType !== Node.ELEMENT_NODE) return node;
  if (node.draw && (node.hasAttribute('data-patch') || node.hasAttribute('data-later'))) return node.draw();
  for (const stub of node.querySelectorAll('.matrix-box[data-patch]')) stub.replaceWith(stub.draw());
  return node;
}

/**
 * Draws the figures and table boxes showStep left for later (`later`, as it filled it) into them, the same way
 * as an edit updates a figure in place; one that is no longer on the page is skipped.
 */
export function showLater(later) {
  for (const [figure, draw, patch] of later) {
    if (!figure.isConnected || patch?.(figure)) continue; // a table box: its numbers written into it
    morphdom(figure, draw(), {
      getNodeKey: () => null,
      // everything below a figure's top is the figure's (its aria-busy goes with the attributes the drawing lacks)
      onBeforeElUpdated: (from, to) => {
        if (writtenInto(from, to)) return false;
        if (from.classList[0] === to.classList[0]) return keep(from, to);
        from.replaceWith(drawn(to));
        return false;
      },
      onBeforeNodeAdded: drawn,
      onElUpdated: (el) => el.paint?.(el),
    });
  }
}

// Which of the step's figures are on screen, as an IntersectionObserver reports it once the browser has laid
// them out: reading their places when an edit starts would lay the page out an extra time, before the edit
// has written anything. A figure with no report yet counts as on screen.
const onScreen = new Map(); // figure -> whether it is on screen
const screenWatch = typeof IntersectionObserver === 'function'
  ? new IntersectionObserver((entries) => entries.forEach((e) => onScreen.has(e.target) && onScreen.set(e.target, e.isIntersecting)))
  : null;
const resultFigures = (host) => host.querySelectorAll(':scope > article > section.results > figure.result[data-tensor]');
// a figure's table boxes in drawing order (render/matrix.js boxKey); the big ones are watched
const tableBoxes = (figure) => figure.querySelectorAll('.matrix-box');

/** Watches the results' figures of the step now drawn, and their big tables (those of a step drawn before are let go). */
export function watchFigures(host) {
  if (!screenWatch) return;
  for (const element of onScreen.keys()) {
    if (!element.isConnected) {
      screenWatch.unobserve(element);
      onScreen.delete(element);
    }
  }
  for (const figure of resultFigures(host)) {
    for (const element of [figure, ...figure.querySelectorAll('.matrix-box.is-big')]) {
      if (onScreen.has(element)) continue;
      onScreen.set(element, true);
      screenWatch.observe(element);
    }
  }
}

/**
 * What of the step shown is off screen, for an edit to draw it last: the names of the results' figures off
 * screen, and in the others the big table boxes off screen (boxKey: a 16-column figure's small maps may be in
 * sight while its table is below them).
 */
export function figuresOffScreen(host) {
  const names = new Set();
  for (const figure of resultFigures(host)) {
    if (onScreen.get(figure) === false) {
      names.add(figure.dataset.tensor);
      continue;
    }
    tableBoxes(figure).forEach((box, k) => onScreen.get(box) === false && names.add(boxKey(figure.dataset.tensor, k)));
  }
  return names;
}

/** Whether each kept figure of `next` has the figure it stands for, drawn, at its place in `shown`. */
function keepsFigures(shown, next, kept) {
  const [was, is] = [shown, next].map((article) => [...(article.querySelector(':scope > .results')?.children ?? [])]);
  return was.length === is.length &&
    kept.every((stub) => was[is.indexOf(stub)]?.matches(`figure.result[data-tensor="${stub.dataset.tensor}"]:not([data-kept])`));
}

/**
 * Whether each table box left for later in `next` has, drawn in `shown`, a figure for the same tensor and shape
 * at its figure's place, with as many boxes: the same drawing, so that morphdom meets the box in its place.
 */
function keepsBoxes(shown, next, stubs) {
  const [was, is] = [shown, next].map((article) => [...(article.querySelector(':scope > .results')?.children ?? [])]);
  return stubs.every((stub) => {
    const figure = stub.closest('figure.result');
    const before = was[is.indexOf(figure)];
    return was.length === is.length && before?.matches(`figure.result[data-tensor="${figure.dataset.tensor}"][data-shape="${figure.dataset.shape}"]`) &&
      tableBoxes(before).length === tableBoxes(figure).length;
  });
}

/** Updates `from` to look like `to` (morphdom then writes the attributes that differ and goes on to the children). */
function keep(from, to) {
  const classes = from.classList;
  if (classes.contains('offscreen-columns')) return false; // written from the layout: checked again below
  for (const name of KEPT_CLASSES) if (classes.contains(name)) to.classList.add(name);
  if (from.onclick || to.onclick) from.onclick = to.onclick;
  if (to.paint) {
    // a canvas: painted with the new numbers once its size is written (onElUpdated); a new size clears it
    if (from.width !== to.width || from.height !== to.height) from.painted = null;
    from.paint = to.paint;
  }
  // the page's policy forbids writing a style attribute (morphdom would): the declarations go through the CSSOM
  if (from.getAttribute('style') !== to.getAttribute('style')) from.style.cssText = to.style.cssText;
  if (classes.contains('matrix-box')) recheckOverflow(from);
  if (from.tagName === 'TBODY' && patchCells(from, to)) return false;
  // a table holds no handlers: one with nothing to write (its cells after a keystroke in a word) is compared
  // natively, not walked
  return !(TABLE_PARTS.has(from.tagName) && from.isEqualNode(to));
}

/**
 * A table body's cells brought to those of `to`, cell by cell, when both have the same rows of the same lengths
 * (false otherwise: morphdom walks it). A cell with nothing to write is compared natively and left alone; in
 * the others the attributes that differ are written and then the texts of their parts, or the parts replaced
 * when they are others (a mark added or gone). A seed edit changes every number of the tables shown: morphdom's
 * walk of each cell, its number and their attributes cost more than the writing itself.
 */
function patchCells(from, to) {
  const [was, is] = [from.rows, to.rows];
  if (was.length !== is.length) return false;
  for (let i = 0; i < was.length; i++) if (was[i].cells.length !== is[i].cells.length) return false;
  for (let i = 0; i < was.length; i++) {
    const [cells, next] = [was[i].cells, is[i].cells];
    for (let j = 0; j < cells.length; j++) if (!cells[j].isEqualNode(next[j])) patchCell(cells[j], next[j]);
  }
  return true;
}

/** Writes into `cell` what differs in `next` (a cell holds text and spans of text, no handlers). */
function patchCell(cell, next) {
  for (const { name, value } of next.attributes) {
    if (cell.getAttribute(name) === value) continue;
    if (name === 'style') cell.style.cssText = next.style.cssText; // the page's policy: declarations, never the attribute
    else cell.setAttribute(name, value);
  }
  for (const name of cell.getAttributeNames()) if (!next.hasAttribute(name)) cell.removeAttribute(name);
  const [parts, nextParts] = [cell.childNodes, next.childNodes];
  const textOnly = (node) => node.childNodes.length === 0 || (node.childNodes.length === 1 && node.firstChild.nodeType === Node.TEXT_NODE);
  const sameParts = parts.length === nextParts.length && [...parts].every((node, k) => node.nodeName === nextParts[k].nodeName &&
    (node.nodeType !== Node.ELEMENT_NODE || (node.className === nextParts[k].className && textOnly(node) && textOnly(nextParts[k]))));
  if (!sameParts) {
    cell.replaceChildren(...nextParts);
    return;
  }
  parts.forEach((node, k) => {
    const text = nextParts[k].textContent;
    if (node.textContent === text) return;
    if (node.nodeType === Node.ELEMENT_NODE && node.firstChild) node.firstChild.data = text;
    else node.textContent = text;
  });
}
