// The notebook's snapshot of Python for the built site (vite.config.js runs it and ships the result as
// notebook-python-snapshot.gz): Pyodide from node_modules started under Node as a browser's notebook starts it
// (the SIMD core, Python not sandboxed, cells and torch imported, no cell run), its memory taken and packed as
// notebook/session.js packs the browser's own, then gzipped. Its key is the one a browser's start computes from
// the same files, so the browser restores it on the first visit instead of starting CPython; a browser whose
// key differs (the scalar core, another build's files) refuses it and starts Python as before.
//
//   node scripts/build-notebook-snapshot.mjs <out.gz>     (prints the sizes and the key on stderr)
import { writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

import { startSession } from '../notebook/session.js';

const out = process.argv[2];
if (!out) {
  console.error('usage: node scripts/build-notebook-snapshot.mjs <out.gz>');
  process.exit(2);
}

const t0 = performance.now();
const session = await startSession({ flavour: 'simd', hostAccess: true, makeSnapshot: true, snapshotFor: 'browser' });
if (!session.snapshot) throw new Error('Pyodide took no snapshot (see the warning above)');
// level 6: within 2 % of level 9's size here, in a third of the time
const packed = gzipSync(session.snapshot, { level: 6 });
writeFileSync(out, packed);
const header = JSON.parse(new TextDecoder().decode(session.snapshot.subarray(4, 4 + new DataView(session.snapshot.buffer, session.snapshot.byteOffset).getUint32(0, true))));
console.error(`notebook snapshot: ${(session.snapshot.length / 2 ** 20).toFixed(1)} MB, gzipped ${(packed.length / 2 ** 20).toFixed(1)} MB,`
  + ` key ${header.key.slice(0, 12)}…, ${Math.round(performance.now() - t0)} ms`);
// Pyodide keeps Node's event loop alive
process.exit(0);
