// Serves the teaching page and everything it loads, from this checkout only (no network):
//   /            web/index.html
//   /bench       web/bench.html (GPT-2-size attention timed live, one head's map)
//   /web/...     the page's scripts and styles
//   /wasm/...    the JavaScript API and the built WebAssembly (wasm/dist)
//   /notebook      web/notebook.html (Python cells run by Pyodide, with the notebook's torch)
//   /notebook/...  the notebook module (notebook/: loader, worker, Python files)
//   /vendor/katex/...    KaTeX from node_modules
//   /vendor/pyodide/...  Pyodide (CPython in WebAssembly) from node_modules
//   /vendor/npm/<pkg>/...  the editor's packages (CodeMirror 6 and what it imports), from node_modules
// Every response is cross-origin isolated (COOP/COEP), so the notebook's Stop can interrupt Python in place.
// PORT sets the port (default 8080). Prints the URL on a line of its own.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

// CodeMirror 6 with its Python mode, and the packages they import (web/notebook.html's import map).
export const EDITOR_PACKAGES = [
  'codemirror', '@codemirror/state', '@codemirror/view', '@codemirror/language', '@codemirror/commands',
  '@codemirror/search', '@codemirror/autocomplete', '@codemirror/lint', '@codemirror/lang-python', '@codemirror/streamparser',
  '@lezer/common',
  '@lezer/highlight', '@lezer/lr', '@lezer/python', 'style-mod', 'w3c-keyname', 'crelt', '@marijn/find-cluster-break',
];

const routes = [
  ['/web/', join(root, 'web')],
  ['/wasm/', join(root, 'wasm')],
  ['/notebook/', join(root, 'notebook')],
  ['/vendor/katex/', join(root, 'node_modules', 'katex', 'dist')],
  ['/vendor/pyodide/', join(root, 'node_modules', 'pyodide')],
  ...EDITOR_PACKAGES.map((pkg) => [`/vendor/npm/${pkg}/`, join(root, 'node_modules', pkg)]),
];

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.py': 'text/plain; charset=utf-8',
  '.zip': 'application/zip',
};

// The file a URL path names, or null when it falls outside the served folders.
function resolve(pathname) {
  if (pathname === '/' || pathname === '/index.html') return join(root, 'web', 'index.html');
  if (pathname === '/bench' || pathname === '/bench.html') return join(root, 'web', 'bench.html');
  if (pathname === '/notebook' || pathname === '/notebook.html') return join(root, 'web', 'notebook.html');
  for (const [prefix, dir] of routes) {
    if (!pathname.startsWith(prefix)) continue;
    const file = normalize(join(dir, decodeURIComponent(pathname.slice(prefix.length))));
    return file.startsWith(dir + sep) ? file : null;
  }
  return null;
}

export function startServer(port = Number(process.env.PORT ?? 8080)) {
  const server = createServer(async (req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    const file = resolve(pathname);
    try {
      if (!file || !(await stat(file)).isFile()) throw new Error('not found');
      const body = await readFile(file);
      res.writeHead(200, {
        'Content-Type': types[extname(file)] ?? 'application/octet-stream',
        'Cache-Control': 'no-cache',
        'Cross-Origin-Opener-Policy': 'same-origin',
        'Cross-Origin-Embedder-Policy': 'require-corp',
      });
      res.end(body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`not found: ${pathname}\n`);
    }
  });
  return new Promise((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolveListen(server));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const server = await startServer();
  console.log('Serving the page at:');
  console.log(`http://localhost:${server.address().port}/`);
}
