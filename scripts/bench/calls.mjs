// The cost of one small call through the JS API: the time a learner's page spends crossing into WebAssembly
// and back, not computing. Each case runs on the book's [6, 3] inputs; the figure is the median over batches
// of the mean time per call in a batch, in microseconds.
import { BOOK } from '../../web/state.js';

export const CALL_CASES = {
  add: 'x.add(x)',
  matmul: 'x.matmul(x.T)',
  softmax: 'softmax(x, -1)',
  at: 'x.at(2)',
  view: 'x.view(3, 6)',
  forward: 'SelfAttention_v2.forward',
};

/** Per-call microseconds of each case for one loaded API object: { case: { median, min, max } }. */
export function callTimes(torch, { batches = 31, calls = 2000 } = {}) {
  const x = torch.tensor(BOOK.embeddings);
  const xT = x.T;
  torch.manualSeed(123);
  const sa = new torch.SelfAttention_v2(3, 2);
  const bodies = {
    add: () => x.add(x),
    matmul: () => x.matmul(xT),
    softmax: () => torch.softmax(x, -1),
    at: () => x.at(2),
    view: () => x.view(3, 6),
    forward: () => sa.forward(x),
  };
  const out = {};
  for (const [name, body] of Object.entries(bodies)) {
    for (let i = 0; i < calls; i++) body(); // V8's optimising tier
    const means = [];
    for (let b = 0; b < batches; b++) {
      const t0 = performance.now();
      for (let i = 0; i < calls; i++) body();
      means.push(((performance.now() - t0) * 1000) / calls);
    }
    means.sort((p, q) => p - q);
    out[name] = { median: means[Math.floor(means.length / 2)], min: means[0], max: means[means.length - 1] };
  }
  return out;
}
