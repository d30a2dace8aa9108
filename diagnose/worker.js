// The page's search, off the main thread: { id, printed, settings, step } in, { id, answers } or { id, error } out.
// The page may start a second worker and join the two with a MessageChannel: the searching one ({ scanWith: port })
// then hands it a share of the range of seeds (search.js's scanRange), which it ({ scanFor: port }) scans and
// returns; until the second one says it is ready, or where there is none, the searching worker scans alone.
import { diagnose } from './index.js';
import { shareScans, scanShare } from './search.js';

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

// the searching worker's side: a share sent, its answer awaited (a failed share is scanned here: scanRange)
function scanWith(port) {
  const waiting = new Map();
  let next = 0;
  port.onmessage = ({ data }) => {
    if (data.ready) {
      shareScans([(job) => new Promise((resolve, reject) => {
        waiting.set(++next, { resolve, reject });
        port.postMessage({ id: next, job });
      })]);
      return;
    }
    const done = waiting.get(data.id);
    waiting.delete(data.id);
    if (data.error) done?.reject(new Error(data.error));
    else done?.resolve(data.share);
  };
}

// the second worker's side
function scanFor(port) {
  port.onmessage = ({ data: { id, job } }) => {
    try {
      port.postMessage({ id, share: scanShare(job) });
    } catch (error) {
      port.postMessage({ id, error: error?.message ?? String(error) });
    }
  };
  port.postMessage({ ready: true });
}
