#pragma once
// The kernel layer: the hot loops of the core, each with a plain scalar reference (reference.cpp) and
// SIMD versions built once per instruction set (simd.hpp, the only code that names xsimd).
// Every kernel here gives exactly the bits of its scalar reference: lanes hold independent outputs,
// and each output keeps PyTorch's own order of operations (torch-numerics.md §7).
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

}  // namespace attn::kernels
