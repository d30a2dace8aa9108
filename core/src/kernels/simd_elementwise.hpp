#pragma once
// Elementwise kernels on SIMD lanes: binary, binary_scalar (+ − × ÷) and masked_fill (references of the
// same names in reference.cpp). One rounding per element, so the lanes and the scalar tail are the
// reference's own operation.
#include "simd_common.hpp"

namespace attn::kernels {
namespace {  // internal linkage: see simd_common.hpp

// y[n] = f(a[n], b[n]); f takes vectors and floats alike.
template <class Arch, class F>
void zip(const float* a, const float* b, float* y, int64_t n, F f) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    int64_t i = 0;
    for (; i + W <= n; i += W) f(V::load_unaligned(a + i), V::load_unaligned(b + i)).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = f(a[i], b[i]);
}

// y[n] = f(a[n], s)
template <class Arch, class F>
void zip_scalar(const float* a, float s, float* y, int64_t n, F f) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    const V sv(s);
    int64_t i = 0;
    for (; i + W <= n; i += W) f(V::load_unaligned(a + i), sv).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = f(a[i], s);
}

// a[n], b[n] → y[n]: y = a op b
template <class Arch>
void binary(Binary op, const float* a, const float* b, float* y, int64_t n) {
    switch (op) {
        case Binary::Add: return zip<Arch>(a, b, y, n, [](auto u, auto v) { return u + v; });
        case Binary::Sub: return zip<Arch>(a, b, y, n, [](auto u, auto v) { return u - v; });
        case Binary::Mul: return zip<Arch>(a, b, y, n, [](auto u, auto v) { return u * v; });
        case Binary::Div: return zip<Arch>(a, b, y, n, [](auto u, auto v) { return u / v; });
    }
}

// a[n], s → y[n]: y = a op s
template <class Arch>
void binary_scalar(Binary op, const float* a, float s, float* y, int64_t n) {
    switch (op) {
        case Binary::Add: return zip_scalar<Arch>(a, s, y, n, [](auto u, auto v) { return u + v; });
        case Binary::Sub: return zip_scalar<Arch>(a, s, y, n, [](auto u, auto v) { return u - v; });
        case Binary::Mul: return zip_scalar<Arch>(a, s, y, n, [](auto u, auto v) { return u * v; });
        case Binary::Div: return zip_scalar<Arch>(a, s, y, n, [](auto u, auto v) { return u / v; });
    }
}

// x[n], mask[n] → y[n]: value where mask is nonzero (NaN counts as nonzero), else x
template <class Arch>
void masked_fill(const float* x, const float* mask, float value, float* y, int64_t n) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    const V fill(value), zero(0.0f);
    int64_t i = 0;
    for (; i + W <= n; i += W)
        // mask == 0 rather than mask != 0: AVX's "not equal" is ordered (false for NaN), SSE's is not.
        xsimd::select(V::load_unaligned(mask + i) == zero, V::load_unaligned(x + i), fill).store_unaligned(y + i);
    for (; i < n; ++i) y[i] = mask[i] != 0.0f ? value : x[i];
}

}  // namespace
}  // namespace attn::kernels
