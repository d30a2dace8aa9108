#pragma once
// The SIMD kernels, written once as templates over an xsimd instruction set ("arch") and built once per
// arch by simd_<arch>.cpp, each with its own -m flags. This is the only header that names xsimd.
//
// Every kernel gives exactly the bits of its scalar reference (reference.cpp): SIMD lanes hold
// independent outputs (columns, elements), and each output keeps the reference's order of operations.
// Tails that do not fill a vector run the reference's scalar steps (EXP: the lane code on a padded vector).
#include <xsimd/xsimd.hpp>

#include <array>
#include <cstring>
#include <utility>

#include "kernels.hpp"

namespace attn::kernels {
// Internal linkage on purpose: each simd_<arch>.cpp compiles these templates with different -m flags, and
// the linker must never pick one file's copy (say, with AVX-512 encodings) for another file's table.
namespace {

template <class Arch>
using Vec = xsimd::batch<float, Arch>;
template <class Arch>
using IVec = xsimd::batch<int32_t, Arch>;

// No std:: functions that compile to code (std::max, std::isnan, numeric_limits…) in here: unoptimised, their
// out-of-line copies are shared by every file of the program, and the linker may keep the one built with this
// file's -m flags.
inline int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }

inline float bits_to_float(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// ---------------------------------------------------------------------------------------------------
// EXP (torch-numerics §2.1): SLEEF's expf8_u10, the same steps as exp_ref, one element per lane.
//
// Fma<Arch> gives EXP's seven fused multiply-adds (the only FMAs in the core), each rounded once.
// exact() is false when an emulated FMA could not promise that; EXP then redoes those lanes with exp_ref.

template <class Arch>
struct Fma;  // no FMA for this arch: a table for it needs one below

#if XSIMD_WITH_FMA3_AVX2
template <>
struct Fma<xsimd::fma3<xsimd::avx2>> {
    using V = Vec<xsimd::fma3<xsimd::avx2>>;
    V operator()(V a, V b, V c) const { return xsimd::fma(a, b, c); }  // vfmadd
    static constexpr bool exact() { return true; }
};
#endif

#if XSIMD_WITH_AVX512F
template <>
struct Fma<xsimd::avx512f> {
    using V = Vec<xsimd::avx512f>;
    // xsimd 8.1's fma for avx512f is the generic a*b + c (two roundings): use the instruction directly.
    V operator()(V a, V b, V c) const { return _mm512_fmadd_ps(a, b, c); }
    static constexpr bool exact() { return true; }
};
#endif

#if XSIMD_WITH_SSE4_1
// SSE4.1 and wasm SIMD have no FMA: compute it in double, two lanes at a time. a·b is exact in double
// (24 + 24 bits), so c + a·b is rounded once to double, then once more to float. That second rounding
// is wrong only when the double lands exactly on a midpoint between two floats (low 29 bits 1000…0):
// such lanes are flagged (a few per million, most of them exact sums), and EXP redoes them with exp_ref.
// (EXP's FMA results are never float subnormals, whose midpoints lie elsewhere; an exhaustive test over all
// 2^32 inputs checks the whole of EXP.)
template <>
struct Fma<xsimd::sse4_1> {
    using V = Vec<xsimd::sse4_1>;
    __m128i midpoints = _mm_setzero_si128();

    __m128d mul_add(__m128d a, __m128d b, __m128d c) {
        const __m128d r = _mm_add_pd(c, _mm_mul_pd(a, b));
        // The low 29 bits of a double all sit in its low 32-bit word; the high word never matches 1.
        const __m128i low = _mm_and_si128(_mm_castpd_si128(r), _mm_set_epi32(0, 0x1fffffff, 0, 0x1fffffff));
        midpoints = _mm_or_si128(midpoints, _mm_cmpeq_epi32(low, _mm_set_epi32(1, 0x10000000, 1, 0x10000000)));
        return r;
    }

    V operator()(V a, V b, V c) {
        const __m128 a4 = a, b4 = b, c4 = c;
        const __m128d lo = mul_add(_mm_cvtps_pd(a4), _mm_cvtps_pd(b4), _mm_cvtps_pd(c4));
        const __m128d hi = mul_add(_mm_cvtps_pd(_mm_movehl_ps(a4, a4)), _mm_cvtps_pd(_mm_movehl_ps(b4, b4)),
                                   _mm_cvtps_pd(_mm_movehl_ps(c4, c4)));
        return _mm_movelh_ps(_mm_cvtpd_ps(lo), _mm_cvtpd_ps(hi));
    }

    bool exact() const { return _mm_movemask_epi8(midpoints) == 0; }
};
#endif

template <class Arch>
Vec<Arch> exp_vec(Vec<Arch> d) {
    using V = Vec<Arch>;
    using I = IVec<Arch>;
    const V R(bits_to_float(0x3fb8aa3b)), L2U(bits_to_float(0x3f317200)), L2L(bits_to_float(0x35bfbe8e));
    const V c5(bits_to_float(0x39502bda)), c4(bits_to_float(0x3ab696c9)), c3(bits_to_float(0x3c0888a6));
    const V c2(bits_to_float(0x3d2aaa7a)), c1(bits_to_float(0x3e2aaaab)), c0(bits_to_float(0x3f000000));
    Fma<Arch> fma;

    // d = q·ln 2 + s
    const V q = xsimd::nearbyint(d * R);  // ties to even
    V s = fma(q, -L2U, d);
    s = fma(q, -L2L, s);

    // e^s
    V u = c5;
    u = fma(u, s, c4);
    u = fma(u, s, c3);
    u = fma(u, s, c2);
    u = fma(u, s, c1);
    u = fma(u, s, c0);
    u = V(1.0f) + fma(s * s, u, s);

    // · 2^h · 2^(q−h), h = q >> 1. q + 1.5·2^23 holds the integer q in its low bits (|q| ≤ 150 in range),
    // so the exponents come from integer shifts, with no float→int conversion (emulated lane by lane in wasm).
    const I qi = xsimd::bitwise_cast<I>(q + V(12582912.0f)) - I(0x4b400000);
    const I h = qi >> 1;
    const V scale_h = xsimd::bitwise_cast<V>((h + I(127)) << 23);
    const V scale_rest = xsimd::bitwise_cast<V>((qi - h + I(127)) << 23);
    u = (u * scale_h) * scale_rest;

    // Out of range, as exp_ref; these lanes computed garbage above.
    u = xsimd::select(d < V(-104.0f), V(0.0f), u);
    u = xsimd::select(d > V(100.0f), V(bits_to_float(0x7f800000)), u);
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

// ---------------------------------------------------------------------------------------------------
// Elementwise: one rounding per element, so lanes and tail are the reference's own operation.

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

// ---------------------------------------------------------------------------------------------------
// Softmax of each row (§2.2).

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

#if XSIMD_WITH_AVX512F
// 16 lanes would mix two blocks in one add, so AVX-512 keeps the 8 lanes in one 256-bit register.
template <>
void lane8_sums<xsimd::avx512f>(const float* e, int64_t blocks, float v[8]) {
    __m256 acc = _mm256_loadu_ps(e);
    for (int64_t k = 1; k < blocks; ++k) acc = _mm256_add_ps(acc, _mm256_loadu_ps(e + 8 * k));
    _mm256_storeu_ps(v, acc);
}
#endif

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

// ---------------------------------------------------------------------------------------------------
// Matmul: C[M,N] = A[M,K] · B[K,N], every C[i][j] the running sum ((0 + a_i0·b_0j) + a_i1·b_1j) + …
//
// SIMD lanes hold neighbouring columns j, so each lane is one output's own running sum over k: broadcast
// a_ik, multiply by the row of B, add — a separate multiply and add, never an FMA.
// Structure (a later packing step slots in at the block level):
//   k blocks of KC: C carries each running sum from one block to the next (it is a float either way);
//   column panels of NC: the B block KC × NC stays in L2 while every row block of A passes over it;
//   micro-kernel: MR rows × NV vectors of columns in registers, over the k block;
//   columns past the last whole vector: a scalar running sum over all of K.

// Cache blocks, the same for every arch: a B block of KC × NC floats (512 KB) stays in L2.
struct CacheBlocks {
    static constexpr int64_t KC = 256;
    static constexpr int64_t NC = 512;
};

// Register blocks: MR rows × NV vectors of columns, so MR·NV accumulators plus NV vectors of B and a
// broadcast of A fit the arch's registers (chosen by timing 1024×768 @ 768×768).
template <class Arch>
struct Blocking : CacheBlocks {  // SSE4.1 and wasm SIMD: 16 registers of 4 lanes, 8 accumulators
    static constexpr int MR = 4;
    static constexpr int NV = 2;
};

#if XSIMD_WITH_FMA3_AVX2
template <>
struct Blocking<xsimd::fma3<xsimd::avx2>> : CacheBlocks {  // 16 registers of 8 lanes: 12 accumulators
    static constexpr int MR = 6;
    static constexpr int NV = 2;
};
#endif

#if XSIMD_WITH_AVX512F
template <>
struct Blocking<xsimd::avx512f> : CacheBlocks {  // 32 registers of 16 lanes: 24 accumulators
    static constexpr int MR = 8;
    static constexpr int NV = 3;
};
#endif

// C[mr, NV·W] (+)= A[mr, kc] · B[kc, NV·W]: the register block. Starts from +0 (first k block) or from C.
template <class Arch, int MR, int NV>
void micro_kernel(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t kc,
                  bool from_zero) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    V acc[MR][NV];
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = from_zero ? V(0.0f) : V::load_unaligned(C + r * ldc + v * W);

    for (int64_t k = 0; k < kc; ++k) {
        V b[NV];
        for (int v = 0; v < NV; ++v) b[v] = V::load_unaligned(B + k * ldb + v * W);
        for (int r = 0; r < MR; ++r) {
            const V a(A[r * lda + k]);
            for (int v = 0; v < NV; ++v) acc[r][v] = acc[r][v] + a * b[v];  // product rounded, then sum rounded
        }
    }

    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
}

using MicroKernel = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, bool);

// micro_kernel_table<Arch>(…)[(mr − 1)·NV + (nv − 1)]: every block shape, for the row and column edges.
template <class Arch, std::size_t... I>
constexpr std::array<MicroKernel, sizeof...(I)> micro_kernel_table(std::index_sequence<I...>) {
    constexpr int NV = Blocking<Arch>::NV;
    return {&micro_kernel<Arch, static_cast<int>(I) / NV + 1, static_cast<int>(I) % NV + 1>...};
}

template <class Arch>
void matmul(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t M, int64_t N,
            int64_t K) {
    using Bk = Blocking<Arch>;
    constexpr int64_t W = Vec<Arch>::size;
    static constexpr auto micro = micro_kernel_table<Arch>(std::make_index_sequence<Bk::MR * Bk::NV>{});
    const int64_t Nv = N / W * W;  // columns covered by whole vectors

    if (K == 0) {
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = 0.0f;
        return;
    }

    for (int64_t k0 = 0; k0 < K; k0 += Bk::KC) {
        const int64_t kc = min_i64(Bk::KC, K - k0);
        for (int64_t j0 = 0; j0 < Nv; j0 += Bk::NC) {
            const int64_t j1 = min_i64(j0 + Bk::NC, Nv);
            for (int64_t i = 0; i < M; i += Bk::MR) {
                const int64_t mr = min_i64(Bk::MR, M - i);
                for (int64_t j = j0; j < j1; j += Bk::NV * W) {
                    const int64_t nv = min_i64(Bk::NV, (j1 - j) / W);
                    micro[(mr - 1) * Bk::NV + (nv - 1)](A + i * lda + k0, lda, B + k0 * ldb + j, ldb, C + i * ldc + j,
                                                        ldc, kc, k0 == 0);
                }
            }
        }
    }

    // The last N mod W columns: the reference's running sum.
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = Nv; j < N; ++j) {
            float acc = 0.0f;
            for (int64_t k = 0; k < K; ++k) acc = acc + A[i * lda + k] * B[k * ldb + j];
            C[i * ldc + j] = acc;
        }
}

// ---------------------------------------------------------------------------------------------------

template <class Arch>
Table make_table(const char* name) {
    return Table{name,
                 &matmul<Arch>,
                 &softmax_rows<Arch>,
                 &exp<Arch>,
                 &binary<Arch>,
                 &binary_scalar<Arch>,
                 &masked_fill<Arch>};
}

}  // namespace
}  // namespace attn::kernels
