// Plain JavaScript loops: the same MultiHeadAttention forward (causal half only) and GEMM, for scale.
// Weights come from the project's module so that the outputs can be compared.

/** y[t][o] = Σ_k x[t][k]·W[o][k] (+ b[o]): W [out, in] row-major, as nn.Linear stores it. */
function linear(x, rows, dIn, W, b, dOut) {
  const y = new Float32Array(rows * dOut);
  for (let t = 0; t < rows; t++) {
    const xo = t * dIn;
    for (let o = 0; o < dOut; o++) {
      const wo = o * dIn;
      let s = 0;
      for (let k = 0; k < dIn; k++) s += x[xo + k] * W[wo + k];
      y[t * dOut + o] = b ? s + b[o] : s;
    }
  }
  return y;
}

/** MultiHeadAttention forward on x [batch, T, dIn] (Float32Array), eval mode, causal. */
export function plainMha({ Wq, Wk, Wv, Wo, bo, dIn, dOut, heads }, x, batch, T) {
  const rows = batch * T, hd = dOut / heads, scale = Math.sqrt(hd);
  const q = linear(x, rows, dIn, Wq, null, dOut);
  const k = linear(x, rows, dIn, Wk, null, dOut);
  const v = linear(x, rows, dIn, Wv, null, dOut);
  const ctx = new Float32Array(rows * dOut);
  const p = new Float32Array(T);
  for (let b = 0; b < batch; b++) {
    for (let h = 0; h < heads; h++) {
      const off = h * hd;
      for (let i = 0; i < T; i++) {
        const qi = (b * T + i) * dOut + off;
        let m = -Infinity;
        for (let j = 0; j <= i; j++) {
          const kj = (b * T + j) * dOut + off;
          let s = 0;
          for (let c = 0; c < hd; c++) s += q[qi + c] * k[kj + c];
          p[j] = s / scale;
          if (p[j] > m) m = p[j];
        }
        let l = 0;
        for (let j = 0; j <= i; j++) l += p[j] = Math.exp(p[j] - m);
        for (let c = 0; c < hd; c++) {
          let s = 0;
          for (let j = 0; j <= i; j++) s += p[j] * v[(b * T + j) * dOut + off + c];
          ctx[qi + c] = s / l;
        }
      }
    }
  }
  return linear(ctx, rows, dOut, Wo, bo, dOut);
}

/** C [M, N] = A [M, K] · B [K, N], row-major, i-k-j order. */
export function plainGemm(A, B, M, N, K) {
  const C = new Float32Array(M * N);
  for (let i = 0; i < M; i++) {
    for (let k = 0; k < K; k++) {
      const a = A[i * K + k], bo = k * N, co = i * N;
      for (let j = 0; j < N; j++) C[co + j] += a * B[bo + j];
    }
  }
  return C;
}
