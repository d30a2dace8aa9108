#pragma once
// make_table: one arch's kernels (every simd_*.hpp) gathered into a Table. Each simd_<arch>.cpp includes
// this, gives its own choices (Fma, Blocking…) and builds its table; the fused kernels are there only when
// the arch has a real FMA instruction (Fma<Arch>::hardware), null elsewhere.
#include "simd_attention.hpp"
#include "simd_elementwise.hpp"
#include "simd_exp.hpp"
#include "simd_gemm.hpp"
#include "simd_softmax.hpp"

namespace attn::kernels {
namespace {  // internal linkage: see simd_common.hpp

template <class Arch>
constexpr auto gemm_fused_of() {
    using Gemm = void (*)(const float*, int64_t, const float*, int64_t, int64_t, const float*, float*, int64_t,
                          int64_t, int64_t, int64_t);
    if constexpr (Fma<Arch>::hardware) return static_cast<Gemm>(&gemm<Arch, true>);
    else return static_cast<Gemm>(nullptr);
}

template <class Arch>
constexpr auto attention_causal_fused_of() {
    using Attention = void (*)(const float*, int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t,
                               int64_t, int64_t, float);
    if constexpr (Fma<Arch>::hardware) return static_cast<Attention>(&attention_causal<Arch, true>);
    else return static_cast<Attention>(nullptr);
}

template <class Arch>
void attention_causal_heads(const float* q, const float* k, const float* v, float* out, int64_t batch, int64_t T,
                            int64_t heads, int64_t d, float scale, bool fused) {
    if constexpr (Fma<Arch>::hardware) {
        if (fused) return attention_heads<Arch, true>(q, k, v, out, batch, T, heads, d, scale);
    }
    attention_heads<Arch, false>(q, k, v, out, batch, T, heads, d, scale);
}

template <class Arch>
Table make_table(const char* name) {
    return Table{name,
                 &matmul<Arch>,
                 &gemm<Arch>,
                 &gemm_accumulate<Arch>,
                 gemm_fused_of<Arch>(),
                 &attention_causal<Arch>,
                 attention_causal_fused_of<Arch>(),
                 &attention_causal_heads<Arch>,
                 &softmax_rows<Arch>,
                 &exp<Arch>,
                 &binary<Arch>,
                 &binary_scalar<Arch>,
                 &masked_fill<Arch>};
}

}  // namespace
}  // namespace attn::kernels
