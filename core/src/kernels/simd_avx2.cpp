// The AVX2 + FMA kernel table (built with -mavx2 -mfma): the kernels of simd_*.hpp with this instruction
// set's choices, its FMA (vfmadd: EXP and the fused kernels) and its register blocks (16 registers of 8
// lanes). Chosen at run time by dispatch.cpp when the CPU and the OS support AVX2 and FMA.
#include "simd_table.hpp"

namespace attn::kernels {
namespace {

using Avx2 = xsimd::fma3<xsimd::avx2>;

template <>
struct Fma<Avx2> {
    static constexpr bool hardware = true;
    using V = Vec<Avx2>;
    V operator()(V a, V b, V c) const { return xsimd::fma(a, b, c); }  // vfmadd
    static constexpr bool exact() { return true; }
};

template <>
struct Blocking<Avx2> {  // 12 accumulators
    static constexpr int MR = 6;
    static constexpr int NV = 2;
};

}  // namespace

const Table& table_avx2() {
    static const Table table = make_table<Avx2>("avx2+fma");
    return table;
}

}  // namespace attn::kernels
