// The single file in ASCII alone (vite.config.js, asciiOnly; scripts/prerender-single-file.mjs): Chromium keeps a
// piece of a page it reads in 8-bit characters when the piece has none above U+00FF, else in 16-bit ones, which it
// decodes and tokenizes more slowly; one "’" in 64 KB is enough. Its modules are written in ASCII by the bundler
// (output.charset); the rest is escaped here, each in its own language, so the page reads the same text.

const NON_ASCII = /[^\x00-\x7f]/gu;
const codePoint = (char) => char.codePointAt(0);

const inMarkup = (text) => text.replace(NON_ASCII, (char) => `&#${codePoint(char)};`);
// a CSS escape ends at its first non-hex character, or at the one space after it, which it takes
const inCss = (text) => text.replace(NON_ASCII, (char) => `\\${codePoint(char).toString(16)} `);
// in UTF-16 units (no u flag: a character above U+FFFF is matched as its two), \uXXXX: a \u{...} escape in a
// regular expression without the u flag means a letter u repeated
const inScript = (text) => text.replace(/[^\x00-\x7f]/g, (unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);

/**
 * `html` with every character above U+007F escaped: as a character reference in markup, a CSS escape in a
 * stylesheet (or one carried as text: data-style-of), a Unicode escape in a classic script (the page's own boot
 * scripts, which hold no template literal: a tagged one's raw text would change). Modules and the chunks carried
 * as text are the bundler's to write in ASCII: one that is not, or a classic script with a backquote, is an error.
 */
export function asciiHtml(html, where = 'the page') {
  let out = '';
  let at = 0;
  for (const element of html.matchAll(/(<script\b[^>]*>)([\s\S]*?)(<\/script>)|(<style\b[^>]*>)([\s\S]*?)(<\/style>)/g)) {
    out += inMarkup(html.slice(at, element.index));
    at = element.index + element[0].length;
    const [, scriptTag, script, scriptEnd, styleTag, style, styleEnd] = element;
    if (styleTag) {
      out += inMarkup(styleTag) + inCss(style) + styleEnd;
    } else if (/data-style-of=/.test(scriptTag)) {
      out += inMarkup(scriptTag) + inCss(script) + scriptEnd;
    } else if (/type="(module|text\/plain)"/.test(scriptTag) || script.includes('`')) {
      const left = script.match(NON_ASCII);
      if (left) throw new Error(`ascii: ${where} has a script the bundler left with ${left.length} non-ASCII character(s), "${left.slice(0, 5).join('')}"`);
      out += inMarkup(scriptTag) + script + scriptEnd;
    } else {
      out += inMarkup(scriptTag) + inScript(script) + scriptEnd;
    }
  }
  return out + inMarkup(html.slice(at));
}
