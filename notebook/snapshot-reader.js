// A worker that reads the build's snapshot of Python beside Python's own worker (index.js starts both): it fetches
// and inflates the snapshot and hands the bytes on through the port it is given (snapshot-source.js), so that the
// inflating runs on another core while Python's worker loads Pyodide. It runs no cell.
import { sendSnapshot } from './snapshot-source.js';

self.addEventListener('message', async ({ data, ports: [port] }) => {
  if (!port || typeof data?.url !== 'string') return;
  await sendSnapshot(new URL(data.url), port);
  self.close();
}, { once: true });
