// scripts/ascii-html.mjs: the single file's text escaped into ASCII, each part in its own language, reading the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';

import { asciiHtml } from '../../scripts/ascii-html.mjs';

const ASCII = /^[\x00-\x7f]*$/;

test('markup and attributes: character references', () => {
  const out = asciiHtml('<p title="It’s “x”">Loading… 3 × 2 → 😀</p>');
  assert.match(out, ASCII);
  assert.equal(out, '<p title="It&#8217;s &#8220;x&#8221;">Loading&#8230; 3 &#215; 2 &#8594; &#128512;</p>');
});

test('a classic script: Unicode escapes that give the same strings and regular expressions', () => {
  const source = "window.said = 'The page’s scripts… 😀'; window.dash = /[–—]/.test('a—b');";
  const out = asciiHtml(`<script data-x="1">${source}</script>`);
  assert.match(out, ASCII);
  const [, escaped] = /<script[^>]*>([\s\S]*)<\/script>/.exec(out);
  const [before, after] = [source, escaped].map((code) => {
    const context = { window: {} };
    vm.runInNewContext(code, context);
    return context.window;
  });
  assert.deepEqual(after, before);
  assert.equal(after.said, 'The page’s scripts… 😀');
});

test('a stylesheet, and one carried as text: CSS escapes that take their one space', () => {
  const out = asciiHtml('<style>.a:before{content:"→ "}.b:after{content:"✓1"}</style><script type="text/plain" data-style-of="k.js">.c:before{content:"▸"}</script>');
  assert.match(out, ASCII);
  assert.equal(out, '<style>.a:before{content:"\\2192  "}.b:after{content:"\\2713 1"}</style><script type="text/plain" data-style-of="k.js">.c:before{content:"\\25b8 "}</script>');
});

test('modules, chunks carried as text and scripts with template literals are the bundler\'s: left as they are when ASCII, refused when not', () => {
  const ascii = '<script type="module">const a = "\\u2019";</script><script type="text/plain" data-chunk="c.js">x`y`</script>';
  assert.equal(asciiHtml(ascii), ascii);
  assert.throws(() => asciiHtml('<script type="module">const a = "’";</script>', 'the test page'), /the test page has a script the bundler left with 1 non-ASCII character\(s\), "’"/);
  assert.throws(() => asciiHtml('<script type="text/plain" data-chunk="c.js">String.raw`×`</script>'), /non-ASCII/);
  assert.throws(() => asciiHtml('<script>String.raw`×`</script>'), /non-ASCII/);
});
