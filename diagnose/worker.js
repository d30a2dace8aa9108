// The page's search, off the main thread: { id, printed, settings, step } in, { id, answers } or { id, error } out.
// The page may start a second worker and join the two with a MessageChannel: the searching one ({ scanWith: port })
// then shares the range of seeds with it ({ scanFor: port }), which scans chunks of it from the top while the
// searching one scans from the bottom (search.js: rangeScan, scanChunksFor); until the second one says it is
// ready, or where there is none, the searching worker scans alone.
// { warm: { settings } } (sent when the learner opens the box) loads the core and runs a short search whose answer
// is dropped (index.js: warmUp), once per worker, so that the first paste finds the code compiled; a search that
// comes meanwhile ends it at its next stage and then runs.
import { diagnose, warmUp } from './index.js';
import { shareScans, scanChunksFor } from './search.js';

let warming = null; // the warm-up under way
let warmed = false;
let asked = 0; // searches received and not answered yet

self.onmessage = async ({ data }) => {
  if (data.scanWith) return scanWith(data.scanWith);
  if (data.scanFor) return scanFor(data.scanFor);
  if (data.warm) return warm(data.warm.settings);
  const { id, printed, settings, step } = data;
  asked++;
  try {
    await warming;
    self.postMessage({ id, answers: await diagnose({ printed, settings, step }) });
  } catch (error) {
    self.postMessage({ id, error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) } });
  } finally {
    asked--;
  }
};

function warm(settings) {
  if (warmed) return;
  warmed = true;
  warming = warmUp({ settings, stillWanted: () => asked === 0 })
    .catch(() => {}) // (a core that cannot load is reported by the search that needs it)
    .finally(() => {
      warming = null;
      self.postMessage({ warmed: true });
    });
}

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
