// The built site's files with their sizes, raw and gzipped (level 9, as a static host that gzips sends
// them), as a Markdown table for the README: node scripts/site-sizes.mjs (after npm run build:site).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

function* files(dir, prefix = '') {
  for (const name of readdirSync(dir).sort()) {
    const path = `${dir}${name}`;
    if (statSync(path).isDirectory()) yield* files(`${path}/`, `${prefix}${name}/`);
    else yield [`${prefix}${name}`, readFileSync(path)];
  }
}

const rows = [];
const all = [...[...files(`${dist}site/`)].map(([n, b]) => [`site/${n}`, b]), ['attention-lab.html', readFileSync(`${dist}attention-lab.html`)]];
for (const [name, bytes] of all) {
  // content hashes change with every edit; the table names files without them
  rows.push([name.replace(/-[\w-]{8}(\.\w+)$/, '$1'), bytes.length, gzipSync(bytes, { level: 9 }).length]);
}
console.log('| file (in dist/) | raw | gzipped |');
console.log('|---|---:|---:|');
for (const [name, raw, gz] of rows) console.log(`| \`${name}\` | ${kb(raw)} | ${kb(gz)} |`);
