// A plain static host, as a teacher would publish to (GitHub Pages and the like), for the tests and the
// load benchmark: serves a folder under a sub-path, gzips what compresses, a folder's URL gives its
// index.html, and nothing else is rewritten (no /bench -> bench.html). `headers` are added to every response
// (e.g. COOP/COEP, to try the notebook cross-origin isolated).
//
//   node scripts/static-host.mjs [folder] [sub-path]     (default dist/site at /course/attention/; PORT)
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
  '.py': 'text/plain; charset=utf-8',
  '.zip': 'application/zip',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.json', '.wasm', '.svg', '.py']);

/**
 * Starts the host; resolves to the node:http server once listening. base = `http://localhost:${port}${prefix}`.
 * @param {{ folder: string, prefix?: string, port?: number, headers?: Record<string, string> }} options
 */
export function startStaticHost({ folder, prefix = '/course/attention/', port = 0, headers = {} }) {
  const root = resolve(folder);
  const gzipped = new Map(); // file -> gzip bytes (files do not change while the host runs)
  const server = createServer(async (req, res) => {
    const { pathname } = new URL(req.url, 'http://localhost');
    let file = null;
    if (pathname.startsWith(prefix)) {
      const relative = decodeURIComponent(pathname.slice(prefix.length)) || 'index.html';
      const candidate = normalize(join(root, relative.endsWith('/') ? `${relative}index.html` : relative));
      if (candidate.startsWith(root + sep)) file = candidate;
    }
    try {
      if (!file || !(await stat(file)).isFile()) throw new Error('not found');
      let body = await readFile(file);
      const type = TYPES[extname(file)] ?? 'application/octet-stream';
      const head = { 'Content-Type': type, 'Cache-Control': 'no-cache', ...headers };
      if (COMPRESSIBLE.has(extname(file)) && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) {
        if (!gzipped.has(file)) gzipped.set(file, gzipSync(body, { level: 9 }));
        body = gzipped.get(file);
        head['Content-Encoding'] = 'gzip';
        head.Vary = 'Accept-Encoding';
      }
      head['Content-Length'] = body.length;
      res.writeHead(200, head);
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(`not found: ${pathname}\n`);
    }
  });
  return new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', () => done(server));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const folder = process.argv[2] ?? fileURLToPath(new URL('../dist/site', import.meta.url));
  const prefix = process.argv[3] ?? '/course/attention/';
  const server = await startStaticHost({ folder, prefix, port: Number(process.env.PORT ?? 8080) });
  console.log(`http://localhost:${server.address().port}${prefix}`);
}
