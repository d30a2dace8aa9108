#pragma once
// EXP on SIMD lanes: the `exp` kernel and softmax's EXP (exp_vec; reference exp_ref) and the fast path's
// exp without FMA (exp_fast_vec, exp_fast_nonpositive; reference exp_fast_ref). Both run SLEEF's
// expf8_u10 steps (torch-numerics §2.1) one element per lane, differing only in the multiply-add.
#include "exp_constants.hpp"
#include "simd_common.hpp"

namespace attn::kernels {
namespace {  // internal linkage: see simd_common.hpp

// The fast path's multiply-add: a·b + c with the product and the sum each rounded (exp_fast_ref's steps).
struct SeparateMulAdd {
    template <class V>
    ATTN_INLINE V operator()(V a, V b, V c) const { return a * b + c; }
};

// EXP's steps for lanes in range, each of its seven fused multiply-adds done by `mul_add`: Fma<Arch> for
// EXP, SeparateMulAdd for the fast path. Lanes out of range compute garbage; callers select over them.
template <class Arch, class MulAdd>
ATTN_INLINE Vec<Arch> exp_steps(Vec<Arch> d, MulAdd& mul_add) {
    using V = Vec<Arch>;
    using I = IVec<Arch>;
    namespace k = exp_constants;
    const V R(bits_to_float(k::kInvLn2)), L2U(bits_to_float(k::kLn2Upper)), L2L(bits_to_float(k::kLn2Lower));

    // d = q·ln 2 + s
    const V q = xsimd::nearbyint(d * R);  // ties to even
    V s = mul_add(q, -L2U, d);
    s = mul_add(q, -L2L, s);

    // e^s
    V u(bits_to_float(k::kPoly[5]));
    for (int c = 4; c >= 0; --c) u = mul_add(u, s, V(bits_to_float(k::kPoly[c])));
    u = V(1.0f) + mul_add(s * s, u, s);

    // · 2^h · 2^(q−h), h = q >> 1. q + 1.5·2^23 holds the integer q in its low bits (|q| ≤ 150 in range),
    // so the exponents come from integer shifts, with no float→int conversion (emulated lane by lane in wasm).
    const I qi = xsimd::bitwise_cast<I>(q + V(12582912.0f)) - I(0x4b400000);
    const I h = qi >> 1;
    const V scale_h = xsimd::bitwise_cast<V>((h + I(127)) << 23);
    const V scale_rest = xsimd::bitwise_cast<V>((qi - h + I(127)) << 23);
    return (u * scale_h) * scale_rest;
}

// EXP of every lane, with exp_ref's cases out of range.
template <class Arch>
Vec<Arch> exp_vec(Vec<Arch> d) {
    using V = Vec<Arch>;
    Fma<Arch> fma;
    V u = exp_steps<Arch>(d, fma);
    u = xsimd::select(d < V(exp_constants::kUnderflowBelow), V(0.0f), u);
    u = xsimd::select(d > V(exp_constants::kOverflowAbove), V(bits_to_float(0x7f800000)), u);
    u = xsimd::select(d != d, d + d, u);  // NaN in, that NaN (quieted) out

    if (!fma.exact()) {  // rare: an emulated FMA may have rounded twice
        constexpr int64_t W = V::size;
        float lanes[W];
        d.store_unaligned(lanes);
        for (int64_t l = 0; l < W; ++l) lanes[l] = exp_ref(lanes[l]);
        u = V::load_unaligned(lanes);
    }
    return u;
}

// EXP(x[i] − m) for the last count < W elements, through a zero-padded vector so they run the lane code too.
template <class Arch>
void exp_tail(const float* x, float m, float* y, int64_t count) {
    using V = Vec<Arch>;
    if (count == 0) return;
    float lanes[V::size] = {};
    for (int64_t i = 0; i < count; ++i) lanes[i] = x[i];
    exp_vec<Arch>(V::load_unaligned(lanes) - V(m)).store_unaligned(lanes);
    for (int64_t i = 0; i < count; ++i) y[i] = lanes[i];
}

// x[n] → y[n]: y = EXP(x)
template <class Arch>
void exp(const float* x, float* y, int64_t n) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    int64_t i = 0;
    for (; i + W <= n; i += W) exp_vec<Arch>(V::load_unaligned(x + i)).store_unaligned(y + i);
    exp_tail<Arch>(x + i, 0.0f, y + i, n - i);  // x − 0 is x, even for −0
}

// exp_fast_ref, lane by lane, for the online softmax's d = s − max ≤ 0 (or -inf, or NaN): no selects for
// overflow or NaN (a NaN d gives NaN either way).
template <class Arch>
ATTN_INLINE Vec<Arch> exp_fast_nonpositive(Vec<Arch> d) {
    using V = Vec<Arch>;
    SeparateMulAdd mul_add;
    const V u = exp_steps<Arch>(d, mul_add);
    return xsimd::select(d < V(exp_constants::kUnderflowBelow), V(0.0f), u);  // exactly 0 (also for -inf)
}

// exp_fast_ref for any input: the non-positive form plus its overflow and NaN cases.
template <class Arch>
ATTN_INLINE Vec<Arch> exp_fast_vec(Vec<Arch> d) {
    using V = Vec<Arch>;
    const V u = xsimd::select(d > V(exp_constants::kOverflowAbove), V(bits_to_float(0x7f800000)),
                              exp_fast_nonpositive<Arch>(d));
    return xsimd::select(d != d, d + d, u);
}

}  // namespace
}  // namespace attn::kernels
