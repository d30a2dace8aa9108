// The AVX2 + FMA kernel table (built with -mavx2 -mfma). Only EXP uses the FMA.
#include "simd.hpp"

namespace attn::kernels {

const Table& table_avx2() {
    static const Table table = make_table<xsimd::fma3<xsimd::avx2>>("avx2+fma");
    return table;
}

}  // namespace attn::kernels
