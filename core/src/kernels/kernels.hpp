#pragma once
// The kernel layer: the hot loops of the core, each with a plain scalar reference (reference.cpp) and
// SIMD versions built once per instruction set (simd_*.hpp by topic, one simd_<arch>.cpp per set).
// Every kernel here gives exactly the bits of its scalar reference: lanes hold independent outputs,
// and each output keeps its reference's order of operations. All but one follow PyTorch's own order
// (torch-numerics.md §7); attention_causal is the fast path's own, defined by its reference.
#include <cstdint>
#include <vector>

namespace attn::kernels {

enum class Binary { Add, Sub, Mul, Div };

struct Table {
    const char* name;  // "scalar", "sse4.1", "avx2+fma", "avx512f", "wasm-simd128"

    // C[M,N] = A[M,K] · B[K,N], all row-major with leading dims lda/ldb/ldc.
    // C[i][j] = ((0 + a_i0·b_0j) + a_i1·b_1j) + …: each product and each sum rounded, no FMA.
    void (*matmul)(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc,
                   int64_t M, int64_t N, int64_t K);

    // C[M,N] = A[M,K] · B[K,N] (+ bias[N]): A and C row-major (lda, ldc), B by element strides,
    // B[k][j] = B[k·rsb + j·csb], so that nn.Linear's W.T is read in place. The bits of matmul, then
    // C[i][j] + bias[j] (one more rounding, nn.Linear's order) when bias is not null.
    void (*gemm)(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias, float* C,
                 int64_t ldc, int64_t M, int64_t N, int64_t K);

    // C[M,N] += A[M,K] · B[K,N] (B by strides, as gemm), each sum carrying on from C's value:
    // C[i][j] = ((c_ij + a_i0·b_0j) + a_i1·b_1j) + …, each product and each sum rounded, no FMA: netlib
    // sgemm's order once beta has scaled C, which is PyTorch's CPU baddbmm.
    void (*gemm_accumulate)(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, float* C,
                            int64_t ldc, int64_t M, int64_t N, int64_t K);

    // gemm with each term fused, C[i][j] = fma(a_ik, b_kj, C[i][j]) in k order from +0 (one rounding per
    // term, NOT PyTorch's two), then + bias[j]; the bits of gemm_fused_ref. Only in tables whose CPU has FMA
    // (AVX2, AVX-512), null elsewhere: the fast path's projections use it when it is there (on CPUs where a
    // separate multiply and add take two of the FMA units' slots, it runs twice as fast as gemm).
    void (*gemm_fused)(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias,
                       float* C, int64_t ldc, int64_t M, int64_t N, int64_t K);

    // Causal attention of one head without the T×T weights (the fast path: NOT PyTorch's order).
    // q, k, v [T, d] (row strides ldq, ldk, ldv) → out [T, d] (row stride ldo):
    //   out_i = Σ_{j ≤ i} softmax_j(s_ij) · v_j,  s_ij = (q_i · k_j) / scale.
    // The scores s_ij are the exact path's bits (the matmul running sum, then the division); the softmax
    // is online over key tiles and exp is exp_fast_ref. reference.cpp spells out the order.
    void (*attention_causal)(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv,
                             float* out, int64_t ldo, int64_t T, int64_t d, float scale);

    // attention_causal with each multiply-add of the scores and of the context fused (one rounding per
    // term, so the scores are no longer the exact path's bits); the bits of attention_causal_fused_ref.
    // Like gemm_fused, only in tables whose CPU has FMA, null elsewhere.
    void (*attention_causal_fused)(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v,
                                   int64_t ldv, float* out, int64_t ldo, int64_t T, int64_t d, float scale);

    // attention_causal (attention_causal_fused when `fused` and the table has it) of every head of q, k, v
    // [batch, T, heads·d], each row the heads side by side, into out of the same layout. With more than one
    // thread (attn::set_num_threads) the SIMD tables split each batch entry's heads × query blocks over them;
    // every output row is still computed whole by the per-head kernel's steps: the same bits on any number.
    void (*attention_causal_heads)(const float* q, const float* k, const float* v, float* out, int64_t batch,
                                   int64_t T, int64_t heads, int64_t d, float scale, bool fused);

    // rows × n, row-major: softmax of each row (§2.2): max, EXP(x - max), the 8-lane sum, times 1/S.
    void (*softmax_rows)(const float* x, float* y, int64_t rows, int64_t n);

    // y[i] = EXP(x[i]) (SLEEF expf_u10 order, §2.1).
    void (*exp)(const float* x, float* y, int64_t n);

    // y[i] = a[i] op b[i], and y[i] = a[i] op s.
    void (*binary)(Binary op, const float* a, const float* b, float* y, int64_t n);
    void (*binary_scalar)(Binary op, const float* a, float s, float* y, int64_t n);

    // y[i] = mask[i] != 0 ? value : x[i]
    void (*masked_fill)(const float* x, const float* mask, float value, float* y, int64_t n);
};

// The plain scalar reference: the definition every SIMD kernel is tested against.
const Table& reference();

// Every table this build contains and this CPU can run, reference first.
std::vector<const Table*> available();

// The table the core uses: chosen once, the widest instruction set available.
const Table& active();

// Scalar EXP exactly as SLEEF's expf8_u10 computes each lane (torch-numerics §2.1).
float exp_ref(float x);

// gemm_fused's definition: std::fma per term, in k order from +0, then + bias[j].
void gemm_fused_ref(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias,
                    float* C, int64_t ldc, int64_t M, int64_t N, int64_t K);

// attention_causal_fused's definition: attention_causal's steps with std::fma for each term of the scores'
// and the context's running sums.
void attention_causal_fused_ref(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v,
                                int64_t ldv, float* out, int64_t ldo, int64_t T, int64_t d, float scale);

// The fast path's exp: EXP's steps with a separate multiply and add instead of each FMA (no FMA on wasm
// SIMD; within 2 ulp of EXP). Every table computes exactly these bits.
float exp_fast_ref(float x);

// attention_causal's tiles: queries in blocks of kAttentionRows, keys in tiles of kAttentionKeys, each
// tile's sum of weights over 16 lanes (key j in lane j mod 16) and then a fixed tree (reference.cpp).
// Key tiles wholly above the diagonal of a query block are skipped.
inline constexpr int64_t kAttentionRows = 64;
inline constexpr int64_t kAttentionKeys = 64;
inline constexpr int64_t kAttentionLanes = 16;

}  // namespace attn::kernels
