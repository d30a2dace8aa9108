#pragma once
// Softmax of each row on SIMD lanes (softmax_rows; reference of the same name in reference.cpp) in ATen's
// order (torch-numerics §2.2): the max, EXP(x − max), the sum over 8 lanes, then times 1/sum.
// An arch may replace the 8-lane sum, lane8_sums (simd_avx512.cpp does).
#include "simd_exp.hpp"

namespace attn::kernels {
namespace {  // internal linkage: see simd_common.hpp

// v[l] = ((e[l] + e[8+l]) + e[16+l]) + … over the first 8·blocks elements: ATen's 8-lane accumulator,
// as 8/W vectors of W ≤ 8 lanes.
template <class Arch>
void lane8_sums(const float* e, int64_t blocks, float v[8]) {
    using V = Vec<Arch>;
    constexpr int P = 8 / V::size;
    static_assert(P * V::size == 8, "8 lanes must be whole vectors");
    V acc[P];
    for (int p = 0; p < P; ++p) acc[p] = V::load_unaligned(e + p * V::size);
    for (int64_t k = 1; k < blocks; ++k)
        for (int p = 0; p < P; ++p) acc[p] = acc[p] + V::load_unaligned(e + 8 * k + p * V::size);
    for (int p = 0; p < P; ++p) acc[p].store_unaligned(v + p * V::size);
}

// rows × n → rows × n: softmax of each row
template <class Arch>
void softmax_rows(const float* x, float* y, int64_t rows, int64_t n) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    for (int64_t row = 0; row < rows; ++row) {
        const float* xr = x + row * n;
        float* yr = y + row * n;
        if (n == 0) continue;

        // pass 1: the row max (exact in any order), and whether any element is NaN.
        float m = xr[0];
        int64_t i = 0;
        if (n >= W) {
            V vmax = V::load_unaligned(xr);
            auto any_nan = vmax != vmax;
            for (i = W; i + W <= n; i += W) {
                const V xv = V::load_unaligned(xr + i);
                vmax = xsimd::max(vmax, xv);
                any_nan = any_nan | (xv != xv);
            }
            float lanes[W];
            vmax.store_unaligned(lanes);
            m = lanes[0];
            for (int64_t l = 1; l < W; ++l) m = lanes[l] > m ? lanes[l] : m;
            if (xsimd::any(any_nan)) m = bits_to_float(0x7fc00000);  // then every output is NaN
        }
        for (; i < n; ++i)
            if (xr[i] != xr[i] || xr[i] > m) m = xr[i];  // NaN wins

        // pass 2: e_i = EXP(x_i − m), kept in y.
        const V mv(m);
        for (i = 0; i + W <= n; i += W) exp_vec<Arch>(V::load_unaligned(xr + i) - mv).store_unaligned(yr + i);
        exp_tail<Arch>(xr + i, m, yr + i, n - i);

        // pass 3: the sum S in ATen's order: a running sum below 8 elements, else 8 lanes, then a fixed tree.
        float S;
        if (n < 8) {
            S = yr[0];
            for (i = 1; i < n; ++i) S = S + yr[i];
        } else {
            float v[8];
            lane8_sums<Arch>(yr, n / 8, v);
            for (i = n / 8 * 8; i < n; ++i) v[i % 8] = v[i % 8] + yr[i];  // the partial block: lanes l < n mod 8
            S = ((v[0] + v[4]) + (v[2] + v[6])) + ((v[1] + v[5]) + (v[3] + v[7]));
        }

        // pass 4: y = e · (1/S)
        const float r = 1.0f / S;
        const V rv(r);
        for (i = 0; i + W <= n; i += W) (V::load_unaligned(yr + i) * rv).store_unaligned(yr + i);
        for (; i < n; ++i) yr[i] = yr[i] * r;
    }
}

}  // namespace
}  // namespace attn::kernels
