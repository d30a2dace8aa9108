// The page's search, off the main thread: { id, printed, settings, step } in, { id, answers } or { id, error } out.
// The page may start a second worker and join the two with a MessageChannel: the searching one ({ scanWith: port })
// then shares the range of seeds with it ({ scanFor: port }), which scans chunks of it from the top while the
// searching one scans from the bottom (search.js: rangeScan, scanChunksFor); until the second one says it is
// ready, or where there is none, the searching worker scans alone.
import { diagnose } from './index.js';
import { shareScans, scanChunksFor } from './search.js';

self.onmessage = async ({ data }) => {
  if (data.scanWith) return scanWith(data.scanWith);
  if (data.scanFor) return scanFor(data.scanFor);
  const { id, printed, settings, step } = data;
  try {
    self.postMessage({ id, answers: await diagnose({ printed, settings, step }) });
  } catch (error) {
    self.postMessage({ id, error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) } });
  }
};

// the searching worker's side: the port is shared once the second worker is ready
function scanWith(port) {
  port.onmessage = ({ data }) => {
    if (data.ready) shareScans(port);
  };
}

// the second worker's side
function scanFor(port) {
  scanChunksFor(port);
  port.postMessage({ ready: true });
}
