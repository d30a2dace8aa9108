// The page's search, off the main thread: { id, printed, settings, step } in, { id, answers } or { id, error } out.
import { diagnose } from './index.js';

self.onmessage = async ({ data: { id, printed, settings, step } }) => {
  try {
    self.postMessage({ id, answers: await diagnose({ printed, settings, step }) });
  } catch (error) {
    self.postMessage({ id, error: { name: error?.name ?? 'Error', message: error?.message ?? String(error) } });
  }
};
