// The PyTorch lines of a step, with the line(s) this step executes highlighted (background, a bar and a
// ▶ marker, and "runs in this step" for screen readers). A light tokenizer colours Python; every token
// is a text node.
import { h, srOnly } from './dom.js';
import { inputsLines, queryRow, contextLengthArg, pyFloat } from '../python.js';

const KEYWORDS = new Set([
  'def', 'class', 'return', 'for', 'in', 'if', 'else', 'elif', 'import', 'from', 'as', 'with', 'not', 'and',
  'or', 'is', 'None', 'True', 'False', 'lambda', 'while',
]);
const TOKEN = /(#.*$)|('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")|(\b\d+(?:\.\d*)?(?:e[+-]?\d+)?\b|\.\d+\b)|([A-Za-z_]\w*)/g;

/** Python source -> nodes, with spans for comments, strings, numbers and keywords. */
function highlight(line) {
  const nodes = [];
  let last = 0;
  for (const m of line.matchAll(TOKEN)) {
    if (m.index > last) nodes.push(line.slice(last, m.index));
    const [text, comment, string, number, word] = m;
    if (comment) nodes.push(h('span', { class: 'tok-comment' }, text));
    else if (string) nodes.push(h('span', { class: 'tok-string' }, text));
    else if (number) nodes.push(h('span', { class: 'tok-number' }, text));
    else if (word && KEYWORDS.has(word)) nodes.push(h('span', { class: 'tok-keyword' }, text));
    else nodes.push(text);
    last = m.index + text.length;
  }
  if (last < line.length) nodes.push(line.slice(last));
  return nodes;
}

// The step files write the book's values (seeds 123 and 789, p = 0.5, d_out = 2, two heads, no bias, the
// book's sentence); these rules write the current settings instead, line for line, so the code shown is the
// code that prints the numbers shown.
const INSTANCE = /^(\w+ = (?:SelfAttention_v2|CausalAttention|MultiHeadAttentionWrapper|MultiHeadAttention)\(.*)\)$/;

/**
 * The step's lines with the current settings written in, and its highlighted lines renumbered: the
 * book's `inputs = torch.tensor([...])` block becomes the current rows (or the seeded draw).
 */
export function codeWithSettings(lines, s, highlight = []) {
  const hot = new Set(highlight);
  const out = [];
  const newHot = [];
  for (let i = 0; i < lines.length; i++) {
    const start = out.length;
    let last = i; // the last step line these output lines stand for
    if (lines[i] === 'inputs = torch.tensor([' && lines.indexOf('])', i) > i) {
      last = lines.indexOf('])', i);
      out.push(...inputsLines(s));
    } else {
      out.push(withSettings(lines[i], s));
    }
    let on = false;
    for (let k = i; k <= last; k++) on ||= hot.has(k);
    if (on) for (let k = start; k < out.length; k++) newHot.push(k);
    i = last;
  }
  return { lines: out, highlight: newHot };
}

function withSettings(line, s) {
  let out = line
    .replace('inputs[1]', queryRow(s))
    .replace('batch.shape[1], 0.0', `${contextLengthArg(s)}, 0.0`)
    .replace('torch.manual_seed(123)', `torch.manual_seed(${s.seed})`)
    .replace('torch.manual_seed(789)', `torch.manual_seed(${s.seedV2})`)
    .replace('Dropout(0.5)', `Dropout(${pyFloat(s.p)})`)
    .replace('num_heads=2', `num_heads=${s.heads}`)
    .replace(/^d_in, d_out = inputs\.shape\[1\], 2$/, `d_in, d_out = inputs.shape[1], ${s.d_out}`);
  if (s.qkv_bias && !out.includes('qkv_bias')) out = out.replace(INSTANCE, '$1, qkv_bias=True)');
  return out;
}

/**
 * @param {string[] | string} code    the step's lines
 * @param {number[]} [active]         0-based lines executed by this step
 */
export function renderCode(code, active = []) {
  const lines = Array.isArray(code) ? code : typeof code === 'string' ? code.split('\n') : [];
  if (lines.length === 0) return null;
  const on = new Set(active ?? []);
  const codeEl = h('code', {});
  lines.forEach((line, i) => {
    const hot = on.has(i);
    codeEl.append(
      h(
        'span',
        { class: `line${hot ? ' is-active' : ''}`, 'data-line': i },
        h('span', { class: 'marker', 'aria-hidden': 'true' }, hot ? '▶' : ''),
        ...highlight(String(line)),
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
