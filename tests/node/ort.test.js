// The benchmark's onnxruntime-web peer (scripts/bench/ort.mjs) at a small size: torch's ONNX export of the
// chapter's MultiHeadAttention, seeded like the project's module, gives the project's forward under
// onnxruntime-web, and the peer's child process answers with its threads, its difference and its times.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadAttention } from '../../wasm/index.js';
import { exportOrtModel, loadOrt, maxAbsDifference, ortForward, ortPeer, ortSession } from '../../scripts/bench/ort.mjs';

const T = 16, D = 24, HEADS = 4, SEED = 123;

const torch = await loadAttention({ flavour: 'simd' });
function projectForward(seed) {
  torch.manualSeed(seed);
  const mha = new torch.MultiHeadAttention(D, D, T, 0.0, HEADS).eval();
  torch.manualSeed(7);
  const x = torch.rand(1, T, D);
  return { x: x.data, y: mha.forward(x).data };
}
const ours = projectForward(SEED);
// One export for the tests (torch's start-up is most of their time). Without python3's torch they are
// skipped; any other failure of the export fails them.
let exported = null, skip = false;
try {
  exported = await exportOrtModel({ seed: SEED, tokens: T, d: D, heads: HEADS, x: ours.x, y: ours.y });
} catch (e) {
  if (!/No module named 'torch'|ENOENT/.test(e.message)) throw e;
  skip = `python3's torch is missing (scripts/setup.sh installs python3-torch): ${e.message}`;
}
after(() => exported?.remove());

test('the exported module gives the project\'s forward under onnxruntime-web, and other weights do not', { skip }, async (t) => {
  // the chapter's graph: four projections and the two attention products, one softmax, the causal mask
  assert.equal(exported.model.ops.MatMul, 6);
  assert.equal(exported.model.ops.Softmax, 1);
  assert.equal(exported.model.ops.Where, 1);
  const loaded = await loadOrt(1);
  const session = await ortSession(loaded, exported.modelBytes());
  const got = await ortForward(loaded.ort, session, ours.x, [1, T, D]);
  const err = maxAbsDifference(got, ours.y);
  t.diagnostic(`max |onnxruntime-web - project| = ${err}`);
  assert.ok(err < 1e-5, `max |onnxruntime-web - project| = ${err}`);
  // the same comparison notices a module with other weights
  assert.ok(maxAbsDifference(got, projectForward(SEED + 1).y) > 1e-2);
  await session.release();
});

test('the peer process reports its threads and its difference, and times forwards', { skip }, async (t) => {
  const peer = await ortPeer(exported, 2);
  t.after(peer.close);
  assert.ok(peer.ready.maxAbsDiff < 1e-5, `max |onnxruntime-web - project| = ${peer.ready.maxAbsDiff}`);
  // two threads, or one with the reason it could not start them, said in its line of the table
  assert.ok(peer.threads === 2 || (peer.threads === 1 && /could not start threads/.test(peer.info)), peer.info);
  const ms = await peer.run.mha1();
  assert.ok(ms > 0 && Number.isFinite(ms));
  assert.match(peer.info, /onnxruntime-web 1\.\d+\.\d+, wasm EP.*max \|y - ours\| = /);
});

test('exportOrtModel names what is wrong with its sizes', async () => {
  const x = new Float32Array(T * D), y = new Float32Array(T * D);
  await assert.rejects(exportOrtModel({ seed: SEED, tokens: T, d: D, heads: 5, x, y }),
    { message: 'exportOrtModel: heads must divide d, got d 24 and heads 5' });
  await assert.rejects(exportOrtModel({ seed: SEED, tokens: 0, d: D, heads: HEADS, x, y }),
    { message: 'exportOrtModel: tokens must be a whole number >= 1, got 0' });
  await assert.rejects(exportOrtModel({ seed: SEED, tokens: T, d: D, heads: HEADS, x, y: y.subarray(1) }),
    { message: 'exportOrtModel: x and y must both be [batch, 16, 24], got 384 and 383 values' });
});
