// The PyTorch lines of a step, with the line(s) this step executes highlighted (background, a bar and a
// ▶ marker, and "runs in this step" for screen readers). A light tokenizer colours Python; every token
// is a text node. A line too long for its box wraps with a hanging indent (styles.css); the marker and
// the screen-reader words cannot be selected, so copying the code gives exactly the Python.
import { h, srOnly } from './dom.js';
import { programLines, stepLines } from '../python.js';
import { STEPS } from '../steps/index.js';

const KEYWORDS = new Set([
  'def', 'class', 'return', 'for', 'in', 'if', 'else', 'elif', 'import', 'from', 'as', 'with', 'not', 'and',
  'or', 'is', 'None', 'True', 'False', 'lambda', 'while',
]);
const TOKEN = /(#.*$)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(\b\d+(?:\.\d*)?(?:e[+-]?\d+)?\b|\.\d+\b)|([A-Za-z_]\w*)/g;

// Where a long line may wrap besides its spaces: after an opening bracket, and before the dot of a chained
// call (`...).transpose(`), but only inside a run without spaces too long to fit beside its indentation on
// a phone, so that a space stays the first choice. A <wbr> adds no text, so a copy is unchanged.
const BREAK_POINT = /[([]|(?<=[)\]])(?=\.)/g;
const LONG_RUN = /\S{25,}/g;

/** The offsets in a line after which a <wbr> goes. */
function breakPoints(line) {
  const points = new Set();
  for (const run of line.matchAll(LONG_RUN)) {
    for (const m of run[0].matchAll(BREAK_POINT)) points.add(run.index + m.index + m[0].length);
  }
  return points;
}

/** Code between tokens (starting at `offset` of its line) -> text nodes with a <wbr> at each break point. */
function breakable(text, offset, points) {
  const nodes = [];
  let last = 0;
  for (let i = 1; i <= text.length; i++) {
    if (!points.has(offset + i)) continue;
    nodes.push(text.slice(last, i), h('wbr'));
    last = i;
  }
  if (last < text.length) nodes.push(text.slice(last));
  return nodes;
}

/** Python source -> nodes, with spans for comments, strings, numbers and keywords. */
function highlight(line) {
  const points = breakPoints(line);
  const nodes = [];
  let last = 0;
  for (const m of line.matchAll(TOKEN)) {
    if (m.index > last) nodes.push(...breakable(line.slice(last, m.index), last, points));
    const [text, comment, string, number, word] = m;
    if (comment) nodes.push(h('span', { class: 'tok-comment' }, text));
    else if (string) nodes.push(h('span', { class: 'tok-string' }, text));
    else if (number) nodes.push(h('span', { class: 'tok-number' }, text));
    else if (word && KEYWORDS.has(word)) nodes.push(h('span', { class: 'tok-keyword' }, text));
    else nodes.push(text);
    last = m.index + text.length;
  }
  if (last < line.length) nodes.push(...breakable(line.slice(last), last, points));
  return nodes;
}

/**
 * A line's nodes, its indentation held together with its first token so that a wrap never leaves a line of
 * spaces (a first token with spaces, a comment or a string, may still wrap at them).
 */
function lineNodes(line) {
  const indent = line.match(/^ */)[0];
  if (indent === '' || indent === line) return highlight(line);
  const [first, ...rest] = highlight(line.slice(indent.length));
  if (/\s/.test(first.textContent ?? first)) return [indent, first, ...rest];
  return [h('span', { class: 'indent' }, indent, first), ...rest];
}

/**
 * The step's lines as the page shows them, with the indices of the lines it runs: prints as print(...), a
 * class in full on its home step and as a one-line pointer on the others.
 */
export function shownCode(step, settings) {
  const lines = stepLines(step, settings).flatMap((entry) =>
    entry.definition && entry.home !== step.id
      ? [`# class ${entry.definition}: in full on step ${STEPS.findIndex((s) => s.id === entry.home) + 1}`]
      : programLines(entry),
  );
  while (lines.at(-1) === '') lines.pop();
  const highlight = step.highlight === 'all' ? lines.map((_, i) => i) : step.highlight ?? [];
  return { lines, highlight };
}

/**
 * @param {string[]} lines     the step's lines as shown (shownCode)
 * @param {number[]} active    0-based lines executed by this step
 */
export function renderCode(lines, active) {
  if (lines.length === 0) return null;
  const on = new Set(active);
  const codeEl = h('code', {});
  lines.forEach((line, i) => {
    const hot = on.has(i);
    const text = String(line);
    codeEl.append(
      h(
        'span',
        // the line's own indentation: its wrapped rest hangs deeper than its code starts
        { class: `line${hot ? ' is-active' : ''}`, 'data-line': i, style: { '--indent': String(text.match(/^ */)[0].length) } },
        h('span', { class: 'marker', 'aria-hidden': 'true' }, hot ? '▶' : ''),
        // an empty line keeps its height, and its line break when copied
        ...(text === '' ? [h('br')] : lineNodes(text)),
        hot ? srOnly('  (runs in this step)') : null,
      ),
    );
  });
  return h(
    'figure',
    { class: 'code' },
    h('figcaption', {}, 'PyTorch', on.size ? h('span', { class: 'code-hint' }, ` · ▶ marks ${on.size === 1 ? 'the line' : 'the lines'} this step runs`) : null),
    h('pre', { tabindex: '0', 'aria-label': 'PyTorch code' }, codeEl),
  );
}
