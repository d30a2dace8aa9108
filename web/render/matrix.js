// One result of computeChapter() drawn as a heatmap table (or a group of tables for 3-D/4-D tensors),
// with its label, shape, marked cells and, when the book printed it, the printed text and a match mark.
// Pure: result (+ a little context) in, a <figure> out. Cells carry data-index for the take-apart panel.
import { matchesBook, flatValues, bookCells } from '../compare.js';
import { h, srOnly, fmt, shapeText, at, indexTuples } from './dom.js';

/**
 * Each element's text as PyTorch prints this tensor (`2.`, the tensor's shared precision, scientific notation
 * where it switches), read out of the core's own str(tensor) (or another printout of it), row-major; null
 * when that printout is summarised with '...' (more than 1000 elements) or there is no tensor.
 */
export function printedElements(tensor, text = liveText(tensor)) {
  if (typeof text !== 'string') return null;
  const body = text.slice(text.indexOf('tensor(') + 'tensor('.length).split(/, (?:grad_fn|requires_grad|dtype|size)=/)[0];
  if (body.includes('...')) return null;
  return body.match(/-?inf|nan|True|False|-?\d+\.\d*(?:e[+-]\d+)?/g) ?? [];
}

/**
 * Whether the core's str(tensor) of this shape is summarised with '...' (its default print options, as
 * PyTorch's: more than 1000 elements, and a dimension longer than twice its 3 edge items).
 */
const isSummarised = (shape) => shape.reduce((n, d) => n * d, 1) > 1000 && shape.some((d) => d > 6);

/** The core's str(tensor), or null. */
function liveText(tensor) {
  try {
    const text = tensor?.toString();
    return typeof text === 'string' ? text : null;
  } catch {
    return null;
  }
}

/** The cells' texts from a printout of every element. */
const printedTexts = (all) => ({ prepare: () => true, at: (k) => all[k] });

/**
 * The cells' texts as PyTorch prints the whole float32 tensor: an object whose at(flat) is the text of element
 * `flat`, read for the cells drawn only. PyTorch's format (torch-numerics.md 5.2) follows from the largest and
 * smallest nonzero finite |value| and whether every such value is whole, so the core prints the drawn values
 * together with those two (and a value that is not whole, if any): the same format, and a printout of a few
 * hundred elements instead of thousands. printInFull(values) is the core's str of those values in full.
 */
function wholeTensorTexts(flat, printInFull) {
  let largest = null;
  let smallest = null;
  let fraction = null;
  for (const v of flat) {
    if (!Number.isFinite(v) || v === 0) continue;
    if (largest === null || Math.abs(v) > Math.abs(largest)) largest = v;
    if (smallest === null || Math.abs(v) < Math.abs(smallest)) smallest = v;
    if (fraction === null && Math.ceil(v) !== v) fraction = v;
  }
  const deciding = [largest, smallest, fraction].filter((v) => v !== null);
  const known = new Map();
  return {
    /** Writes the texts of these flat indices (one printout for all of them); false if the core could not. */
    prepare(indices) {
      const wanted = indices.filter((k) => !known.has(k));
      if (!wanted.length) return true;
      const text = printInFull([...wanted.map((k) => flat[k]), ...deciding]);
      const printed = text ? printedElements(null, text) : null;
      if (!printed || printed.length !== wanted.length + deciding.length) return false;
      wanted.forEach((k, i) => known.set(k, typeset(printed[i])));
      return true;
    },
    at: (k) => known.get(k) ?? fmt(flat[k]),
  };
}

/** A printed element for the page: a real minus sign, ∞ for inf. */
const typeset = (text) => text.replace(/^-/, '−').replace('inf', '∞');

const MARK_TEXT = { masked: 'masked', dropped: 'dropped', leak: 'a future token leaks in' };

/**
 * @param {object} result  a result of computeChapter()
 * @param {object} ctx     { isBook: boolean, openBooks: Set<string>, onBookToggle(name, open),
 *                          printInFull(values): the core's str of torch.tensor(values) with profile='full' }
 */
export function renderResult(result, ctx) {
  const shape = result.shape;
  const { flat, json, scale, live, texts, book, match } = drawnFromNumbers(result, ctx.printInFull);
  const fig = h('figure', {
    class: 'result',
    'data-tensor': result.name,
    'data-shape': shape.join(','),
    'data-values': json,
  });
  // the legend's numbers as the cells write them, where they are elements of the tensor
  const say = (v) => {
    const element = (x) => {
      const k = texts ? flat.indexOf(x) : -1;
      return k >= 0 && texts.prepare([k]) ? texts.at(k) : null;
    };
    // a diverging scale's lower end, −top, may be no element: written as top is, with the sign turned
    const mirrored = element(-v);
    return element(v) ?? (mirrored === null ? fmt(v) : mirrored.startsWith('−') ? mirrored.slice(1) : `−${mirrored}`);
  };
  fig.append(
    h(
      'figcaption',
      { class: 'result-head' },
      h('code', { class: 'result-label' }, result.label ?? result.name),
      h('span', { class: 'result-shape' }, shape.length === 0 ? 'a single number (0-d)' : `shape ${shapeText(shape)}`),
      scaleKey(scale, say),
    ),
  );
  if (book && ctx.openBooks?.has(`${result.name}:cells`)) fig.classList.add('show-book');
  // each table box in drawing order, where ctx.later is given (an edit of the step shown) a placeholder: one that
  // ctx.later names (off screen when the edit began) is drawn after the frame, the others at once; app/patch.js
  // writes their numbers into the table shown in their place, or draws them where that table is another
  let boxes = 0;
  const drawBox = (...table) => {
    const draw = () => matrixBox(...table);
    const patch = (box) => patchMatrixBox(box, ...table);
    if (!ctx.later) return draw();
    return ctx.later.has(boxKey(result.name, boxes++)) ? laterBox(draw, patch) : patchedBox(draw, patch);
  };
  const body = h('div', { class: 'result-body' }, renderTensor(result, scale, book, texts, drawBox), renderBook(result, ctx, book, fig, live, match));
  fig.append(body);
  return fig;
}

// What drawing a result computes from its numbers alone, kept with the result: a word renamed keeps the results
// (main.js) and draws them again with new labels only, so their JSON, colour scale, printouts and the book's
// cells (most of a 16 x 16 x 16 step's drawing) are not worked out again. A result's numbers never change.
const fromNumbers = new WeakMap();

function drawnFromNumbers(result, printInFull) {
  let known = fromNumbers.get(result);
  if (known && known.printInFull === printInFull) return known;
  const shape = result.shape;
  const flat = flatValues(result.values);
  // the core's printout, shown beside the book's and read for the cells' texts; not made where it can serve
  // neither (no book, and summarised with '...'): a seed edit at 16 x 16 x 16 printed two such tensors in its frame
  const live = result.book || !isSummarised(shape) ? liveText(result.tensor) : null;
  const printed = printedElements(result.tensor, live);
  known = {
    printInFull,
    flat,
    json: valuesJson(flat),
    scale: shape.length === 0 ? { kind: 'none' } : heatScale(flat), // one number: no scale to read
    live,
    // Above 1000 elements PyTorch's printout is summarised and its format comes from the few elements shown:
    // the drawn cells are written as PyTorch prints the whole tensor (set_printoptions(profile='full')).
    texts: printed && printed.length === flat.length ? printedTexts(printed.map(typeset))
      : shape.length > 0 && result.tensor?.dtype === 'float32' && printInFull ? wholeTensorTexts(flat, printInFull) : null,
    // The book's number for every cell (when the printout has one per cell): differing cells are marked, and
    // a toggle writes the book's numbers into the cells.
    book: result.book ? bookCells(result.values, result.book) : null,
    match: result.book ? matchesBook(result.values, result.book) : null,
  };
  fromNumbers.set(result, known);
  return known;
}

/** The name of a figure's k-th table box (in drawing order), as ctx.later holds it: 'attn_scores#0'. */
export const boxKey = (name, k) => `${name}#${k}`;

/**
 * In place of a table box that is drawn after the step is painted (app/patch.js, as a figure left for later):
 * draw() makes it, patch(box) writes its numbers into the same table drawn before (false: that table is another).
 * Its 256 cells at 16 x 16 are a third of a seed edit's frame, written and laid out.
 */
function laterBox(draw, patch) {
  const stub = h('div', { class: 'matrix-box', 'data-later': '' });
  stub.draw = draw;
  stub.patch = patch;
  return stub;
}

/**
 * In place of a table box that an edit writes into the table already shown (app/patch.js): patch(box) writes
 * only the texts, colours and marks that changed, false where the table shown is another (its shape, columns
 * or caption), and draw() makes it. Building 256 cells to compare them with those shown cost more than writing.
 */
function patchedBox(draw, patch) {
  const stub = h('div', { class: 'matrix-box', 'data-patch': '' });
  stub.draw = draw;
  stub.patch = patch;
  return stub;
}

/**
 * In place of a result's figure when only its words were renamed (main.js keeps the results): a placeholder for
 * app/patch.js, which renames the labels of the figure already shown (relabel) instead of taking a new drawing.
 */
export function keptFigure(result) {
  const stub = h('figure', { class: 'result', 'data-tensor': result.name, 'data-kept': '' });
  stub.result = result;
  return stub;
}

/** Writes a result's row and column labels (its words) into its figure, drawn before for the same numbers. */
export function relabel(figure, result) {
  const shape = result.shape;
  const ndim = shape.length;
  if (ndim === 0) return;
  const cols = axisLabels(result.cols, shape[ndim - 1]);
  const rows = ndim >= 2 ? axisLabels(result.rows, shape[ndim - 2]) : null;
  const write = (th, text) => {
    if (th.textContent !== text) th.textContent = text;
  };
  for (const table of figure.querySelectorAll('table.matrix')) {
    table.querySelectorAll(':scope > thead th').forEach((th, j) => write(th, cols[j]));
    if (rows) table.querySelectorAll(':scope > tbody > tr > th').forEach((th, i) => write(th, rows[i]));
  }
  for (const box of figure.querySelectorAll('.matrix-box')) recheckOverflow(box); // "Off screen: word8 … word16"
}

/** A result that is a plain value rather than a tensor (e.g. torch.allclose(...) -> True). */
export function renderValue(result) {
  const value = result.value;
  return h(
    'figure',
    {
      class: 'result result-value',
      'data-tensor': result.name,
      'data-shape': '',
      'data-values': valuesJson([value]),
    },
    h('figcaption', { class: 'result-head' }, h('code', { class: 'result-label' }, result.label ?? result.name)),
    h('p', { class: 'value' }, typeof value === 'number' ? fmt(value) : typeof value === 'boolean' ? fmt(value) : String(value)),
  );
}

/** Row-major values as JSON; ±Infinity and NaN (which JSON cannot hold) as the strings Number() reads back. */
export function valuesJson(flat) {
  // a replacer function costs a call per number: only the tensors that hold ±Infinity or NaN need one
  if (flat.every((v) => typeof v !== 'number' || Number.isFinite(v))) return JSON.stringify(flat);
  return JSON.stringify(flat, (_, v) => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
}

// ---------------------------------------------------------------- the colour scale

/**
 * Sequential (0..top) for non-negative tensors, diverging around 0 for signed ones. The top is the largest
 * |value| that is not a lone outlier, so that one 2.0 among weights below 0.8 does not wash the rest out:
 * a few values (at most 5 %) beyond Tukey's far-out fence on |value| (Q3 + 3·IQR) that would squeeze the
 * others into two thirds of the scale or less are drawn at full colour and marked. Values that all lie in
 * 0..1 (attention weights) are never cut.
 */
export function heatScale(values) {
  // plain loops over a typed array: a seed edit at 16 x 16 x 16 scales two tensors of 8,192 numbers in its frame
  const flat = flatValues(values);
  const sizes = new Float64Array(flat.length);
  let n = 0;
  let negative = false;
  let isProbabilities = true; // weights between 0 and 1 keep their whole range: a causal mask's first row holds a lone 1 by design
  for (const v of flat) {
    if (typeof v === 'boolean') return { kind: 'none' };
    if (!Number.isFinite(v)) continue;
    sizes[n++] = Math.abs(v);
    if (v < 0) negative = true;
    if (v < 0 || v > 1) isProbabilities = false;
  }
  if (n === 0) return { kind: 'none' };
  const sorted = sizes.subarray(0, n).sort(); // a typed array sorts by value, without a comparator call
  const fence = farOutFence(sorted);
  let inside = n; // the sizes within the fence: a prefix of the sorted sizes
  while (inside > 0 && !(sorted[inside - 1] <= fence)) inside--;
  const lone = !isProbabilities && n - inside <= Math.max(1, 0.05 * n) && sorted[n - 1] >= 1.5 * sorted[inside - 1];
  const top = lone ? sorted[inside - 1] : sorted[n - 1];
  const beyond = flat.filter((v) => Number.isFinite(v) && Math.abs(v) > top);
  const kind = negative ? 'diverging' : 'sequential';
  return {
    kind,
    min: kind === 'diverging' ? -top : 0,
    max: top,
    beyond, // the values drawn at full colour and marked as beyond the scale
    isBeyond: (v) => Number.isFinite(v) && Math.abs(v) > top,
    t: (v) => (top === 0 ? 0 : v / top),
  };
}

/** Q3 + 3·IQR of sorted sizes (quartiles by linear interpolation); with fewer than 8 values nothing is an outlier. */
export function farOutFence(sorted) {
  if (sorted.length < 8) return Infinity;
  const q = (p) => {
    const k = (sorted.length - 1) * p;
    const lo = Math.floor(k);
    return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (k - lo);
  };
  const iqr = q(0.75) - q(0.25);
  return iqr === 0 ? Infinity : q(0.75) + 3 * iqr;
}

/** The legend: the two ends of the scale, as numbers, around the colour bar, and what lies beyond it. */
function scaleKey(scale, say) {
  if (scale.kind === 'none') return null;
  const beyond = scale.beyond.length;
  const beyondWords = beyond
    ? `; ${beyond === 1 ? `1 value lies beyond it (${say(scale.beyond[0])}) and is` : `${beyond} values lie beyond it (${[...new Set(scale.beyond)].slice(0, 4).map(say).join(', ')}${new Set(scale.beyond).size > 4 ? ', …' : ''}) and are`} drawn at full colour, marked ▲`
    : '';
  const words =
    (scale.kind === 'diverging'
      ? `Colour scale: orange for negative values down to ${say(scale.min)}, pale at 0, blue for positive values up to ${say(scale.max)}`
      : `Colour scale: pale at 0, darker blue up to ${say(scale.max)}`) + beyondWords;
  return h(
    'span',
    { class: `scale-key ${scale.kind}`, title: words },
    srOnly(`${words}.`),
    h('span', { class: 'scale-end', 'aria-hidden': 'true' }, say(scale.min)),
    h('span', { class: 'scale-bar', 'aria-hidden': 'true' }),
    h('span', { class: 'scale-end', 'aria-hidden': 'true' }, say(scale.max)),
    beyond
      ? h('span', { class: 'scale-beyond', 'aria-hidden': 'true' }, `▲ ${beyond === 1 ? `${say(scale.beyond[0])} beyond` : `${beyond} beyond`}`)
      : null,
  );
}

function heatStyle(scale, v) {
  if (scale.kind === 'none' || typeof v !== 'number' || !Number.isFinite(v)) return null;
  const t = scale.t(v);
  return {
    '--heat': `${Math.round(Math.min(1, Math.abs(t)) * 100)}%`,
    '--heat-color': t < 0 ? 'var(--heat-neg)' : 'var(--heat-pos)',
  };
}

// ---------------------------------------------------------------- tables

// Heads are drawn as full tables side by side while their columns (and row labels) add up to at most this;
// beyond, a row of small maps (every head's pattern at a glance) picks the one whose table is shown.
const COLUMNS_SIDE_BY_SIDE = 12;
// The head each multi-head result shows when its heads do not fit (kept across redraws of the page).
const chosenHead = new Map();

function renderTensor(result, scale, book, texts, drawBox) {
  const shape = result.shape;
  if (shape.length <= 2) {
    return h('div', { class: 'tensor' }, drawBox(result, scale, [], null, book, texts));
  }
  const names = leadNames(shape.length - 2, result.axes);
  const group = h('div', {
    class: 'tensor tensor-group',
    role: 'group',
    'aria-label': `${result.label ?? result.name}: ${indexTuples(shape.slice(0, -2)).length} matrices of shape ${shapeText(shape.slice(-2))}`,
  });
  // The chapter's batches stack one input twice: a batch that repeats batch 0 exactly is not drawn again.
  const batches = Array.from({ length: shape[0] }, (_, b) => b);
  const shown = names[0] === 'batch' ? batches.filter((b) => b === 0 || !repeatsBatch0(result, b)) : batches;
  for (const b of shown) {
    if (shape.length === 4 && names[1] === 'head') group.append(headRow(result, scale, b, book, texts, drawBox));
    else for (const rest of indexTuples(shape.slice(1, -2))) group.append(drawBox(result, scale, [b, ...rest], leadCaption([b, ...rest], result.axes), book, texts));
  }
  // below the numbers, so that they come first on a small screen
  if (shown.length < batches.length) {
    const same = batches.filter((b) => !shown.includes(b));
    group.append(
      h('p', { class: 'group-note' },
        `${same.length === 1 ? `Batch ${same[0]} is` : `Batches ${same.join(', ')} are`} the same as batch 0, number for number ` +
        `(the batch holds the same input ${shape[0]} times), so only batch 0 is drawn.`),
    );
  }
  return group;
}

/** Batch b has batch 0's values and marks (the same bits: NaN as NaN, −0 apart from 0). */
function repeatsBatch0(result, b) {
  const these = flatValues(at(result.values, [b]));
  const first = flatValues(at(result.values, [0]));
  if (these.length !== first.length || these.some((v, k) => !Object.is(v, first[k]))) return false;
  return everyIndex(result.shape.slice(1), (idx) => safeMark(result, [b, ...idx]) === safeMark(result, [0, ...idx]));
}

/** Whether test(index) holds for every index of the given sizes, row-major, stopping at the first that fails. */
function everyIndex(sizes, test) {
  if (sizes.some((n) => n === 0)) return true;
  const index = sizes.map(() => 0);
  for (;;) {
    if (!test(index)) return false;
    let d = sizes.length - 1;
    while (d >= 0 && ++index[d] === sizes[d]) index[d--] = 0;
    if (d < 0) return true;
  }
}

/** One batch's heads: side by side, or (too many to fit) small maps to pick from and the picked head's table. */
function headRow(result, scale, b, book, texts, drawBox) {
  const [, heads, , cols] = result.shape;
  const table = (hd) => [result, scale, [b, hd], leadCaption([b, hd], result.axes), book, texts];
  const box = (hd) => matrixBox(...table(hd));
  if (heads * (cols + 1) <= COLUMNS_SIDE_BY_SIDE) return h('div', { class: 'head-row' }, ...Array.from({ length: heads }, (_, hd) => drawBox(...table(hd))));

  // Only the picked head's table is built (16 heads of 16 x 16 would be 4,096 cells drawn for 256 shown).
  const picked = Math.min(chosenHead.get(result.name) ?? 0, heads - 1);
  const picks = Array.from({ length: heads }, (_, hd) =>
    h('button', { type: 'button', class: 'head-pick', 'aria-pressed': String(hd === picked), 'data-head': String(hd) },
      miniMap(result, scale, [b, hd]), h('span', {}, `head ${hd}`)),
  );
  const picker = h('div', { class: 'head-picker', role: 'group', 'aria-label': `batch ${b}: ${heads} heads, pick one to see its numbers` }, ...picks);
  // A handler property, not a listener, and the nodes found from the event: when an edit updates this figure in
  // place (app/patch.js), the kept picker takes the new drawing's handler, with the new numbers.
  picker.onclick = (e) => {
    const pick = e.target instanceof Element ? e.target.closest('.head-pick') : null;
    if (!pick) return;
    const hd = Number(pick.dataset.head);
    chosenHead.set(result.name, hd);
    for (const p of e.currentTarget.querySelectorAll('.head-pick')) p.setAttribute('aria-pressed', String(p === pick));
    e.currentTarget.nextElementSibling.replaceWith(box(hd));
  };
  return h('div', { class: 'head-row is-picked', 'data-batch': String(b) }, picker, drawBox(...table(picked)));
}

/**
 * A head's matrix as small coloured squares, on the same colour scale as the tables: a canvas of one pixel
 * per cell, scaled up (16 maps of 16 x 16 as elements would be 4,096 to lay out on every edit). Its paint(target)
 * paints these colours into a canvas: this one once it is on the page, or the one an edit keeps in its place
 * (app/patch.js), which is then not painted again if its colours are the same (a word renamed).
 */
function miniMap(result, scale, lead) {
  const rows = at(result.values, lead);
  const cols = rows[0]?.length ?? 0;
  const canvas = h('canvas', { class: 'mini-canvas', width: cols, height: rows.length, 'aria-hidden': 'true' });
  canvas.style.setProperty('--cols', String(cols));
  canvas.style.setProperty('--rows', String(rows.length));
  if (cols <= 8 && rows.length <= 8) canvas.style.setProperty('--sq', '10px');
  canvas.paint = (target) => {
    const colours = pageColours();
    const image = new ImageData(cols, rows.length);
    rows.forEach((row, i) => row.forEach((v, j) => {
      const bytes = safeMark(result, [...lead, i, j]) === 'masked' ? colours.masked : heatBytes(colours, scale, v);
      image.data.set(bytes, (i * cols + j) * 4);
    }));
    const painted = target.painted;
    if (painted?.length === image.data.length && painted.every((byte, k) => byte === image.data[k])) return;
    target.getContext('2d').putImageData(image, 0, 0);
    target.painted = image.data;
  };
  // painted once the drawing is on the page (a task's microtasks run after it), unless an edit kept another
  queueMicrotask(() => canvas.isConnected && canvas.paint(canvas));
  return canvas;
}

/**
 * A value's colour as RGBA bytes, as heatStyle colours its cell (the heat colour of its sign at the share of the
 * scale, in whole percent), without the style object and its strings: 16 maps of 256 squares a seed edit.
 */
function heatBytes(colours, scale, v) {
  if (scale.kind === 'none' || typeof v !== 'number' || !Number.isFinite(v)) return colours.cell;
  const t = scale.t(v);
  return colours.shade(t < 0 ? 'neg' : 'pos', Math.round(Math.min(1, Math.abs(t)) * 100));
}

// The page's colours as RGBA bytes, for the theme in use (light or dark): a cell's background, a masked
// cell's, and each shade of the heat colours as the tables' cells mix it (at most 101 per sign), each
// converted once by a 1 x 1 canvas. Read from the style sheet once per theme: reading the computed style while
// an edit rewrites the tables (app/patch.js paints each small map as it is updated) would style the page anew
// for every one of them.
let themeColours = null;
const darkScheme = typeof matchMedia === 'function' ? matchMedia('(prefers-color-scheme: dark)') : null;
function pageColours() {
  const scheme = darkScheme?.matches ? 'dark' : 'light';
  if (themeColours?.scheme === scheme) return themeColours;
  const style = getComputedStyle(document.documentElement);
  const css = Object.fromEntries(['--cell-bg', '--masked-bg', '--heat-pos', '--heat-neg'].map((name) => [name, style.getPropertyValue(name).trim()]));
  const theme = JSON.stringify(css);
  const known = css['--cell-bg'] ? scheme : null; // none while the style sheet is not applied: read again next time
  if (themeColours?.theme === theme) return Object.assign(themeColours, { scheme: known });
  const shades = { pos: [], neg: [] }; // by sign, then percent
  themeColours = {
    theme,
    scheme: known,
    cell: rgba(css['--cell-bg']),
    masked: rgba(css['--masked-bg']),
    /** The heat colour of `sign` ('pos' or 'neg') mixed `percent` (0-100) into a cell's background. */
    shade(sign, percent) {
      shades[sign][percent] ??= rgba(`color-mix(in oklab, ${css[sign === 'neg' ? '--heat-neg' : '--heat-pos']} ${percent}%, ${css['--cell-bg']})`);
      return shades[sign][percent];
    },
  };
  return themeColours;
}

// A CSS colour as RGBA bytes, by a 1 x 1 canvas.
let probe = null;
function rgba(css) {
  probe ??= Object.assign(document.createElement('canvas'), { width: 1, height: 1 }).getContext('2d', { willReadFrequently: true });
  probe.clearRect(0, 0, 1, 1);
  probe.fillStyle = css;
  probe.fillRect(0, 0, 1, 1);
  return probe.getImageData(0, 0, 1, 1).data;
}

// Light and dark have their own colours: the small maps are painted again when the preference changes.
darkScheme?.addEventListener('change', () => {
  for (const canvas of document.querySelectorAll('canvas.mini-canvas')) canvas.paint?.(canvas);
});

/** The names of a tensor's leading axes: its own `axes`, else this chapter's batch (3-D), batch and head (4-D). */
export function leadNames(n, axes) {
  if (Array.isArray(axes) && axes.length >= n) return axes.slice(0, n).map(String);
  return n === 1 ? ['batch'] : n === 2 ? ['batch', 'head'] : Array.from({ length: n }, (_, d) => `dim ${d}`);
}

/** '[0, 1]' and what it means, e.g. 'batch 0, head 1'. */
function leadCaption(idx, axes) {
  const names = leadNames(idx.length, axes);
  return { index: `[${idx.join(', ')}]`, meaning: idx.map((i, d) => `${names[d]} ${i}`).join(', ') };
}

// A wider table draws its first columns only (the wrapper's 16 heads of 64 are 1,024 columns), with a
// button that draws the rest: thousands of cells make every edit slow, and no screen shows them at once.
export const DRAWN_COLUMNS = 32;
// A table of this many cells or more (8 x 8) paints its cells each on their own; the book's tables (36 cells at
// most) are painted as before.
const BIG_TABLE_CELLS = 64;

/**
 * What a table box of a result shows, from its numbers: its values (rows), how many columns are drawn, the
 * labels, the caption's text and each cell's view (cellView), shared by drawing a box and writing into one.
 */
function boxModel(result, scale, lead, caption, book, texts, allColumns) {
  const shape = result.shape;
  const ndim = shape.length;
  const label = result.label ?? result.name;
  const dims = ndim === 0 ? 'a single number' : ndim === 1 ? `${shape[0]} values` : `${shape[ndim - 2]} rows by ${shape[ndim - 1]} columns`;
  const values = ndim === 0 ? [[result.values]] : ndim === 1 ? [result.values] : at(result.values, lead);
  const allCols = values[0].length;
  const nCols = allColumns ? allCols : Math.min(allCols, DRAWN_COLUMNS);
  const flatOf = (index) => index.reduce((at, k, d) => at * shape[d] + k, 0);
  const indexOf = (i, j) => (ndim === 0 ? [] : ndim === 1 ? [j] : [...lead, i, j]);
  // the drawn cells' texts, written at once
  if (texts && !texts.prepare(values.flatMap((row, i) => row.slice(0, nCols).map((_, j) => flatOf(indexOf(i, j)))))) texts = null;
  return {
    ndim, label, dims, values, allCols, nCols,
    // what the caption reads, visible or not (the same text as the one drawn: app/patch.js compares it)
    captionText: caption ? `${caption.index} ${caption.meaning}, ${label}, ${dims}` : `${label}, ${dims}`,
    colLabels: axisLabels(result.cols, allCols).slice(0, nCols),
    rowLabels: ndim >= 2 ? axisLabels(result.rows, values.length) : null,
    /** The cell of row i, column j: its index, class, colour, texts and marks. */
    cell(i, j) {
      const v = values[i][j];
      const index = indexOf(i, j);
      const mark = safeMark(result, index);
      const flat = flatOf(index);
      const printed = book?.[flat];
      const differs = printed && !printed.matches;
      const beyond = mark !== 'masked' && scale.isBeyond?.(v);
      return {
        index, mark, differs, beyond,
        className: `cell${mark ? ` ${mark}` : ''}${Number.isFinite(v) ? '' : ' nonfinite'}${differs ? ' book-differs' : ''}${beyond ? ' beyond-scale' : ''}`,
        style: mark === 'masked' ? null : heatStyle(scale, v),
        text: texts ? texts.at(flat) : fmt(v),
        printed: printed ? printed.printed.replace(/^-/, '−') : null,
      };
    },
  };
}

/** A cell's parts, in order: its dropout glyph, its number, the book's number, the marks and their words. */
function cellParts({ mark, differs, beyond, text, printed }) {
  return [
    mark === 'dropped' ? h('span', { class: 'glyph', 'aria-hidden': 'true' }, '⊘') : null,
    h('span', { class: 'num' }, text),
    printed !== null ? h('span', { class: 'book-num' }, h('span', { class: 'sr-only' }, 'the book prints '), printed) : null,
    beyond ? h('span', { class: 'beyond-mark', 'aria-hidden': 'true' }, '▲') : null,
    beyond ? srOnly(' (beyond the colour scale)') : null,
    mark ? srOnly(` ${MARK_TEXT[mark] ?? mark}`) : null,
    differs ? srOnly(' (differs from the book)') : null,
  ].filter(Boolean);
}

/** How many parts cellParts(cell) makes. */
const partCount = ({ mark, differs, beyond, printed }) => (mark === 'dropped') + 1 + (printed !== null) + 2 * Boolean(beyond) + Boolean(mark) + Boolean(differs);

function matrixBox(result, scale, lead, caption, book = null, texts = null, allColumns = false) {
  const model = boxModel(result, scale, lead, caption, book, texts, allColumns);
  const { ndim, label, dims, values, allCols, nCols, colLabels, rowLabels } = model;
  const table = h('table', { class: `matrix${ndim === 0 ? ' scalar' : ''}${ndim === 1 ? ' vector' : ''}` });

  // <caption>: visible for the matrices of a group, for screen readers otherwise (the figure shows it).
  table.append(
    caption
      ? h('caption', {}, h('span', { class: 'lead-index' }, caption.index), ' ', h('span', { class: 'lead-meaning' }, caption.meaning), srOnly(`, ${label}, ${dims}`))
      : h('caption', { class: 'sr-only' }, model.captionText),
  );

  if (ndim >= 1) {
    const head = h('tr', {});
    if (rowLabels) head.append(h('td', { class: 'corner' }));
    colLabels.forEach((c) => head.append(h('th', { scope: 'col' }, c)));
    table.append(h('thead', {}, head));
  }
  const tbody = h('tbody', {});
  let first = true;
  values.forEach((row, i) => {
    const tr = h('tr', {});
    if (rowLabels) tr.append(h('th', { scope: 'row' }, rowLabels[i]));
    for (let j = 0; j < nCols; j++) {
      const cell = model.cell(i, j);
      tr.append(h('td', { class: cell.className, tabindex: first ? '0' : '-1', 'data-index': cell.index.join(','), style: cell.style }, ...cellParts(cell)));
      first = false;
    }
    tbody.append(tr);
  });
  table.append(tbody);
  // a big table's cells are painted each on their own (styles.css): a wider labels' column only moves them
  const big = values.length * nCols >= BIG_TABLE_CELLS;
  const box = h('div', { class: `matrix-box${big ? ' is-big' : ''}` }, table, h('p', { class: 'scroll-hint' }, 'Scroll sideways for more columns'),
    h('p', { class: 'offscreen-columns', 'aria-hidden': 'true' }));
  watchOverflow(box);
  if (nCols === allCols) return box;
  const drawAll = h('button', { type: 'button', class: 'button quiet small' }, `Draw all ${allCols.toLocaleString('en')} columns`);
  const cut = h('div', { class: 'columns-cut' },
    h('p', {}, `Only columns 0–${nCols - 1} of ${allCols.toLocaleString('en')} are drawn. `), drawAll);
  const whole = h('div', { class: 'matrix-cut' }, box, cut);
  drawAll.onclick = (e) => { // a property, as the head picker's
    const full = matrixBox(result, scale, lead, caption, book, texts, true);
    e.currentTarget.closest('.matrix-cut').replaceWith(full);
    full.querySelector('td.cell')?.focus();
  };
  return whole;
}

/**
 * Writes what matrixBox(...) would draw into `box`, a box drawn before for the same table (its caption, its
 * rows and drawn columns), changing only the labels, numbers, colours and marks that differ; false, writing
 * nothing, when `box` holds another table (app/patch.js then puts the new drawing in its place). A cell keeps
 * its elements and text nodes where its marks are the same (a seed edit: every number, no mark), so that the
 * browser styles and lays out the cells whose text or colour changed, nothing else.
 */
function patchMatrixBox(box, result, scale, lead, caption, book = null, texts = null) {
  const table = box.firstElementChild;
  if (!box.classList.contains('matrix-box') || table?.tagName !== 'TABLE' || box.hasAttribute('data-later')) return false;
  const model = boxModel(result, scale, lead, caption, book, texts, false);
  const { values, nCols, allCols, colLabels, rowLabels } = model;
  const rows = table.tBodies[0]?.rows;
  const labelled = rowLabels ? 1 : 0;
  // a box whose columns were all drawn ("Draw all") stays another drawing, as does a table of another shape
  if (nCols !== allCols || !rows || rows.length !== values.length || table.caption?.textContent !== model.captionText ||
    [...rows].some((tr) => tr.cells.length !== labelled + nCols)) return false;
  const write = (element, text) => {
    if (element.textContent !== text) element.textContent = text;
  };
  if (model.ndim >= 1) table.tHead?.querySelectorAll('th').forEach((th, j) => write(th, colLabels[j]));
  for (let i = 0; i < rows.length; i++) {
    const cells = rows[i].cells;
    if (rowLabels) write(cells[0], rowLabels[i]);
    for (let j = 0; j < nCols; j++) patchCell(cells[labelled + j], model.cell(i, j));
  }
  box.removeAttribute('aria-busy'); // left for later by an earlier edit: its numbers are these now
  recheckOverflow(box); // other widths of numbers: other columns may be out of sight
  return true;
}

/** Brings a table cell to `cell` (boxModel's view of it): its colour, then its number where its marks are the same, else its parts. */
function patchCell(td, cell) {
  const style = cell.style ?? {};
  for (const name of ['--heat', '--heat-color']) {
    const value = style[name] ?? '';
    if (td.style.getPropertyValue(name) !== value) {
      if (value) td.style.setProperty(name, value);
      else td.style.removeProperty(name);
    }
  }
  const parts = td.childNodes;
  const num = parts[cell.mark === 'dropped' ? 1 : 0];
  const book = cell.printed !== null ? num?.nextSibling : null;
  const sameParts = td.className === cell.className && num?.className === 'num' &&
    (cell.printed === null || book?.className === 'book-num') && parts.length === partCount(cell);
  if (!sameParts) {
    td.className = cell.className;
    td.replaceChildren(...cellParts(cell));
    return;
  }
  if (num.firstChild.data !== cell.text) num.firstChild.data = cell.text; // the text node kept: nothing new to style
  if (book && book.lastChild.data !== cell.printed) book.lastChild.data = cell.printed;
}

// A table wider than its box scrolls inside it: the box fades at the edge where columns are hidden and a
// hint (read by screen readers too) says so. Checked whenever the box changes size (also when it is shown).
const overflowWatch = typeof ResizeObserver === 'function'
  ? new ResizeObserver((seen) => {
    for (const { target } of seen) if (!target.isConnected) overflowWatch.unobserve(target); // a step drawn over
    seen.filter((e) => e.target.isConnected).map((e) => overflowOf(e.target)).forEach(showOverflow);
  })
  : null;

/** Keeps a box's faded edges and cue true to what it hides: as it scrolls and whenever it changes size (also the settings' inputs box). */
export function watchOverflow(box) {
  box.addEventListener('scroll', () => showOverflow(overflowOf(box)), { passive: true });
  overflowWatch?.observe(box);
}

/** Checks a box again once the browser has laid it out: a table updated in place (app/patch.js) may have other columns or names. */
export function recheckOverflow(box) {
  overflowWatch?.unobserve(box);
  overflowWatch?.observe(box); // observing reports the box's size once, after the next layout
}

/** What a box's edges and cue should show (read from the layout; every read before any write); also the settings' inputs table's box. */
export function overflowOf(box) {
  const hidden = box.scrollWidth - box.clientWidth;
  const scrolls = hidden > 1;
  return { box, scrolls, left: scrolls && box.scrollLeft > 1, right: scrolls && box.scrollLeft < hidden - 1, cue: scrolls ? offscreenColumns(box) : '' };
}

export function showOverflow({ box, scrolls, left, right, cue }) {
  box.classList.toggle('is-scrollable', scrolls);
  box.classList.toggle('fade-left', left);
  box.classList.toggle('fade-right', right);
  const line = box.querySelector(':scope > .offscreen-columns');
  if (line && line.textContent !== cue) line.textContent = cue;
}

/** Which columns of a scrolled table are out of sight, e.g. 'Off screen: columns 10–16 (word10 … word16)'. */
export function offscreenColumns(box) {
  const { left, right } = box.getBoundingClientRect();
  const heads = [...box.querySelectorAll(':scope > table > thead th')];
  const out = heads.flatMap((th, j) => {
    const r = th.getBoundingClientRect();
    return r.left < left - 1 || r.right > right + 1 ? [j] : [];
  });
  if (!out.length) return '';
  // runs of neighbouring columns: [[0, 2], [12, 15]]
  const runs = out.reduce((all, j) => (all.length && all.at(-1)[1] === j - 1 ? (all.at(-1)[1] = j, all) : [...all, [j, j]]), []);
  const name = (j) => heads[j].textContent;
  const numbered = heads.every((th, j) => th.textContent === String(j));
  const run = ([a, b]) => (a === b ? (numbered ? `column ${a}` : `${name(a)} (column ${a})`) : numbered ? `columns ${a}–${b}` : `${name(a)} … ${name(b)} (columns ${a}–${b})`);
  return `Off screen: ${runs.map(run).join(' and ')}`;
}

function axisLabels(labels, n) {
  return Array.from({ length: n }, (_, i) => (Array.isArray(labels) && labels.length === n ? String(labels[i]) : String(i)));
}

function safeMark(result, index) {
  if (typeof result.marks !== 'function') return null;
  try {
    return result.marks(index) ?? null;
  } catch {
    return null;
  }
}

const marksFound = new WeakMap(); // result -> its marks, found once (a renamed word draws the same result again)

/** The marks a result uses anywhere (for the legend). */
export function marksIn(result) {
  if (typeof result.marks !== 'function' || !Array.isArray(result.shape)) return new Set();
  if (marksFound.has(result)) return new Set(marksFound.get(result));
  const found = new Set();
  everyIndex(result.shape, (idx) => {
    const m = safeMark(result, idx);
    if (m) found.add(m);
    return true;
  });
  marksFound.set(result, found);
  return new Set(found);
}

// ---------------------------------------------------------------- the book's printout

function renderBook(result, ctx, cells, figure, live, match) {
  if (!result.book) return null;
  const box = h('div', { class: `book ${match ? 'is-match' : 'is-differs'}` });
  const differing = cells ? cells.filter((c) => !c.matches).length : null;
  box.append(
    h(
      'p',
      { class: 'book-mark', 'data-book': match ? 'match' : 'differs' },
      h('span', { class: 'book-icon', 'aria-hidden': 'true' }, match ? '✓' : '≠'),
      h('span', {}, match ? 'Matches the book' : differing ? `Differs from the book in ${differing} of ${cells.length} cells` : 'Differs from the book'),
    ),
  );
  if (!match) {
    box.append(
      h(
        'p',
        { class: 'book-why' },
        ctx.isBook
          ? 'With the book’s settings these numbers should match what it prints.'
          : `Expected: your settings differ from the book’s.${differing ? ' The cells that differ have a corner mark.' : ''}`,
      ),
    );
  }
  if (cells) {
    const key = `${result.name}:cells`;
    const on = figure.classList.contains('show-book');
    const toggle = h('button', { type: 'button', class: 'button quiet small book-toggle', 'aria-pressed': String(on) },
      'The book’s numbers in the cells');
    toggle.onclick = (e) => { // a property, as the head picker's
      const shown = e.currentTarget.closest('figure.result').classList.toggle('show-book');
      e.currentTarget.setAttribute('aria-pressed', String(shown));
      ctx.onBookToggle?.(key, shown);
    };
    box.append(toggle);
  }
  // the live printout (the core's str(tensor)) beside the book's, both always shown
  const label = result.label ?? result.name;
  const printout = (title, text, kind) =>
    h('figure', { class: `book-print ${kind}` },
      h('figcaption', {}, title),
      h('pre', { tabindex: '0', 'aria-label': `${title} for ${label}` }, h('code', {}, text)));
  box.append(
    h('div', { class: 'book-prints' },
      live ? printout('What it prints here', live, 'is-live') : null,
      printout('What the book prints', result.book, 'is-book')),
  );
  return box;
}
