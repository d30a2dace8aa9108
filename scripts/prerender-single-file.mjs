// The single file's first step drawn into its markup at build time (npm run build:site, after `vite build --mode
// single`), so that a learner opening dist/attention-lab.html sees its numbers as soon as the top of the file is
// parsed, before the 1.1 MB of scripts after it are: the page's own module then draws the step again, live, over it.
//
// The step is taken from the built file itself, opened in Chromium as a learner with no link, a wide window, a
// mouse and the light theme would open it: the step's markup as it was when the page marked its first numbers
// (before KaTeX, which comes later, as in the page's own first frame), up to what the first screen shows (as the
// page's first frame, web/main.js firstScreenFirst). Its colours, which the page sets from script, become rules of a
// style element of their own (the policy allows no style attributes). A script at the top of the head decides
// before anything is drawn: a visitor the drawing is not for (a link to another step or to other settings, a
// phone, a touch screen, the dark theme) never sees it: the page then waits for the whole file, as without it.
//
// For a visitor it is drawn for, the drawn step's frame comes before the page's other work: that script's promise
// window.bootDrawnPainted resolves once it is painted, and both the unpacking of the inlined core (web/public/boot.js)
// and the page's module (whose first statement is made to wait for it) start only then. Every script and the
// style element added are allowed by the file's policy by their hashes.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { asciiHtml } from './ascii-html.mjs';

const file = process.argv[2] ?? fileURLToPath(new URL('../dist/attention-lab.html', import.meta.url));
const sha256 = (text) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

// Whom the drawing is for: the conditions it was drawn under (web/render/formula.js's narrow layout, the touch
// wording of web/render/step.js, the heat colours of web/render/matrix.js; the link's state).
// The link may be none, or the first step's under the book's settings, which the page writes once it has started.
const forWhom = (hash) => `(!location.hash || location.hash === ${JSON.stringify(hash)}) && !matchMedia('(max-width: 40rem), (hover: none), (pointer: coarse), (prefers-color-scheme: dark)').matches`;
const VIEW = { viewport: { width: 1280, height: 800 }, colorScheme: 'light', hasTouch: false, isMobile: false };

// At the top of the head, before the boot script: rendering waits for the end of the drawn step
// (#first-step-end) or for the end of the file (#end-of-file, as without a drawing); the link not taken is removed
// before the body is parsed. window.bootDrawnPainted: once the drawn step is painted (a task queued from its
// frame's animation callback runs after that paint), or the tab is hidden (which paints nothing).
const guard = (hash) => `
(function () {
  var drawn = ${forWhom(hash)};
  document.documentElement.dataset.firstStep = drawn ? 'drawn' : 'live';
  var other = document.querySelector('link[rel=expect][href="#' + (drawn ? 'end-of-file' : 'first-step-end') + '"]');
  if (other) other.remove();
  if (drawn) window.bootDrawnPainted = new Promise(function (painted) {
    var hidden = function () { if (document.visibilityState === 'hidden') painted(); };
    hidden();
    document.addEventListener('visibilitychange', hidden);
    requestAnimationFrame(function () { setTimeout(painted); });
  });
})();
`;
// After the drawn step: its numbers are in the page (what the live page marks once it has drawn its own).
const MARK = "\nif (document.documentElement.dataset.firstStep === 'drawn') performance.mark('page:first-step');\n";
// The page's module's first statement: its top-level code (all of the bundle's) runs after that paint.
const WAIT = 'if (window.bootDrawnPainted) await window.bootDrawnPainted;\n';

/** The step's markup when the page marked its first numbers, its colours as class names, and their rules. */
async function drawFirstStep() {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
  try {
    const context = await browser.newContext(VIEW);
    await context.addInitScript(() => {
      const mark = performance.mark.bind(performance);
      performance.mark = (name, ...rest) => {
        if (name === 'page:first-step' && !window.drawnStep) {
          const step = document.getElementById('step').cloneNode(true);
          for (const child of step.children) child.setAttribute('data-drawn', '');
          // the first screen: the parts after the results wait for the page's own step when the results reach
          // below the window (the page's first frame leaves them out too)
          const results = document.querySelector('#step > article > section.results');
          if (results && results.getBoundingClientRect().bottom >= innerHeight) {
            const kept = step.querySelector(':scope > article > section.results');
            while (kept.nextElementSibling) kept.nextElementSibling.remove();
          }
          const rules = new Map(); // style text -> class
          for (const el of step.querySelectorAll('[style]')) {
            const css = el.getAttribute('style');
            if (!rules.has(css)) rules.set(css, `fs${rules.size}`);
            el.removeAttribute('style');
            el.classList.add(rules.get(css));
          }
          window.drawnStep = { html: step.innerHTML, rules: [...rules].map(([css, name]) => `#step .${name}{${css}}`) };
        }
        return mark(name, ...rest);
      };
    });
    const page = await context.newPage();
    await page.goto(pathToFileURL(file).href);
    await page.waitForFunction(() => document.documentElement.dataset.ready === 'true', undefined, { timeout: 60_000 });
    await page.waitForFunction(() => location.hash.length > 1);
    const drawn = await page.evaluate(() => ({ ...window.drawnStep, hash: location.hash }));
    if (!drawn?.html) throw new Error('prerender: the page marked no first step');
    return drawn;
  } finally {
    await browser.close();
  }
}

let html = readFileSync(file, 'utf8');
if (html.includes('id="first-step-end"')) throw new Error(`prerender: ${file} already holds a drawn step`);
const host = /<div id="step" class="step-host" aria-busy="true">[\s\S]*?<\/div>\s*<\/div>/;
const endLink = '<link rel="expect" href="#end-of-file" blocking="render" />';
const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)" \/>/;
const bootScript = '<script data-core-gzip=';
const pageModule = /<script type="module">([\s\S]*?)<\/script>/g;
const modules = [...html.matchAll(pageModule)];
if (!host.test(html) || !html.includes(endLink) || !policy.test(html) || !html.includes(bootScript) || modules.length !== 1) {
  throw new Error(`prerender: ${file} is not the single file as its build leaves it (step host, rel=expect, policy, boot script, one module)`);
}
const drawn = await drawFirstStep();
// The drawn step or the page's "Loading…", whichever the head's script chose; the page's own step replaces both.
const rules = ['[data-first-step=drawn] #step > .loading{display:none}', '[data-first-step=live] #step > [data-drawn]{display:none}', ...drawn.rules].join('\n');
const step = asciiHtml(drawn.html, 'the drawn step'); // as the rest of the file (scripts/ascii-html.mjs)
const GUARD = guard(drawn.hash);
const [, moduleCode] = modules[0];
html = html
  .replace(policy, (tag, content) => tag.replace(content, content
    .replace(sha256(moduleCode), sha256(WAIT + moduleCode))
    .replace("script-src ", `script-src ${sha256(GUARD)} ${sha256(MARK)} `)
    .replace('style-src ', `style-src ${sha256(rules)} `)))
  .replace(/\s*<link rel="expect" href="#end-of-file" blocking="render" \/>/, '')
  .replace(bootScript, () => `<link rel="expect" href="#first-step-end" blocking="render" />\n    ${endLink}\n    <script>${GUARD}</script>\n    ${bootScript}`)
  .replace('</head>', () => `  <style>${rules}</style>\n  </head>`)
  // aria-busy stays: the drawn step is not live until the page has drawn its own
  .replace(host, (placeholder) => `${placeholder.replace(/<\/div>$/, '')}${step}</div><template id="first-step-end"></template><script>${MARK}</script>`)
  .replace(pageModule, () => `<script type="module">${WAIT}${moduleCode}</script>`);
if (!html.includes(sha256(WAIT + moduleCode))) throw new Error("prerender: the policy did not hold the page's module by its hash");
writeFileSync(file, html);
console.log(`prerender: ${file}: the first step drawn (${(step.length / 1024).toFixed(1)} KB, ${drawn.rules.length} colour rules)`);
