// Small DOM helpers shared by the renderers. Everything that comes from data (token words, user input,
// anything from the URL) reaches the page through text nodes only: h() never parses HTML.

/**
 * h('p', { class: 'x', 'data-step': id }, 'text', child) -> element.
 * Attribute values are set with setAttribute; strings among the children become text nodes.
 * `on<event>` keys add listeners; `text` sets textContent; false/null/undefined skip the attribute.
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value == null || value === false) continue;
    if (key === 'class') el.className = value;
    else if (key === 'text') el.textContent = value;
    else if (key === 'style' && typeof value === 'object') {
      for (const [prop, v] of Object.entries(value)) el.style.setProperty(prop, v);
    } else if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

/** el.append for data: skips null/undefined/false (DOM's own append would print them as text). */
export function append(el, ...children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

/** Text for screen readers only. */
export const srOnly = (text) => h('span', { class: 'sr-only' }, text);

/** Plain text where `backticks` mark code: returns nodes (text and <code>), never HTML. */
export function inlineCode(text) {
  const parts = String(text).split('`');
  // An odd count of backticks leaves the last part as plain text.
  return parts.map((part, i) => (i % 2 === 1 && i < parts.length - 1 ? h('code', {}, part) : part)).filter((p) => p !== '');
}

/** The book's number format: 4 decimals, a real minus sign, ±∞ and nan. */
export function fmt(v) {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (v === Infinity) return '∞';
  if (v === -Infinity) return '−∞';
  if (Number.isNaN(v)) return 'nan';
  const s = Number(v).toFixed(4);
  return s.startsWith('-') ? `−${s.slice(1)}` : s;
}

/** '[6, 6]' for a shape, '[]' for a 0-d tensor. */
export const shapeText = (shape) => `[${shape.join(', ')}]`;

/** The values at a leading index of nested arrays: at(values, [0, 1]) = values[0][1]. */
export const at = (nested, index) => index.reduce((node, i) => node[i], nested);

/** Every index tuple of the given sizes, row-major: [[0,0],[0,1],...]. */
export function indexTuples(sizes) {
  let out = [[]];
  for (const n of sizes) out = out.flatMap((prefix) => Array.from({ length: n }, (_, i) => [...prefix, i]));
  return out;
}

/**
 * A page that could not start: marks the document (data-ready="error", which the tests read), clears the
 * host's busy state and puts an alert there with what failed and how the page is meant to be served.
 */
export function showStartFailure(host, title, message, error) {
  document.documentElement.dataset.ready = 'error';
  host.removeAttribute('aria-busy');
  host.replaceChildren(
    h(
      'div',
      { class: 'fatal', role: 'alert' },
      h('h2', {}, title),
      h('p', {}, message),
      error ? h('p', {}, h('code', {}, String(error?.message ?? error))) : null,
      h('p', {}, 'From a checkout, ', h('code', {}, 'scripts/start.sh'), ' builds everything and serves the page at the address it prints.'),
    ),
  );
}
