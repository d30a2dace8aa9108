// The pages in web/ as a static site and as one offline file (npm run build:site runs both builds):
//   vite                       dev server for the three pages, from the sources
//   vite build                 dist/site/: index.html, bench.html, notebook.html and content-hashed assets, with
//                              relative URLs (any sub-path of any static host) and a Content-Security-Policy
//   vite build --mode single   dist/attention-lab.html: the teaching page with its script, styles, fonts and the
//                              SIMD WebAssembly inlined, for file:// with no network; a hash-based policy
//   vite preview               serves dist/site
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { defineConfig } from 'vite';
import { viteSingleFile } from 'vite-plugin-singlefile';

import { PYTHON_FILES } from './notebook/python-files.js';
import { asciiHtml } from './scripts/ascii-html.mjs';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
// A Content-Security-Policy source allowing an inline script or style with exactly this text.
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

// KaTeX faces the page's formulas use (tests/e2e/publish.test.js checks every typeset glyph has its face);
// the others, and the woff/ttf copies every current browser skips for woff2, stay out of the build.
export const KATEX_FACES = [
  'KaTeX_Main-Regular',
  'KaTeX_Main-Bold',
  'KaTeX_Math-Italic',
  'KaTeX_Math-BoldItalic',
  'KaTeX_Caligraphic-Regular',
  'KaTeX_Size1-Regular',
  'KaTeX_Size2-Regular',
  'KaTeX_Size3-Regular',
  'KaTeX_Size4-Regular',
  'KaTeX_AMS-Regular',
];

// Pyodide's own files, copied as they are into pyodide/ (it loads its standard library by name).
const PYODIDE_FILES = ['pyodide.mjs', 'pyodide.asm.mjs', 'pyodide.asm.wasm', 'python_stdlib.zip', 'pyodide-lock.json'];
// The notebook's snapshot of Python made by the build (scripts/build-notebook-snapshot.mjs), beside the pages.
export const NOTEBOOK_SNAPSHOT = 'notebook-python-snapshot.gz';

// Everything from the page's own origin; WebAssembly compiled but nothing evaluated from strings.
const SITE_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'none'",
];

// The notebook's worker: a page's <meta> policy does not bind it, so where the host sends headers its script
// comes with a policy of its own (elsewhere the worker binds itself: notebook/site-only.js). It reaches the
// site only, and compiles WebAssembly but no JavaScript from text.
export const WORKER_POLICY = [
  "default-src 'none'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "connect-src 'self'",
  "worker-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
];
// The worker's script: built into assets/worker/, served from its source with ?worker_file by the dev server.
const WORKER_SCRIPT = /\/assets\/worker\/worker-[^/?]*\.js(\?|$)|\/notebook\/worker\.js\?(.*&)?worker_file\b/;
const isWorkerScript = (url) => WORKER_SCRIPT.test(url);

// Where the host sends no headers, the site's service worker adds the policy (web/notebook/service-worker.js).
export const SERVICE_WORKER = 'notebook-sw.js';
// It also keeps the site for offline use: SITE_FILES are the built files, BUILD a hash of their contents (a new
// deployment, a new cache); the dev server's worker keeps nothing (an empty list).
const serviceWorkerSource = (files = [], build = 'dev') =>
  `const WORKER_POLICY = ${JSON.stringify(WORKER_POLICY.join('; '))};\nconst WORKER_SCRIPT = ${WORKER_SCRIPT};\n` +
  `const SITE_FILES = ${JSON.stringify(files)};\nconst BUILD = ${JSON.stringify(build)};\n` +
  readFileSync(here('web/notebook/service-worker.js'), 'utf8');

/**
 * The worker's policy on its script, from the dev server and from vite preview (npm start), and the service
 * worker that adds it elsewhere: built beside the pages, served by the dev server.
 */
function workerPolicy() {
  let pages = [];
  const addPolicy = (server) => {
    server.middlewares.use((req, res, next) => {
      if (isWorkerScript(req.url)) res.setHeader('Content-Security-Policy', WORKER_POLICY.join('; '));
      next();
    });
  };
  return {
    name: 'attention:worker-csp',
    configureServer(server) {
      addPolicy(server);
      server.middlewares.use(`/${SERVICE_WORKER}`, (req, res) => {
        res.setHeader('Content-Type', 'text/javascript');
        res.end(serviceWorkerSource());
      });
    },
    configurePreviewServer: addPolicy,
    buildStart({ input }) {
      pages = Object.values(input).map((file) => file.split('/').pop()); // written after this hook: listed by name
    },
    generateBundle(_, bundle) {
      const unbundled = [...readdirSync(here('web/public')), ...pages];
      const build = createHash('sha256');
      for (const [name, item] of Object.entries(bundle).sort(([a], [b]) => a.localeCompare(b))) {
        // The snapshot's bytes differ at each build (Python's hash seed); what it is made from is in the bundle.
        if (name !== NOTEBOOK_SNAPSHOT) build.update(name).update(item.code ?? item.source);
      }
      for (const name of unbundled) build.update(name).update(readFileSync(here(`web/${pages.includes(name) ? '' : 'public/'}${name}`)));
      const files = [...Object.keys(bundle), ...unbundled].filter((f) => !f.endsWith('.map')).sort();
      this.emitFile({ type: 'asset', fileName: SERVICE_WORKER, source: serviceWorkerSource(files, build.digest('hex').slice(0, 16)) });
    },
  };
}

/** KaTeX's stylesheet with the faces above only, as woff2 only. */
function katexFaces() {
  return {
    name: 'attention:katex-faces',
    enforce: 'pre',
    transform(css, id) {
      if (!/katex(\.min)?\.css$/.test(id.split('?')[0])) return null;
      return css.replace(/@font-face\{[^}]*\}/g, (face) => {
        const file = /url\(fonts\/([^.)]+)\.woff2\)/.exec(face)?.[1];
        if (!KATEX_FACES.includes(file)) return '';
        return face.replace(/src:[^;}]*/, `src:url(fonts/${file}.woff2) format("woff2")`);
      });
    },
  };
}

// Around KaTeX's stylesheet in the single file's build (katexStyleBounds): inertChunks takes what lies between
// them out of the page's stylesheet.
const KATEX_STYLE_START = '.attention-katex-style-start{--attention-katex-style:start}';
const KATEX_STYLE_END = '.attention-katex-style-end{--attention-katex-style:end}';

/**
 * The single file: KaTeX's stylesheet between two marker rules, so that inertChunks can carry it as inert text
 * with KaTeX's script (its ten fonts are 186 KB of the 253 KB the browser would otherwise parse as CSS before
 * the first paint).
 */
function katexStyleBounds() {
  return {
    name: 'attention:katex-style-bounds',
    transform(css, id) {
      if (!/katex(\.min)?\.css$/.test(id.split('?')[0])) return null;
      return `${KATEX_STYLE_START}\n${css}\n${KATEX_STYLE_END}\n`;
    },
  };
}

/**
 * The notebook's Python files inside its worker's script (notebook/session.js, PYTHON_SOURCES): one request
 * instead of one per file, and fresh with the script's hash (so with the service worker's cache too).
 */
function notebookPythonInWorker() {
  const session = here('notebook/session.js');
  return {
    name: 'attention:notebook-python',
    enforce: 'pre',
    transform(code, id) {
      if (id.split('?')[0] !== session) return null;
      const marker = 'const PYTHON_SOURCES = null;';
      if (!code.includes(marker)) this.error(`notebook/session.js no longer holds "${marker}"`);
      const sources = {};
      for (const [path, file] of Object.entries(PYTHON_FILES)) {
        this.addWatchFile(here(`notebook/python/${file}`));
        sources[path] = readFileSync(here(`notebook/python/${file}`), 'utf8');
      }
      return { code: code.replace(marker, () => `const PYTHON_SOURCES = ${JSON.stringify(sources)};`), map: null };
    },
  };
}

/** Pyodide beside the pages as pyodide/ (the notebook's default): served in dev, copied by the build. */
function pyodideFolder() {
  return {
    name: 'attention:pyodide',
    configureServer(server) {
      server.middlewares.use('/pyodide/', (req, res, next) => {
        const file = req.url.split('?')[0].replace(/^\//, '');
        if (!PYODIDE_FILES.includes(file)) return next();
        res.setHeader('Content-Type', file.endsWith('.wasm') ? 'application/wasm' : file.endsWith('js') ? 'text/javascript' : 'application/octet-stream');
        createReadStream(here(`node_modules/pyodide/${file}`)).pipe(res);
      });
    },
    generateBundle() {
      for (const file of PYODIDE_FILES) {
        this.emitFile({ type: 'asset', fileName: `pyodide/${file}`, source: readFileSync(here(`node_modules/pyodide/${file}`)) });
      }
      // Python started under Node as the notebook starts it in a browser (a process of its own: Pyodide holds it)
      const folder = mkdtempSync(`${tmpdir()}/notebook-snapshot-`);
      try {
        execFileSync(process.execPath, [here('scripts/build-notebook-snapshot.mjs'), `${folder}/${NOTEBOOK_SNAPSHOT}`], { stdio: 'inherit' });
        this.emitFile({ type: 'asset', fileName: NOTEBOOK_SNAPSHOT, source: readFileSync(`${folder}/${NOTEBOOK_SNAPSHOT}`) });
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  };
}

/** The site's policy as the first thing in each page's head (build only: the dev server injects styles). */
function sitePolicy() {
  return {
    name: 'attention:csp',
    apply: 'build',
    transformIndexHtml: (html) =>
      html.replace('<meta charset="utf-8" />', `$&\n    <meta http-equiv="Content-Security-Policy" content="${SITE_POLICY.join('; ')}" />`),
  };
}

/**
 * The notebook's first script inlined first after its policy (which allows it by its hash): a first visit registers
 * the site's service worker while the head is parsed (web/notebook/register-early.js), before the page's modules.
 */
function notebookEarlyRegistration() {
  return {
    name: 'attention:notebook-early-registration',
    apply: 'build',
    transformIndexHtml: {
      order: 'post', // after the policy is in the page
      handler(html, { filename }) {
        if (!filename.endsWith('/notebook.html')) return html;
        const policy = /(<meta http-equiv="Content-Security-Policy" content="[^"]*script-src 'self')([^"]*"[^>]*>)/;
        if (!policy.test(html)) throw new Error('notebook-early-registration: notebook.html has no policy with script-src');
        const source = `\n${readFileSync(here('web/notebook/register-early.js'), 'utf8')}`;
        return html.replace(policy, (_, start, end) => `${start} ${sha256(source)}${end}\n    <script>${source}</script>`);
      },
    },
  };
}

/**
 * The walk-through's boot script inlined as the first thing after its policy (which allows it by its hash), its
 * tag naming the core's builds (data-preload-<flavour>: its Emscripten script, then its .wasm): it starts
 * fetching and compiling the one the page will pick as the HTML's first bytes are parsed, beside the page's
 * module and its chunks, instead of a request (boot.js) and a round trip later. The other pages keep boot.js
 * as a file.
 */
function corePreloads() {
  return {
    name: 'attention:core-preloads',
    apply: 'build',
    transformIndexHtml: {
      order: 'post', // the bundle's file names are known, the policy is in the page
      handler(html, { filename, bundle }) {
        if (!filename.endsWith('/index.html') || !bundle) return html;
        const flavours = {};
        for (const item of Object.values(bundle)) {
          // a bundled Emscripten script is a chunk; one imported by its address (threads) and a .wasm are assets
          for (const source of item.type === 'chunk' ? [item.facadeModuleId ?? ''] : (item.originalFileNames ?? [])) {
            const [, flavour, kind] = /wasm\/dist\/attention-([\w-]+)\.(mjs|wasm)$/.exec(source) ?? [];
            if (flavour) (flavours[flavour] ??= {})[kind] = `./${item.fileName}`;
          }
        }
        // the builds the page's loadAttention() picks from (threads only when a count is asked for)
        const complete = ['simd', 'scalar'].map((name) => [name, flavours[name]]);
        if (!complete.every(([, f]) => f?.mjs && f?.wasm)) {
          throw new Error(`core-preloads: the simd and scalar builds' files are not both in the bundle (${JSON.stringify(flavours)})`);
        }
        const tag = /\s*<script\s+src="\.\/boot\.js"([^>]*)><\/script>/;
        const boot = tag.exec(html);
        if (!boot) throw new Error('core-preloads: index.html has no boot.js tag');
        const policy = /(<meta http-equiv="Content-Security-Policy" content="[^"]*script-src 'self')([^"]*"[^>]*>)/;
        if (!policy.test(html)) throw new Error('core-preloads: index.html has no policy with script-src');
        const preloads = complete.map(([name, f]) => ` data-preload-${name}="${f.mjs} ${f.wasm}"`).join('');
        const attributes = boot[1].replace(/\s+/g, ' ').trimEnd();
        const source = `\n${readFileSync(here('web/public/boot.js'), 'utf8')}`;
        return html
          .replace(tag, '')
          .replace(policy, (_, start, end) => `${start} ${sha256(source)}${end}\n    <script${preloads}${attributes}>${source}</script>`);
      },
    },
  };
}

/**
 * The single file: boot.js and the icon inlined, the edition marked (the bench and notebook links hide), and
 * the SIMD .wasm gzipped on the boot script's tag (data-core-gzip, base64), which compiles it while the page's
 * module is parsed (wasm/flavours-simd-only.js takes it from there).
 */
function singleFileEdition() {
  const boot = readFileSync(here('web/public/boot.js'), 'utf8');
  const core = () => gzipSync(readFileSync(here('wasm/dist/attention-simd.wasm')), { level: 9 }).toString('base64');
  const icon = `data:image/svg+xml;base64,${readFileSync(here('web/public/favicon.svg')).toString('base64')}`;
  return {
    name: 'attention:single-file-edition',
    enforce: 'pre',
    resolveId(source, importer) {
      // the SIMD build only (wasm/flavours-simd-only.js says what to do without SIMD)
      if (source === './flavours.js' && importer?.endsWith('/wasm/index.js')) return here('wasm/flavours-simd-only.js');
      return null;
    },
    transformIndexHtml: {
      order: 'pre', // before Vite reads the page's script tags
      handler: (html) =>
      html
        .replace('<html lang="en">', '<html lang="en" data-edition="single-file">')
        .replace('href="/favicon.svg"', `href="${icon}"`)
        .replace(/<script\s+src="\.\/boot\.js"\s+vite-ignore([^>]*)><\/script>/, (_, attributes) => `<script data-core-gzip="${core()}"${attributes}>\n${boot}</script>`),
    },
  };
}

/**
 * The single file's scripts: the page's module inline, compiled as the file is parsed, and the build's other
 * chunks (KaTeX and the diagnose search, which the first step does not use) as inert text, <script type="text/plain" data-chunk>, at the
 * end of the body before the module: the browser does not compile them while it reads the file. web/boot-chunks.js,
 * inlined before them, makes a module of one from a blob: URL when the page imports it, after its first paint. The code
 * splitting is the build's own (output.codeSplitting below); only the specifiers are rewritten: a dynamic import
 * becomes import(bootChunk('name.js')), a static one between later chunks "chunk:name.js". The page's module
 * stays inline (compiled as it is parsed; from a blob: URL, compiled off the main thread, the first numbers came
 * later on this 2-core machine): a chunk imports from it through a stand-in (pageExports).
 */
function inertChunks() {
  const loader = readFileSync(here('web/boot-chunks.js'), 'utf8');
  return {
    name: 'attention:inert-chunks',
    enforce: 'post',
    generateBundle: {
      order: 'post', // after vite-plugin-singlefile has inlined the stylesheet and named the page
      handler(_options, bundle) {
        const page = bundle['attention-lab.html'];
        const chunks = Object.values(bundle).filter((item) => item.type === 'chunk');
        const entry = chunks.find((chunk) => chunk.isEntry);
        if (!page || !entry) throw new Error('inert-chunks: no attention-lab.html or no entry chunk in the bundle');
        const later = chunks.filter((chunk) => chunk !== entry);
        // an inline module has no address: it cannot import a chunk statically, and a chunk that imports from it
        // imports its stand-in (pageExports)
        if (entry.imports.length) throw new Error(`inert-chunks: the page's module imports ${entry.imports.join(', ')} statically`);
        const { entryCode, standIn } = pageExports(entry, later.some((chunk) => chunk.imports.includes(entry.fileName)));
        const known = (name) => {
          if (!later.some((chunk) => chunk.fileName === name) && !(standIn && name === entry.fileName)) {
            throw new Error(`inert-chunks: an import of ${name}, which is not a later chunk of the build`);
          }
          return name;
        };
        const rewrite = (chunk, source = chunk.code) => {
          const code = source
            .replace(/\bimport\((["'`])\.\/([\w.-]+\.js)\1\)/g, (_, _q, name) => `import(bootChunk(${JSON.stringify(known(name))}))`)
            .replace(/(\bfrom\s*|\bimport\s*)(["'`])\.\/([\w.-]+\.js)\2/g, (_, keyword, _q, name) => `${keyword}"chunk:${known(name)}"`)
            .replace(/<(\/script|!--)/gi, '\\x3C$1'); // in the code's strings and regular expressions alike
          for (const other of chunks) {
            if (code.includes(`./${other.fileName}`)) throw new Error(`inert-chunks: ${chunk.fileName} names ${other.fileName} in a way not rewritten`);
          }
          return code;
        };
        const tag = new RegExp(`<script type="module" crossorigin src="\\./${entry.fileName.replaceAll('.', '\\.')}"></script>`);
        const { html, katexStyle } = withoutKatexStyle(String(page.source));
        if (!tag.test(html)) throw new Error(`inert-chunks: attention-lab.html has no script tag for ${entry.fileName}`);
        // KaTeX's stylesheet goes with the chunk that imports it, made a <style> when that chunk is imported
        const katexChunk = later.find((chunk) => chunk.moduleIds.some((id) => /[\\/]katex(\.min)?\.css$/.test(id.split('?')[0])));
        if (!katexChunk) throw new Error("inert-chunks: no later chunk imports KaTeX's stylesheet");
        if (/<\/script|<!--/i.test(katexStyle)) throw new Error("inert-chunks: KaTeX's stylesheet cannot be carried in a script element");
        const inert = [
          `<script type="text/plain" data-style-of="${katexChunk.fileName}">${katexStyle}</script>`,
          ...later.map((chunk) => `<script type="text/plain" data-chunk="${chunk.fileName}">${rewrite(chunk)}</script>`),
          ...(standIn ? [`<script type="text/plain" data-chunk="${entry.fileName}">${standIn}</script>`] : []),
        ];
        // The module last in the body, after the inert text: compiled after the boot script has begun inflating the
        // core, and run as the parsing ends. Nothing is rendered until then (rel=expect on the file's last element),
        // so the module draws the first step before the first frame, in the task that ends the parsing, where a
        // frame of "Loading…" (its style, layout and font lookups) used to come first and hold the module back. In
        // a browser without rel=expect, or if the core is not compiled by then, "Loading…" is painted first.
        page.source = html
          .replace(tag, '')
          .replace('</head>', () => `  <link rel="expect" href="#${FILE_END}" blocking="render" />\n  </head>`)
          .replace('</body>', () => `  <script>\n${loader}</script>\n    ${inert.join('\n    ')}\n    <script type="module">${rewrite(entry, entryCode)}</script>\n    <template id="${FILE_END}"></template>\n  </body>`);
        for (const chunk of chunks) delete bundle[chunk.fileName];
      },
    },
  };
}

/**
 * What a later chunk imports from the page's inline module (the diagnose search: the core's API and the chapter,
 * shared with the page), where an inline module has no address to import from: the module's export statement
 * becomes window.bootPageExports (getters, so each name is read when the chunk is made), and `standIn` is a module
 * re-exporting those names, carried as an inert chunk named as the page's module, so that web/boot-chunks.js makes a
 * blob: module of it as of any other chunk. Later chunks are imported after the page's module has run, so what they
 * read is set by then (functions, classes and constants: a name reassigned later would keep the value read then).
 */
function pageExports(entry, imported) {
  if (!imported) return { entryCode: entry.code, standIn: null };
  const statement = /\bexport\s*\{([^{}]*)\};?\s*$/.exec(entry.code);
  if (!statement) throw new Error("inert-chunks: the page's module does not end with an export statement");
  const pairs = statement[1].split(',').map((item) => item.trim()).filter(Boolean).map((item) => {
    const [local, exported = local] = item.split(/\s+as\s+/);
    if (![local, exported].every((name) => /^[A-Za-z_$][\w$]*$/.test(name))) throw new Error(`inert-chunks: an export the stand-in cannot name (${item})`);
    return [local, exported];
  });
  const getters = pairs.map(([local, exported]) => `get ${exported}(){return ${local}}`).join(',');
  const entryCode = `${entry.code.slice(0, statement.index)}window.bootPageExports={${getters}};\n`;
  const standIn = `const page=window.bootPageExports;\n${pairs.map(([, exported], i) => `const v${i}=page.${exported};`).join('')}\n` +
    `export{${pairs.map(([, exported], i) => `v${i} as ${exported}`).join(',')}};\n`;
  return { entryCode, standIn };
}

// The single file's modules left out of the page's module, imported after its first paint: KaTeX, and the diagnose
// search but for its parser of printouts (which the page's box imports statically).
const LATER = /[\\/]node_modules[\\/]katex[\\/]|[\\/]web[\\/]render[\\/]katex\.js$|[\\/]diagnose[\\/](?!parse\.js$)[^\\/]+$/;

// The single file's last element, which its first frame waits for (inertChunks).
const FILE_END = 'end-of-file';

/**
 * The single file's page with KaTeX's stylesheet (between the marker rules katexStyleBounds adds) taken out of
 * its inline stylesheet: both returned, the markers dropped. KaTeX's is the last part of that stylesheet (the
 * chunk it comes with is imported last), so a <style> added after it later keeps the order of the rules.
 */
function withoutKatexStyle(html) {
  const style = /(<style\b[^>]*>)([\s\S]*?)(<\/style>)/.exec(html);
  const css = style?.[2] ?? '';
  const start = css.indexOf(KATEX_STYLE_START);
  const end = css.indexOf(KATEX_STYLE_END);
  if (start < 0 || end < start || css.indexOf(KATEX_STYLE_START, start + 1) >= 0 || css.indexOf(KATEX_STYLE_END, end + 1) >= 0) {
    throw new Error("inert-chunks: KaTeX's stylesheet is not marked once in the page's stylesheet");
  }
  const after = css.slice(end + KATEX_STYLE_END.length);
  if (after.replace(/\/\*[^*]*\*\//g, '').trim()) throw new Error(`inert-chunks: rules after KaTeX's stylesheet (${after.slice(0, 80)}), whose order would change`);
  const page = css.slice(0, start) + after;
  const katexStyle = css.slice(start + KATEX_STYLE_START.length, end).trim();
  return { html: html.slice(0, style.index) + style[1] + page + style[3] + html.slice(style.index + style[0].length), katexStyle };
}

/** The single file in ASCII alone, so that Chromium reads it in 8-bit characters (scripts/ascii-html.mjs). */
function asciiOnly() {
  return {
    name: 'attention:ascii-only',
    enforce: 'post',
    generateBundle: {
      order: 'post', // after inertChunks, before hashedPolicy hashes the scripts and styles as they end up
      handler(_options, bundle) {
        for (const file of Object.values(bundle)) {
          if (file.fileName.endsWith('.html')) file.source = asciiHtml(String(file.source), file.fileName);
        }
      },
    },
  };
}

/** After inlining: a policy that allows exactly the inline scripts and styles, by their SHA-256. */
function hashedPolicy() {
  return {
    name: 'attention:hashed-csp',
    enforce: 'post',
    generateBundle: {
      order: 'post',
      handler(_options, bundle) {
        for (const file of Object.values(bundle)) {
          if (!file.fileName.endsWith('.html')) continue;
          const html = String(file.source);
          // a script of type text/plain is data (inertChunks), never run
          const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].filter((m) => !/type="text\/plain"/.test(m[1])).map((m) => sha256(m[2]));
          // blob: for the chunks web/boot-chunks.js makes modules of (only the file's own code can make a blob: URL)
          const chunks = /<script type="text\/plain" data-chunk=/.test(html) ? ' blob:' : '';
          // and the stylesheets carried as text for a later chunk (inertChunks), made <style> elements as they are
          const styles = [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>|<script type="text\/plain" data-style-of="[^"]*">([\s\S]*?)<\/script>/g)].map((m) => sha256(m[1] ?? m[2]));
          const policy = [
            "default-src 'none'",
            `script-src ${scripts.join(' ')}${chunks} 'wasm-unsafe-eval'`,
            `style-src ${styles.join(' ')}`,
            'img-src data:',
            'font-src data:',
            'connect-src data:',
            "base-uri 'none'",
            "form-action 'none'",
          ];
          file.source = html.replace('<meta charset="utf-8" />', `$&\n    <meta http-equiv="Content-Security-Policy" content="${policy.join('; ')}" />`);
        }
      },
    },
  };
}

// Cross-origin isolated, so that the notebook's Stop interrupts Python in place (elsewhere it restarts it).
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const port = Number(process.env.PORT ?? 8080);

// Readable names in dist/site/assets: the notebook's Python files keep their folders (two are __init__.py),
// the notebook worker's chunks go to assets/worker/, the pages' shared chunk and stylesheet are "common".
const pythonFolder = here('notebook/python/');
function assetName(asset) {
  const source = asset.originalFileNames?.[0] ? here(`web/${asset.originalFileNames[0]}`) : ''; // relative to root
  if (source.startsWith(pythonFolder)) {
    const folder = source.slice(pythonFolder.length).replace(/[^/]*$/, '');
    return `assets/python/${folder}[name]-[hash][extname]`;
  }
  if (asset.names?.[0] === 'preload-helper.css') return 'assets/common-[hash][extname]';
  return 'assets/[name]-[hash][extname]';
}
const chunkName = (chunk) => (chunk.name === 'preload-helper' ? 'assets/common-[hash].js' : 'assets/[name]-[hash].js');
const workerNames = {
  entryFileNames: 'assets/worker/[name]-[hash].js',
  chunkFileNames: 'assets/worker/[name]-[hash].js',
  assetFileNames: assetName,
};

const shared = {
  root: here('web'),
  base: './',
  worker: { format: 'es', plugins: () => [notebookPythonInWorker()], rollupOptions: { output: workerNames } },
  server: { port, headers: ISOLATED },
  preview: { port, strictPort: true, headers: ISOLATED },
  build: {
    target: 'es2022',
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
};

export default defineConfig(({ mode }) =>
  mode === 'single'
    ? {
        ...shared,
        publicDir: false,
        // the plugin inlines the stylesheet only; the chunks are carried by inertChunks()
        plugins: [katexFaces(), katexStyleBounds(), singleFileEdition(), viteSingleFile({ useRecommendedBuildConfig: false, inlinePattern: ['*.css'], outputFileName: 'attention-lab.html' }), inertChunks(), asciiOnly(), hashedPolicy()],
        build: {
          ...shared.build,
          outDir: here('dist'),
          emptyOutDir: false,
          assetsDir: '',
          assetsInlineLimit: () => true, // fonts and the icon as data: URLs
          cssCodeSplit: false, // one stylesheet, inlined
          chunkSizeWarningLimit: 10_000,
          modulePreload: false, // nothing to preload: every chunk is in the file
          rollupOptions: {
            input: here('web/index.html'),
            // KaTeX and the diagnose search (its parser of printouts aside, which the page's box uses), which the
            // first step does not use, chunks of their own; everything else the page's module (what the search
            // shares with it, the core's API and the chapter, it imports through pageExports)
            // (written in ASCII: asciiOnly)
            output: { codeSplitting: { groups: [{ name: 'page', test: (id) => !LATER.test(id) }] }, charset: 'ascii' },
          },
        },
      }
    : {
        ...shared,
        plugins: [katexFaces(), pyodideFolder(), sitePolicy(), workerPolicy(), corePreloads(), notebookEarlyRegistration()],
        build: {
          ...shared.build,
          outDir: here('dist/site'),
          emptyOutDir: true,
          assetsInlineLimit: 0, // every asset a file of the site's own origin (the policy allows no data: URLs)
          rollupOptions: {
            input: { index: here('web/index.html'), bench: here('web/bench.html'), notebook: here('web/notebook.html') },
            output: { chunkFileNames: chunkName, assetFileNames: assetName },
          },
        },
      },
);
