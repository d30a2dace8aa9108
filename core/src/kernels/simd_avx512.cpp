// The AVX-512F kernel table (built with -mavx512f -mavx2 -mfma).

// GCC 12's avx512fintrin.h builds "undefined" registers as `__m512 __Y = __Y;`, which -W(maybe-)uninitialized
// reports once inlined here (a known false positive).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "simd.hpp"

namespace attn::kernels {

const Table& table_avx512() {
    static const Table table = make_table<xsimd::avx512f>("avx512f");
    return table;
}

}  // namespace attn::kernels
