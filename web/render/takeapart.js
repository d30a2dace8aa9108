// "Take a number apart": hovering, clicking or focusing a cell of a displayed tensor opens one panel
// with explain(index) of its result, as text. The focused cell points at the panel with aria-describedby,
// so screen readers read the arithmetic after the number; Escape or its Close button closes; arrow keys move
// between the cells of a table (one tab stop per table: a roving tabindex). The panel is placed where it covers
// neither the cell, its tensor's book mark nor the operands outlined on the step, and as little of the table
// as the screen allows.
import { h, fmt, at, indexTuples } from './dom.js';
import { leadNames } from './matrix.js';
import { operandsOf, matchesPattern, describePattern } from '../operands.js';

const MARK_LINES = {
  masked: 'Masked: a future token. Its score is −∞ before the softmax, so its weight is 0.',
  dropped: 'Dropped: dropout set this value to 0 (the values that survive are scaled by 1/(1 − p)).',
  leak: 'Leak: a later token gets weight here, because the mask was never applied.',
};

/**
 * @param {HTMLElement} root     the container whose tensors can be taken apart (event delegation)
 * @param {HTMLElement} panel    the panel element (empty; filled here)
 * @param {(name: string) => object | undefined} getResult   the current result by its name
 */
export function installTakeApart(root, panel, getResult) {
  let current = null; // the cell shown
  let pinned = false; // opened by focus/click (stays) rather than by hover
  const narrow = window.matchMedia('(max-width: 40rem)');
  const touch = window.matchMedia('(hover: none), (pointer: coarse)');

  function show(cell, pin) {
    const fig = cell.closest('[data-tensor]');
    const result = fig && getResult(fig.dataset.tensor);
    if (!result) return;
    const index = cell.dataset.index === '' ? [] : cell.dataset.index.split(',').map(Number);
    const operands = operandsOf(getResult, result.name, index);
    const lines = linesOf(result, index);
    const close = h('button', { type: 'button', class: 'ta-close', 'aria-label': 'Close' }, '×');
    close.addEventListener('click', hide);
    panel.replaceChildren(
      ...content(result, index, cell, lines, pin ? close : null),
      sourcesOf(operands, getResult, lines.uses ?? [], onStep),
      h('p', { class: 'ta-hint', 'aria-hidden': 'true' }, hintText(pin, touch.matches)),
    );
    markOperands(operands, cell);
    if (current && current !== cell) {
      current.removeAttribute('aria-describedby');
      current.classList.remove('is-open');
    }
    current = cell;
    pinned = pin;
    cell.setAttribute('aria-describedby', panel.id);
    cell.classList.add('is-open');
    panel.classList.toggle('is-hover', !pin); // a hover preview never catches the pointer
    panel.hidden = false;
    place();
    if (narrow.matches) keepAboveSheet(cell);
  }

  // On a phone the panel is a sheet over the bottom of the screen: the cell it explains is moved above it.
  function keepAboveSheet(cell) {
    const sheetTop = panel.getBoundingClientRect().top;
    const r = cell.getBoundingClientRect();
    if (r.bottom > sheetTop - 8) window.scrollBy({ top: r.bottom - sheetTop + 16, behavior: 'instant' });
  }

  function hide() {
    if (!current) return;
    current.removeAttribute('aria-describedby');
    current.classList.remove('is-open');
    current = null;
    pinned = false;
    panel.hidden = true;
    markOperands([]);
  }

  // The operands' cells, outlined where their tensor is on the step too (in the head they come from, built
  // now where another head of that tensor was shown).
  function markOperands(operands, cell = null) {
    for (const c of root.querySelectorAll('td.is-operand')) c.classList.remove('is-operand');
    for (const { name, pattern } of operands) {
      showHead(name, pattern, cell);
      for (const c of root.querySelectorAll(`[data-tensor="${CSS.escape(name)}"] td.cell[data-index]`)) {
        const index = c.dataset.index === '' ? [] : c.dataset.index.split(',').map(Number);
        if (matchesPattern(pattern, index)) c.classList.add('is-operand');
      }
    }
  }

  /** Where a tensor shows one head of many (matrix.js), picks the head a pattern [batch, head, ...] is in. */
  function showHead(name, [batch, head], cell) {
    if (typeof batch !== 'number' || typeof head !== 'number') return;
    for (const figure of root.querySelectorAll(`[data-tensor="${CSS.escape(name)}"]`)) {
      if (cell && figure.contains(cell)) continue; // never redraw the table of the cell taken apart
      const pick = figure.querySelector(`.head-row.is-picked[data-batch="${batch}"] .head-pick[data-head="${head}"]`);
      if (pick && pick.getAttribute('aria-pressed') !== 'true') pick.click();
    }
  }

  function place() {
    if (!current || panel.hidden) return;
    if (narrow.matches) {
      panel.style.removeProperty('left');
      panel.style.removeProperty('top');
      panel.style.removeProperty('max-width');
      return; // a sheet fixed to the bottom of the screen (styles.css)
    }
    const view = { w: document.documentElement.clientWidth, h: window.innerHeight - 72 }; // above the step bar
    const cell = current.getBoundingClientRect();
    const figure = current.closest('[data-tensor]');
    const rectOf = (el) => el?.getBoundingClientRect() ?? null;
    const table = rectOf(current.closest('.tensor')) ?? cell;
    // what the panel explains must stay visible (the cell above all); the rest of its table and figure preferably too
    const marks = [rectOf(figure?.querySelector('.book-mark')), ...[...root.querySelectorAll('td.is-operand')].map(rectOf)].filter(Boolean);
    const avoid = [
      { rects: [cell], weight: 1e9 },
      { rects: marks, weight: 1e6 },
      { rects: [table], weight: 100 },
      { rects: [rectOf(figure) ?? table], weight: 1 },
    ];
    // at its natural width, else narrower (taller) where that leaves the marks clear
    let spot = null;
    for (const width of [null, '26rem', '20rem']) {
      if (width) panel.style.maxWidth = width;
      else panel.style.removeProperty('max-width');
      const size = { w: panel.offsetWidth, h: panel.offsetHeight };
      const found = bestSpot(candidateSpots(cell, table, size, view), size, avoid);
      if (!spot || found.cost < spot.cost) spot = { ...found, width };
      if (spot.cost < 1e6) break;
    }
    if (spot.width) panel.style.maxWidth = spot.width;
    else panel.style.removeProperty('max-width');
    panel.style.left = `${spot.left + window.scrollX}px`;
    panel.style.top = `${spot.top + window.scrollY}px`;
  }

  /** Whether a result's table is drawn on the step (then its cells are outlined there, numbers and all). */
  const onStep = (name) => [...root.querySelectorAll(`[data-tensor="${CSS.escape(name)}"]`)].some((t) => t.getClientRects().length > 0);

  const cellOf = (target) => (target instanceof Element ? target.closest('td.cell') : null);

  root.addEventListener('pointerover', (e) => {
    if (e.pointerType !== 'mouse' || pinned) return;
    const cell = cellOf(e.target);
    if (cell && cell !== current) show(cell, false);
  });
  root.addEventListener('pointerout', (e) => {
    if (e.pointerType !== 'mouse' || pinned || !current) return;
    if (!cellOf(e.relatedTarget)) hide();
  });
  root.addEventListener('focusin', (e) => {
    const cell = cellOf(e.target);
    if (!cell) return;
    rove(cell);
    show(cell, true);
  });
  root.addEventListener('focusout', (e) => {
    if (cellOf(e.relatedTarget) && root.contains(e.relatedTarget)) return;
    hide();
  });
  // Clicking (or Enter/Space on) the focused cell again brings the panel back after Escape.
  root.addEventListener('click', (e) => {
    const cell = cellOf(e.target);
    if (cell && (cell !== current || panel.hidden)) show(cell, true);
  });
  root.addEventListener('keydown', (e) => {
    const cell = cellOf(e.target);
    if (!cell || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      if (!current) show(cell, true);
      return;
    }
    const next = neighbour(cell, e.key);
    if (next === undefined) return;
    e.preventDefault(); // also keeps ArrowLeft/ArrowRight from turning the page
    if (next) next.focus();
    else if (!current) show(cell, true);
  });
  root.addEventListener('scroll', place, true);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && current) {
      hide();
      e.preventDefault();
    }
  });
  window.addEventListener('resize', place);

  return { hide };
}

/** Makes `cell` the one tab stop of its table. */
function rove(cell) {
  const table = cell.closest('table');
  for (const c of table.querySelectorAll('td.cell[tabindex="0"]')) if (c !== cell) c.tabIndex = -1;
  cell.tabIndex = 0;
}

/** The cell an arrow/Home/End key moves to; null to stay; undefined when the key is not ours. */
function neighbour(cell, key) {
  const row = cell.parentElement;
  const rows = [...row.parentElement.rows];
  const cellsOf = (tr) => [...tr.querySelectorAll('td.cell')];
  const r = rows.indexOf(row);
  const c = cellsOf(row).indexOf(cell);
  const pick = (rr, cc) => {
    const target = rows[rr] && cellsOf(rows[rr])[cc];
    return target && target !== cell ? target : null;
  };
  switch (key) {
    case 'ArrowLeft':
      return pick(r, c - 1);
    case 'ArrowRight':
      return pick(r, c + 1);
    case 'ArrowUp':
      return pick(r - 1, c);
    case 'ArrowDown':
      return pick(r + 1, c);
    case 'Home':
      return pick(r, 0);
    case 'End':
      return pick(r, cellsOf(row).length - 1);
    default:
      return undefined;
  }
}

function linesOf(result, index) {
  let lines;
  try {
    lines = typeof result.explain === 'function' ? result.explain(index) : null;
  } catch {
    lines = ['(this number could not be taken apart)'];
  }
  if (!Array.isArray(lines) || lines.length === 0) {
    lines = ['Nothing to take apart here: this value is given, drawn or copied as it is.'];
  }
  return lines;
}

/** What the hint line says: a touch screen has no Escape key, arrow keys or hover. */
function hintText(pinned, touch) {
  if (touch) return 'Tap another number to take it apart · × closes';
  return pinned ? 'Esc closes · arrow keys move between cells' : 'Click the number to keep this open';
}

// Where the panel may go, in order of preference: below its table, above it, below or above the cell, level
// with the cell; at the cell's left, beside the table (right, then left) or against a side of the screen.
function candidateSpots(cell, table, size, view) {
  const lefts = [Math.min(cell.left, view.w - size.w - 8), table.right + 8, table.left - size.w - 8, view.w - size.w - 8, 8];
  const tops = [table.bottom + 8, table.top - size.h - 8, cell.bottom + 8, cell.top - size.h - 8, cell.top, view.h - size.h, 8];
  return tops
    .flatMap((top) => lefts.map((left) => ({ left, top })))
    .filter((s) => s.left >= 8 && s.left + size.w <= view.w - 4 && s.top >= 8 && s.top + size.h <= view.h);
}

/**
 * The spot covering the least, each area of `avoid` ({ rects, weight }) counted by its weight (the first
 * spot of the least in the order given), with that cost; just below the cell when no spot fits on the screen.
 */
export function bestSpot(spots, size, avoid) {
  const cost = (s) =>
    avoid.reduce(
      (sum, { rects, weight }) =>
        sum +
        weight *
          rects.reduce((area, m) => {
            const w = Math.min(s.left + size.w, m.right) - Math.max(s.left, m.left);
            const hgt = Math.min(s.top + size.h, m.bottom) - Math.max(s.top, m.top);
            return area + (w > 0 && hgt > 0 ? w * hgt : 0);
          }, 0),
      0,
    );
  let best = null;
  for (const s of spots) {
    const c = cost(s);
    if (!best || c < best.cost) best = { ...s, cost: c };
    if (c === 0) break;
  }
  const cell = avoid[0].rects[0];
  return best ?? { left: Math.max(8, cell.left), top: cell.bottom + 8, cost: Infinity };
}

function content(result, index, cell, lines, close) {
  const label = result.label ?? result.name;
  const ndim = result.shape.length;
  const value = ndim === 0 ? result.values : at(result.values, index);
  const where = [];
  const names = Array.isArray(result.axes) && result.axes.length === ndim ? result.axes.map(String) : null;
  if (ndim >= 3) {
    const lead = leadNames(ndim - 2, result.axes);
    where.push(index.slice(0, -2).map((v, d) => `${lead[d]} ${v}`).join(', '));
  }
  if (ndim >= 2) where.push(`${names ? names[ndim - 2] : 'row'} “${axis(result.rows, index[ndim - 2])}”`);
  if (ndim >= 1) where.push(`${names ? names[ndim - 1] : 'column'} “${axis(result.cols, index[ndim - 1])}”`);

  const mark = ['masked', 'dropped', 'leak'].find((m) => cell.classList.contains(m)) ?? null;
  return [
    close,
    h('p', { class: 'ta-title' }, h('code', {}, ndim === 0 ? label : `${label}[${index.join(', ')}]`), h('span', { class: 'ta-value' }, ` = ${fmt(value)}`)),
    where.length ? h('p', { class: 'ta-where' }, where.join(' · ')) : null,
    h('ol', { class: 'ta-lines' }, ...lines.map((line) => h('li', {}, String(line)))),
    mark ? h('p', { class: `ta-mark ${mark}` }, MARK_LINES[mark]) : null,
  ].filter(Boolean);
}

/**
 * Each operand's tensor as a small grid (its 2-D slice), the cells that went in filled, with their numbers
 * written out when the tensor is not on the step; then the other numbers the lines use (a module's weight
 * row and bias, the rows and columns a module's product took), written out.
 */
function sourcesOf(operands, getResult, uses, onStep) {
  // a use is written out unless its numbers are all among the operands' cells (drawn or outlined already)
  const known = new Set(operands.flatMap(({ name, pattern }) => usedNumbers(getResult(name), pattern).map(fmt)));
  const extra = uses.filter((u) => u.values.some((v) => !known.has(fmt(v))));
  if (operands.length === 0 && extra.length === 0) return null;
  return h(
    'div',
    { class: 'ta-sources' },
    h('p', { class: 'ta-sources-title' }, 'Made from'),
    ...operands.map(({ name, pattern }) => {
      const source = getResult(name);
      return h(
        'figure',
        { class: 'ta-source', 'data-source': name },
        sliceGrid(source, pattern),
        h('figcaption', {}, h('code', {}, source.label ?? name), ` ${describePattern(pattern, source)}`),
        onStep(name) ? null : numbersStrip(usedNumbers(source, pattern)),
      );
    }),
    ...extra.map((use) =>
      h(
        'figure',
        { class: 'ta-source ta-used', 'data-source': use.label },
        h('figcaption', {}, h('code', {}, use.label), use.where ? ` ${use.where}` : ''),
        numbersStrip(use.values),
      ),
    ),
  );
}

// The numbers of an operand whose tensor is not on the step, written out (up to a row's worth of a big one).
const MAX_WRITTEN = 32;

function usedNumbers(source, pattern) {
  if (source.shape.length === 0) return [source.values];
  return indexTuples(source.shape).filter((index) => matchesPattern(pattern, index)).map((index) => at(source.values, index));
}

function numbersStrip(values) {
  const shown = values.slice(0, MAX_WRITTEN);
  return h(
    'span',
    { class: 'ta-numbers' },
    ...shown.map((v) => h('span', {}, fmt(v))),
    values.length > shown.length ? h('span', { class: 'ta-more' }, `… ${values.length - shown.length} more`) : null,
  );
}

function sliceGrid(source, pattern) {
  const shape = source.shape;
  const lead = pattern.slice(0, Math.max(0, shape.length - 2));
  if (lead.some((p) => typeof p !== 'number')) return null; // a pattern across matrices: words only
  const [rows, cols] = shape.length >= 2 ? shape.slice(-2) : [1, shape[0] ?? 1];
  const squares = indexTuples([rows, cols]).map(([i, j]) => {
    const index = shape.length >= 2 ? [...lead, i, j] : shape.length === 1 ? [j] : [];
    return h('span', { class: matchesPattern(pattern, index) ? 'is-in' : '' });
  });
  return h('span', { class: 'ta-grid', 'aria-hidden': 'true', style: { '--cols': String(cols) } }, ...squares);
}

function axis(labels, i) {
  return Array.isArray(labels) && labels[i] !== undefined ? String(labels[i]) : String(i);
}
