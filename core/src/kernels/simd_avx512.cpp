// The AVX-512F kernel table (built with -mavx512f -mavx2 -mfma): the kernels of simd_*.hpp with this
// instruction set's choices, its FMA, its register blocks (32 registers of 16 lanes) and a softmax sum
// kept in 8 lanes. Chosen at run time by dispatch.cpp when the CPU and the OS support AVX-512F.

// GCC 12's avx512fintrin.h builds "undefined" registers as `__m512 __Y = __Y;`, which -W(maybe-)uninitialized
// reports once inlined here (a known false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "simd_table.hpp"

namespace attn::kernels {
namespace {

using Avx512 = xsimd::avx512f;

template <>
struct Fma<Avx512> {
    static constexpr bool hardware = true;
    using V = Vec<Avx512>;
    // xsimd 8.1's fma for avx512f is the generic a*b + c (two roundings): use the instruction directly.
    V operator()(V a, V b, V c) const { return _mm512_fmadd_ps(a, b, c); }
    static constexpr bool exact() { return true; }
};

template <>
struct Blocking<Avx512> {  // 24 accumulators
    static constexpr int MR = 8;
    static constexpr int NV = 3;
};

// The small driver: two vectors of 16 columns, so that the attention tiles (64 wide) split into whole blocks.
template <>
struct SmallBlocking<Avx512> {
    static constexpr int MR = 8;
    static constexpr int NV = 2;
};

// 16 lanes would mix two blocks in one add, so the softmax's 8 lanes stay in one 256-bit register.
template <>
void lane8_sums<Avx512>(const float* e, int64_t blocks, float v[8]) {
    __m256 acc = _mm256_loadu_ps(e);
    for (int64_t k = 1; k < blocks; ++k) acc = _mm256_add_ps(acc, _mm256_loadu_ps(e + 8 * k));
    _mm256_storeu_ps(v, acc);
}

}  // namespace

const Table& table_avx512() {
    static const Table table = make_table<Avx512>("avx512f");
    return table;
}

}  // namespace attn::kernels
