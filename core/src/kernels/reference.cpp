// The scalar reference kernels: the plain loops that define every kernel's bits (torch-numerics.md).
// Built with -ffp-contract=off: each * and + below rounds on its own; the only fused steps are the
// explicit std::fma calls inside EXP.
#include "kernels/exp_constants.hpp"
#include "kernels/kernels.hpp"

#include "bits.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace attn::kernels {

namespace {

// 2^e for an exponent e in the normal range [-126, 127], built from its bits.
float pow2i(int32_t e) { return float_from_bits(static_cast<uint32_t>(e + 127) << 23); }

// EXP's steps (§2.1), SLEEF's expf8_u10 one lane at a time, with `mul_add` for each of its seven FMAs:
// std::fma for EXP itself (exp_ref), a separate multiply and add for the fast path (exp_fast_ref).
template <class MulAdd>
float exp_steps(float d, MulAdd mul_add) {
    namespace k = exp_constants;
    if (std::isnan(d)) return d + d;  // the input NaN, quieted
    if (d < k::kUnderflowBelow) return 0.0f;
    if (d > k::kOverflowAbove) return std::numeric_limits<float>::infinity();
    const float R = float_from_bits(k::kInvLn2);
    const float L2U = float_from_bits(k::kLn2Upper), L2L = float_from_bits(k::kLn2Lower);

    // d = q·ln 2 + s, with q an integer (ties to even) and |s| ≤ ln 2 / 2.
    const float q = std::rint(d * R);  // rint, not nearbyint: the same value, without glibc's slow fenv save
    float s = mul_add(q, -L2U, d);
    s = mul_add(q, -L2L, s);

    // e^s ≈ 1 + s + s²·(c0 + c1·s + … + c5·s⁵)
    float u = float_from_bits(k::kPoly[5]);
    for (int c = 4; c >= 0; --c) u = mul_add(u, s, float_from_bits(k::kPoly[c]));
    u = 1.0f + mul_add(s * s, u, s);

    // e^d = e^s · 2^h · 2^(q-h): two rounded multiplies, so subnormal results round as SLEEF's do.
    const int32_t qi = static_cast<int32_t>(q);
    const int32_t h = qi >> 1;
    return (u * pow2i(h)) * pow2i(qi - h);
}

float apply(Binary op, float a, float b) {
    switch (op) {
        case Binary::Add: return a + b;
        case Binary::Sub: return a - b;
        case Binary::Mul: return a * b;
        case Binary::Div: return a / b;
    }
    return a;  // unreachable
}

// C[M,N] = A[M,K] · B[K,N]: one running sum per output, k in order from +0, product then sum rounded.
// The k loop sits outside the j loop only so that B is read along its rows (this is also the Emscripten
// scalar build's matmul); each C[i][j] still sees k = 0, 1, … in order.
void matmul(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t M,
            int64_t N, int64_t K) {
    for (int64_t i = 0; i < M; ++i) {
        float* c = C + i * ldc;
        for (int64_t j = 0; j < N; ++j) c[j] = 0.0f;
        for (int64_t k = 0; k < K; ++k) {
            const float a = A[i * lda + k];
            const float* b = B + k * ldb;
            for (int64_t j = 0; j < N; ++j) {
                const float product = a * b[j];
                c[j] = c[j] + product;
            }
        }
    }
}

// C[M,N] = A[M,K] · B[K,N] (+ bias[N]), B[k][j] = B[k·rsb + j·csb]: matmul's running sums, then + bias[j].
void gemm(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias, float* C,
          int64_t ldc, int64_t M, int64_t N, int64_t K) {
    std::vector<float> rows;  // B with unit column stride, when it comes transposed
    if (csb != 1) {
        rows.resize(static_cast<size_t>(K * N));
        for (int64_t k = 0; k < K; ++k)
            for (int64_t j = 0; j < N; ++j) rows[static_cast<size_t>(k * N + j)] = B[k * rsb + j * csb];
        B = rows.data();
        rsb = N;
    }
    matmul(A, lda, B, rsb, C, ldc, M, N, K);
    if (bias)
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = C[i * ldc + j] + bias[j];
}

// C[M,N] += A[M,K] · B[K,N], B[k][j] = B[k·rsb + j·csb]: every C[i][j] a running sum from its own value.
void gemm_accumulate(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, float* C, int64_t ldc,
                     int64_t M, int64_t N, int64_t K) {
    for (int64_t i = 0; i < M; ++i)
        for (int64_t k = 0; k < K; ++k) {
            const float a = A[i * lda + k];
            for (int64_t j = 0; j < N; ++j) {
                const float product = a * B[k * rsb + j * csb];
                C[i * ldc + j] = C[i * ldc + j] + product;
            }
        }
}

// The sum of one tile's weights p[kAttentionKeys]: key j adds into lane j mod 16 (in order of j), then the
// lanes meet in a fixed tree, lane x += lane x + w for w = 8, 4, 2, 1. (SIMD: the lanes are 16/W vectors.)
float tile_sum(const float* p) {
    float lanes[kAttentionLanes];
    for (int64_t l = 0; l < kAttentionLanes; ++l) lanes[l] = p[l];
    for (int64_t t = kAttentionLanes; t < kAttentionKeys; ++t)
        lanes[t % kAttentionLanes] = lanes[t % kAttentionLanes] + p[t];
    for (int64_t w = kAttentionLanes / 2; w >= 1; w /= 2)
        for (int64_t x = 0; x < w; ++x) lanes[x] = lanes[x] + lanes[x + w];
    return lanes[0];
}

// Causal attention of one head, flash style (kernels.hpp). q, k, v [T, d] → out [T, d]. For each block of
// kAttentionRows queries, over the key tiles of kAttentionKeys that hold a key ≤ the block's last query:
//   pass 1, scores:  s_ij = (q_i · k_j) / scale (the running sum over c from +0, then the division);
//                    -inf for j > i and for the tile's padding past T.
//   pass 2, weights: m' = max(m, max_j s_ij), alpha = E(m − m'), p_ij = E(s_ij − m'),
//                    l = l·alpha + tile_sum(p_i)   (E = exp_fast_ref; m starts at -inf, l and o at 0).
//   pass 3, context: o_ic = o_ic·alpha, then o_ic = o_ic + p_ij·v_jc for the tile's keys j < T, in order.
// Finally out_ic = o_ic / l_i. Fused: each running-sum term of pass 1 and pass 3 is one std::fma.
template <bool Fused>
void attention_causal_of(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv,
                         float* out, int64_t ldo, int64_t T, int64_t d, float scale) {
    // a + x·y: the product rounded, then the sum; or fused, rounded once
    const auto term = [](float a, float x, float y) { return Fused ? std::fma(x, y, a) : a + x * y; };
    const float neg_inf = -std::numeric_limits<float>::infinity();
    std::vector<float> p(kAttentionKeys), o(static_cast<size_t>(d));
    for (int64_t i = 0; i < T; ++i) {
        const int64_t block_end = std::min(T, (i / kAttentionRows + 1) * kAttentionRows);
        float m = neg_inf, l = 0.0f;
        std::fill(o.begin(), o.end(), 0.0f);
        for (int64_t j0 = 0; j0 < block_end; j0 += kAttentionKeys) {
            const int64_t jn = std::min(kAttentionKeys, T - j0);
            // pass 1: scores
            float tile_max = neg_inf;
            for (int64_t t = 0; t < kAttentionKeys; ++t) {
                const int64_t j = j0 + t;
                if (t >= jn || j > i) {
                    p[t] = neg_inf;
                    continue;
                }
                float dot = 0.0f;
                for (int64_t c = 0; c < d; ++c) dot = term(dot, q[i * ldq + c], k[j * ldk + c]);
                p[t] = dot / scale;
                tile_max = p[t] > tile_max ? p[t] : tile_max;
            }
            // pass 2: weights
            const float m_new = tile_max > m ? tile_max : m;
            float alpha = 1.0f;
            if (m_new == neg_inf) {
                std::fill(p.begin(), p.end(), 0.0f);  // nothing seen yet: no weights
            } else {
                alpha = exp_fast_ref(m - m_new);
                for (float& x : p) x = exp_fast_ref(x - m_new);
            }
            m = m_new;
            l = l * alpha + tile_sum(p.data());
            // pass 3: context
            for (int64_t c = 0; c < d; ++c) o[c] = o[c] * alpha;
            for (int64_t t = 0; t < jn; ++t)
                for (int64_t c = 0; c < d; ++c) o[c] = term(o[c], p[t], v[(j0 + t) * ldv + c]);
        }
        for (int64_t c = 0; c < d; ++c) out[i * ldo + c] = o[c] / l;
    }
}

void attention_causal(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv,
                      float* out, int64_t ldo, int64_t T, int64_t d, float scale) {
    attention_causal_of<false>(q, ldq, k, ldk, v, ldv, out, ldo, T, d, scale);
}

// Every head of q, k, v [batch, T, heads·d] in turn (the reference runs on one thread).
void attention_causal_heads(const float* q, const float* k, const float* v, float* out, int64_t batch, int64_t T,
                            int64_t heads, int64_t d, float scale, bool fused) {
    const int64_t width = heads * d;
    for (int64_t b = 0; b < batch; ++b)
        for (int64_t h = 0; h < heads; ++h) {
            const int64_t at = b * T * width + h * d;
            (fused ? attention_causal_of<true> : attention_causal_of<false>)(q + at, width, k + at, width, v + at, width,
                                                                           out + at, width, T, d, scale);
        }
}

// rows × n → rows × n: softmax of each row (§2.2).
void softmax_rows(const float* x, float* y, int64_t rows, int64_t n) {
    for (int64_t row = 0; row < rows; ++row) {
        const float* xr = x + row * n;
        float* yr = y + row * n;
        if (n == 0) continue;

        // pass 1: the row max; NaN if any element is NaN.
        float m = xr[0];
        for (int64_t i = 1; i < n && !std::isnan(m); ++i)
            if (std::isnan(xr[i]) || xr[i] > m) m = xr[i];

        // pass 2: e_i = EXP(x_i - m), kept in y.
        for (int64_t i = 0; i < n; ++i) yr[i] = exp_ref(xr[i] - m);

        // pass 3: the sum S, in the order of ATen's 8-lane vector loop.
        float S;
        if (n < 8) {
            S = yr[0];
            for (int64_t i = 1; i < n; ++i) S = S + yr[i];
        } else {
            float v[8];
            for (int l = 0; l < 8; ++l) v[l] = yr[l];
            for (int64_t i = 8; i < n; ++i) v[i % 8] = v[i % 8] + yr[i];  // later blocks, the last one partial
            S = ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
        }

        // pass 4: multiply by the reciprocal (ATen does not divide).
        const float r = 1.0f / S;
        for (int64_t i = 0; i < n; ++i) yr[i] = yr[i] * r;
    }
}

// x[n] → y[n]: y = EXP(x)
void exp(const float* x, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = exp_ref(x[i]);
}

// a[n], b[n] → y[n]: y = a op b
void binary(Binary op, const float* a, const float* b, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = apply(op, a[i], b[i]);
}

// a[n], s → y[n]: y = a op s
void binary_scalar(Binary op, const float* a, float s, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = apply(op, a[i], s);
}

// x[n], mask[n] → y[n]: value where mask is nonzero (NaN counts as nonzero), else x
void masked_fill(const float* x, const float* mask, float value, float* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = mask[i] != 0.0f ? value : x[i];
}

}  // namespace

// EXP: every std::fma is one of SLEEF's FMAs.
float exp_ref(float d) {
    return exp_steps(d, [](float a, float b, float c) { return std::fma(a, b, c); });
}

void attention_causal_fused_ref(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v,
                                int64_t ldv, float* out, int64_t ldo, int64_t T, int64_t d, float scale) {
    attention_causal_of<true>(q, ldq, k, ldk, v, ldv, out, ldo, T, d, scale);
}

void gemm_fused_ref(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias,
                    float* C, int64_t ldc, int64_t M, int64_t N, int64_t K) {
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
            float c = 0.0f;
            for (int64_t k = 0; k < K; ++k) c = std::fma(A[i * lda + k], B[k * rsb + j * csb], c);
            C[i * ldc + j] = bias ? c + bias[j] : c;
        }
}

// The fast path's exp: exp_ref's steps, each FMA a separate multiply and add (two roundings).
float exp_fast_ref(float d) {
    return exp_steps(d, [](float a, float b, float c) { return a * b + c; });
}

const Table& reference() {
    // gemm_fused, attention_causal_fused: none, the scalar build has no FMA instruction (std::fma would be a
    // slow library call).
    static const Table table{"scalar",      matmul,        gemm,   gemm_accumulate, nullptr,       attention_causal,
                             nullptr,       attention_causal_heads, softmax_rows, exp, binary,
                             binary_scalar, masked_fill};
    return table;
}

}  // namespace attn::kernels
