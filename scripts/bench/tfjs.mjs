// TF.js with @tensorflow/tfjs-backend-wasm (XNNPACK), one thread, SIMD: the same MultiHeadAttention
// forward written the fast way for TF.js (weights stored transposed once, as a Dense layer holds them;
// 2-D matmuls per head; the causal mask added as -inf; no transposeB, which is ~10× slower there).
import { createRequire } from 'node:module';

export async function loadTfjs(packageJsonUrl) {
  const require = createRequire(packageJsonUrl);
  const tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  return {
    tf,
    version: tf.version_core,
    simd: tf.env().getBool('WASM_HAS_SIMD_SUPPORT'),
    threads: wasm.getThreadsCount ? wasm.getThreadsCount() : 1,
  };
}

/** A forward function over the module's weights ([out, in] Float32Arrays, transposed here once). */
export function tfjsMha(tf, { Wq, Wk, Wv, Wo, bo, dIn, dOut, heads }, T) {
  const hd = dOut / heads;
  const transposed = (W, rows, cols) => tf.tidy(() => tf.transpose(tf.tensor2d(W, [rows, cols])));
  const WqT = transposed(Wq, dOut, dIn), WkT = transposed(Wk, dOut, dIn), WvT = transposed(Wv, dOut, dIn);
  const WoT = transposed(Wo, dOut, dOut), b = tf.tensor1d(bo);
  const maskValues = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) maskValues[i * T + j] = -Infinity;
  const mask = tf.tensor2d(maskValues, [T, T]);
  const scale = tf.scalar(1 / Math.sqrt(hd));
  return (x2d) =>
    tf.tidy(() => {
      const q = tf.matMul(x2d, WqT), k = tf.matMul(x2d, WkT), v = tf.matMul(x2d, WvT);
      const parts = [];
      for (let h = 0; h < heads; h++) {
        const qh = tf.slice(q, [0, h * hd], [T, hd]);
        const khT = tf.transpose(tf.slice(k, [0, h * hd], [T, hd]));
        const vh = tf.slice(v, [0, h * hd], [T, hd]);
        const p = tf.softmax(tf.add(tf.mul(tf.matMul(qh, khT), scale), mask));
        parts.push(tf.matMul(p, vh));
      }
      return tf.add(tf.matMul(tf.concat(parts, 1), WoT), b);
    });
}
