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

// Strided copies (packing, transposing) stay scalar: clang's vectorizer builds their addresses in i64x2
// vectors and takes each lane out again (extract_lane), which in wasm is slower than plain loads and stores.
#if defined(__clang__)
#define ATTN_SCALAR_LOOP _Pragma("clang loop vectorize(disable)")
#else
#define ATTN_SCALAR_LOOP
#endif

// Small vector functions called once per vector inside the attention's loops: a call there costs more than
// the body (GCC would keep exp_fast_nonpositive out of line, passing its 512-bit argument through memory).
#define ATTN_INLINE inline __attribute__((always_inline))

// No std:: functions that compile to code (std::max, std::isnan, numeric_limits…) in here: unoptimised, their
// out-of-line copies are shared by every file of the program, and the linker may keep the one built with this
// file's -m flags.
inline int64_t min_i64(int64_t a, int64_t b) { return a < b ? a : b; }

inline float bits_to_float(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline uint32_t bits_of(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
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
// a_ik, multiply by the row of B, add — a separate multiply and add, never an FMA. Any blocking of i, j
// and k keeps those sums exact, as long as each k block starts from the C that the previous one left.
//
// Two drivers share the register blocks:
//   small products (the chapter's, the attention tiles): A and B read in place (micro_kernel);
//   large ones (gemm): B packed into panels of NR columns and A into slivers of MR rows, so that the
//   micro-kernel streams both from contiguous memory (packed_kernel), with nn.Linear's bias added to
//   the finished sums.

// Register blocks: MR rows × NV vectors of columns, so MR·NV accumulators plus NV vectors of B, a
// broadcast of A and a product fit the arch's registers (chosen by timing 1024×768 @ 768×768).
template <class Arch>
struct Blocking {  // SSE4.1 and wasm SIMD: 16 registers of 4 lanes (V8 keeps one), 8 accumulators
    static constexpr int MR = 4;
    static constexpr int NV = 2;
};

#if XSIMD_WITH_FMA3_AVX2
template <>
struct Blocking<xsimd::fma3<xsimd::avx2>> {  // 16 registers of 8 lanes: 12 accumulators
    static constexpr int MR = 6;
    static constexpr int NV = 2;
};
#endif

#if XSIMD_WITH_AVX512F
template <>
struct Blocking<xsimd::avx512f> {  // 32 registers of 16 lanes: 24 accumulators
    static constexpr int MR = 8;
    static constexpr int NV = 3;
};
#endif

// The small driver's register blocks: the same, but for AVX-512 two vectors of 16 columns, so that the
// attention tiles (64 wide) split into whole blocks.
template <class Arch>
struct SmallBlocking : Blocking<Arch> {};

#if XSIMD_WITH_AVX512F
template <>
struct SmallBlocking<xsimd::avx512f> {
    static constexpr int MR = 8;
    static constexpr int NV = 2;
};
#endif

// Cache blocks of the packed driver, the same for every arch (multiples of every MR and NR): a packed
// B block of KC × NC floats (768 KB) stays in L2, and a packed A block of MC × KC (96 KB) beside it.
struct CacheBlocks {
    static constexpr int64_t KC = 256;
    static constexpr int64_t MC = 96;
    static constexpr int64_t NC = 768;
};

// C[mr, NV·W] (+)= A[mr, kc] · B[kc, NV·W], A and B read in place: the register block of the small driver.
// Starts from +0 (first k block) or from C.
template <class Arch, int MR, int NV>
void micro_kernel(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t kc,
                  bool from_zero) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    V acc[MR][NV];
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = from_zero ? V(0.0f) : V::load_unaligned(C + r * ldc + v * W);

    // One step of k per iteration, pointers advanced (see packed_kernel below).
    const float* a = A;
    const float* b = B;
    for (int64_t k = 0; k < kc; ++k, ++a, b += ldb) {
        V bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = V::load_unaligned(b + v * W);
        for (int r = 0; r < MR; ++r) {
            const V av(a[r * lda]);
            for (int v = 0; v < NV; ++v) acc[r][v] = acc[r][v] + av * bv[v];  // product rounded, then sum rounded
        }
    }

    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
}

using MicroKernel = void (*)(const float*, int64_t, const float*, int64_t, float*, int64_t, int64_t, bool);

// micro_kernel_table<Arch>(…)[(mr − 1)·NV + (nv − 1)]: every block shape, for the row and column edges.
template <class Arch, std::size_t... I>
constexpr std::array<MicroKernel, sizeof...(I)> micro_kernel_table(std::index_sequence<I...>) {
    constexpr int NV = SmallBlocking<Arch>::NV;
    return {&micro_kernel<Arch, static_cast<int>(I) / NV + 1, static_cast<int>(I) % NV + 1>...};
}

// The small driver: C[M,N] = A·B, or C += A·B when `accumulate` (each sum carries on from C's value).
template <class Arch>
void matmul_small(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t M,
                  int64_t N, int64_t K, bool accumulate) {
    using Bk = SmallBlocking<Arch>;
    constexpr int64_t W = Vec<Arch>::size;
    constexpr int64_t KC = CacheBlocks::KC, NC = 512;
    static constexpr auto micro = micro_kernel_table<Arch>(std::make_index_sequence<Bk::MR * Bk::NV>{});
    const int64_t Nv = N / W * W;  // columns covered by whole vectors

    if (K == 0) {
        if (!accumulate)
            for (int64_t i = 0; i < M; ++i)
                for (int64_t j = 0; j < N; ++j) C[i * ldc + j] = 0.0f;
        return;
    }

    for (int64_t k0 = 0; k0 < K; k0 += KC) {
        const int64_t kc = min_i64(KC, K - k0);
        for (int64_t j0 = 0; j0 < Nv; j0 += NC) {
            const int64_t j1 = min_i64(j0 + NC, Nv);
            for (int64_t i = 0; i < M; i += Bk::MR) {
                const int64_t mr = min_i64(Bk::MR, M - i);
                for (int64_t j = j0; j < j1; j += Bk::NV * W) {
                    const int64_t nv = min_i64(Bk::NV, (j1 - j) / W);
                    micro[(mr - 1) * Bk::NV + (nv - 1)](A + i * lda + k0, lda, B + k0 * ldb + j, ldb, C + i * ldc + j,
                                                        ldc, kc, k0 == 0 && !accumulate);
                }
            }
        }
    }

    // The last N mod W columns: the reference's running sum.
    for (int64_t i = 0; i < M; ++i)
        for (int64_t j = Nv; j < N; ++j) {
            float acc = accumulate ? C[i * ldc + j] : 0.0f;
            for (int64_t k = 0; k < K; ++k) acc = acc + A[i * lda + k] * B[k * ldb + j];
            C[i * ldc + j] = acc;
        }
}

template <class Arch>
void matmul(const float* A, int64_t lda, const float* B, int64_t ldb, float* C, int64_t ldc, int64_t M, int64_t N,
            int64_t K) {
    matmul_small<Arch>(A, lda, B, ldb, C, ldc, M, N, K, false);
}

// ---- the packed driver

// Scratch floats for one call, 64-byte aligned. A class of this file (internal linkage) rather than
// std::vector, whose out-of-line copies the linker could share between files built for different archs.
class Scratch {
public:
    explicit Scratch(int64_t n) : raw_(::operator new(static_cast<size_t>(n + 16) * sizeof(float))) {
        const uintptr_t at = reinterpret_cast<uintptr_t>(raw_);
        data_ = reinterpret_cast<float*>((at + 63) / 64 * 64);
    }
    ~Scratch() { ::operator delete(raw_); }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    float* data() { return data_; }

private:
    void* raw_;
    float* data_;
};

// C[MR, NR] (+)= Ap · Bp over kc: Ap is [kc][MR] (a sliver of A, k-major), Bp is [kc][NR] (a panel of B).
// Starts from +0 or from C; with `bias`, the finished sums get + bias[j] before they are stored.
// Fused: each term is one FMA (gemm_fused), else a multiply then an add (gemm, PyTorch's order).
//
// A's element (r, k) sits at Ap[r·RS + k·KS]: a sliver by default (RS = 1, KS = MR), or, with RS = row
// length and KS = 1, MR rows of a matrix whose row length is known at compile time, read in place.
template <class Arch, int MR, int NV, bool Fused, int64_t RS = 1, int64_t KS = MR>
void packed_kernel(const float* Ap, const float* Bp, int64_t kc, float* C, int64_t ldc, bool from_zero,
                   const float* bias) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size, NR = NV * W;
    V acc[MR][NV];
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = from_zero ? V(0.0f) : V::load_unaligned(C + r * ldc + v * W);

    // One step of k per iteration: NV vectors of B, MR broadcasts of A, pointers advanced by constants. (Unrolled
    // by hand, clang hoists every step's loads to the top and V8 then spills registers; V8 unrolls it itself.)
    const float* a = Ap;
    const float* b = Bp;
    for (int64_t k = 0; k < kc; ++k, a += KS, b += NR) {
        V bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = V::load_aligned(b + v * W);
        for (int r = 0; r < MR; ++r) {
            const V av(a[r * RS]);
            for (int v = 0; v < NV; ++v) {
                if constexpr (Fused) acc[r][v] = Fma<Arch>{}(av, bv[v], acc[r][v]);
                else acc[r][v] = acc[r][v] + av * bv[v];  // product rounded, then sum rounded
            }
        }
    }

    if (bias)
        for (int v = 0; v < NV; ++v) {
            const V bv = V::load_unaligned(bias + v * W);
            for (int r = 0; r < MR; ++r) acc[r][v] = acc[r][v] + bv;
        }
    for (int r = 0; r < MR; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v].store_unaligned(C + r * ldc + v * W);
}

// Ap[s][k][r] = A[(s·MR + r)·lda + k] for the mc × kc block: slivers of MR rows, k-major; rows past mc are 0.
template <int MR>
void pack_a(const float* A, int64_t lda, int64_t mc, int64_t kc, float* Ap) {
    for (int64_t s = 0; s * MR < mc; ++s) {
        float* out = Ap + s * kc * MR;
        for (int r = 0; r < MR; ++r) {
            const int64_t row = s * MR + r;
            if (row < mc) {
                const float* a = A + row * lda;
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * MR + r] = a[k];
            } else {
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * MR + r] = 0.0f;
            }
        }
    }
}

// Bp[p][k][c] = B[k·rsb + (p·NR + c)·csb] for the kc × nc block: panels of NR columns; columns past nc are 0.
template <int64_t NR>
void pack_b(const float* B, int64_t rsb, int64_t csb, int64_t kc, int64_t nc, float* Bp) {
    for (int64_t p = 0; p * NR < nc; ++p) {
        float* out = Bp + p * kc * NR;
        const int64_t cols = min_i64(NR, nc - p * NR);
        const float* b = B + p * NR * csb;
        if (csb == 1) {  // rows of B are contiguous
            for (int64_t k = 0; k < kc; ++k) {
                for (int64_t c = 0; c < cols; ++c) out[k * NR + c] = b[k * rsb + c];
                for (int64_t c = cols; c < NR; ++c) out[k * NR + c] = 0.0f;
            }
        } else {  // columns of B are contiguous when rsb = 1 (a transposed weight): read along them
            for (int64_t c = 0; c < cols; ++c) {
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * NR + c] = b[k * rsb + c * csb];
            }
            for (int64_t c = cols; c < NR; ++c) {
                ATTN_SCALAR_LOOP
                for (int64_t k = 0; k < kc; ++k) out[k * NR + c] = 0.0f;
            }
        }
    }
}

// Below this many multiply-adds (or with too few rows to fill the register block), packing costs more
// than it saves: the small driver runs instead. The bits are the same either way.
constexpr int64_t kPackedMinWork = int64_t{1} << 18;

template <class Arch, bool Fused = false>
void gemm(const float* A, int64_t lda, const float* B, int64_t rsb, int64_t csb, const float* bias, float* C,
          int64_t ldc, int64_t M, int64_t N, int64_t K) {
    using Bk = Blocking<Arch>;
    using CB = CacheBlocks;
    constexpr int MR = Bk::MR;
    constexpr int64_t W = Vec<Arch>::size, NR = Bk::NV * W;
    if (M == 0 || N == 0) return;

    if (K == 0 || (!Fused && csb == 1 && (M < 2 * MR || N < NR || M * N * K < kPackedMinWork))) {
        matmul_small<Arch>(A, lda, B, rsb, C, ldc, M, N, K, false);
        if (bias) {
            for (int64_t i = 0; i < M; ++i) binary<Arch>(Binary::Add, C + i * ldc, bias, C + i * ldc, N);
        }
        return;
    }

    // Packing buffers (the B panels are loaded aligned).
    Scratch buffer(CB::KC * (CB::NC + CB::MC) + MR * NR + NR);
    float* Bp = buffer.data();
    float* Ap = Bp + CB::KC * CB::NC;
    float* tile = Ap + CB::KC * CB::MC;  // an edge block, MR × NR
    float* tile_bias = tile + MR * NR;

    for (int64_t jc = 0; jc < N; jc += CB::NC) {
        const int64_t nc = min_i64(CB::NC, N - jc);
        for (int64_t pc = 0; pc < K; pc += CB::KC) {
            const int64_t kc = min_i64(CB::KC, K - pc);
            const bool first = pc == 0, last = pc + kc == K;
            pack_b<NR>(B + pc * rsb + jc * csb, rsb, csb, kc, nc, Bp);
            for (int64_t ic = 0; ic < M; ic += CB::MC) {
                const int64_t mc = min_i64(CB::MC, M - ic);
                pack_a<MR>(A + ic * lda + pc, lda, mc, kc, Ap);
                for (int64_t jr = 0; jr < nc; jr += NR) {
                    const int64_t nr = min_i64(NR, nc - jr);
                    const float* bias_j = last && bias ? bias + jc + jr : nullptr;
                    if (bias_j && nr < NR) {
                        for (int64_t c = 0; c < NR; ++c) tile_bias[c] = c < nr ? bias_j[c] : 0.0f;
                        bias_j = tile_bias;
                    }
                    const float* panel = Bp + (jr / NR) * kc * NR;
                    for (int64_t ir = 0; ir < mc; ir += MR) {
                        const int64_t mr = min_i64(MR, mc - ir);
                        float* c = C + (ic + ir) * ldc + jc + jr;
                        const float* sliver = Ap + (ir / MR) * kc * MR;
                        if (mr == MR && nr == NR) {
                            packed_kernel<Arch, MR, Bk::NV, Fused>(sliver, panel, kc, c, ldc, first, bias_j);
                            continue;
                        }
                        // An edge block runs whole on a copy; only its valid part goes back to C.
                        if (!first)
                            for (int64_t r = 0; r < mr; ++r)
                                for (int64_t x = 0; x < nr; ++x) tile[r * NR + x] = c[r * ldc + x];
                        packed_kernel<Arch, MR, Bk::NV, Fused>(sliver, panel, kc, tile, NR, first, bias_j);
                        for (int64_t r = 0; r < mr; ++r)
                            for (int64_t x = 0; x < nr; ++x) c[r * ldc + x] = tile[r * NR + x];
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------------
// The fast path: exp without FMA, and causal attention with an online softmax (reference.cpp defines both).

// exp_fast_ref, lane by lane (EXP's steps, each FMA a separate multiply and add), for the softmax's
// d = s − max ≤ 0 (or -inf, or NaN): no selects for d > 100 or NaN (a NaN d gives NaN either way).
template <class Arch>
ATTN_INLINE Vec<Arch> exp_fast_nonpositive(Vec<Arch> d) {
    using V = Vec<Arch>;
    using I = IVec<Arch>;
    const V R(bits_to_float(0x3fb8aa3b)), L2U(bits_to_float(0x3f317200)), L2L(bits_to_float(0x35bfbe8e));
    const V c5(bits_to_float(0x39502bda)), c4(bits_to_float(0x3ab696c9)), c3(bits_to_float(0x3c0888a6));
    const V c2(bits_to_float(0x3d2aaa7a)), c1(bits_to_float(0x3e2aaaab)), c0(bits_to_float(0x3f000000));

    const V q = xsimd::nearbyint(d * R);
    V s = d - q * L2U;
    s = s - q * L2L;
    V u = c5;
    u = u * s + c4;
    u = u * s + c3;
    u = u * s + c2;
    u = u * s + c1;
    u = u * s + c0;
    u = V(1.0f) + ((s * s) * u + s);

    // The exponent from integer shifts of q + 1.5·2^23, as in exp_vec: no float→int conversion.
    const I qi = xsimd::bitwise_cast<I>(q + V(12582912.0f)) - I(0x4b400000);
    const I h = qi >> 1;
    u = (u * xsimd::bitwise_cast<V>((h + I(127)) << 23)) * xsimd::bitwise_cast<V>((qi - h + I(127)) << 23);
    return xsimd::select(d < V(-104.0f), V(0.0f), u);  // exactly 0 below -104 (and for -inf)
}

// exp_fast_ref for any input: the non-positive form plus its overflow and NaN cases.
template <class Arch>
ATTN_INLINE Vec<Arch> exp_fast_vec(Vec<Arch> d) {
    using V = Vec<Arch>;
    const V u = xsimd::select(d > V(100.0f), V(bits_to_float(0x7f800000)), exp_fast_nonpositive(d));
    return xsimd::select(d != d, d + d, u);
}

// The end of tile_sum: 16 lanes held as 16/W vectors meet in the tree lane x += lane x + w, w = 8, 4, 2, 1;
// the steps inside one vector run on its stored lanes.
template <class Arch>
float lane_tree(Vec<Arch>* acc) {
    using V = Vec<Arch>;
    constexpr int64_t W = V::size;
    static_assert((kAttentionLanes / W) * W == kAttentionLanes, "16 lanes must be whole vectors");
    int64_t w = kAttentionLanes / 2;
    for (; w >= W; w /= 2)
        for (int64_t g = 0; g < w / W; ++g) acc[g] = acc[g] + acc[g + w / W];
    float lanes[W];
    acc[0].store_unaligned(lanes);
    for (; w >= 1; w /= 2)
        for (int64_t x = 0; x < w; ++x) lanes[x] = lanes[x] + lanes[x + w];
    return lanes[0];
}

// Causal attention of one head (kernels.hpp; the order is reference.cpp's). Per block of query rows and
// key tile: scores with the packed GEMM's register block against Kᵀ (keys in the lanes), then each row's
// online softmax step, then the context with the same block accumulating into the block's o. Fused: each
// term of both products is one FMA (attention_causal_fused).
//
// The operands are laid out the way packed_kernel streams them, so its k loop advances by constants (V8
// then unrolls it): the query block as slivers of MR rows, K and V per key tile as panels of NR columns,
// and the weights read in place (their row length, BC, is a constant). Keys past T and columns past d are
// zeros; the extra terms they add are +0·0 = +0, which leaves every running sum's bits as they were (o
// starts at +0 and is never −0).
template <class Arch, bool Fused = false>
void attention_causal(const float* q, int64_t ldq, const float* k, int64_t ldk, const float* v, int64_t ldv,
                      float* out, int64_t ldo, int64_t T, int64_t d, float scale) {
    using V = Vec<Arch>;
    using Bk = SmallBlocking<Arch>;
    constexpr int MR = Bk::MR;
    constexpr int64_t W = V::size, NR = Bk::NV * W, BR = kAttentionRows, BC = kAttentionKeys;
    static_assert(BC % NR == 0, "a key tile must be whole panels");
    constexpr int64_t BRP = (BR + MR - 1) / MR * MR;  // the query block padded to whole slivers
    const float neg_inf = bits_to_float(0xff800000);
    if (T <= 0 || d <= 0) return;

    const int64_t tiles = (T + BC - 1) / BC;
    const int64_t dp = (d + NR - 1) / NR * NR;  // o's row length: d padded to whole panels
    // Every part but the last is a whole number of 64-byte lines, so all of them stay aligned.
    Scratch buffer(BRP * BC + BRP * dp + tiles * BC * (d + dp) + BRP * d);
    float* s = buffer.data();  // the tile of scores, then of weights, as rows of BC (read in place by pass 3)
    float* o = s + BRP * BC;  // the block's running context, rows of dp
    float* kp = o + BRP * dp;  // per tile, Kᵀ as panels [BC/NR][d][NR]
    float* vp = kp + tiles * BC * d;  // per tile, V as panels [dp/NR][BC][NR]
    float* qp = vp + tiles * BC * dp;  // the query block packed as slivers [BRP/MR][d][MR]
    // Key by key (zeros past T): its column of Kᵀ panel j/NR, and its row of each V panel.
    for (int64_t j = 0; j < tiles * BC; ++j) {
        const bool real = j < T;
        float* kdst = kp + (j / NR) * NR * d + j % NR;
        ATTN_SCALAR_LOOP
        for (int64_t c = 0; c < d; ++c) kdst[c * NR] = real ? k[j * ldk + c] : 0.0f;
        float* vdst = vp + (j / BC) * BC * dp + (j % BC) * NR;
        for (int64_t c0 = 0; c0 < dp; c0 += NR, vdst += BC * NR) {
            const int64_t n = real ? min_i64(NR, d - c0) : 0;
            for (int64_t x = 0; x < n; ++x) vdst[x] = v[j * ldv + c0 + x];
            for (int64_t x = n; x < NR; ++x) vdst[x] = 0.0f;
        }
    }
    alignas(64) float m[BR], m_new[BR], alpha[BR];  // per row of the block: the max so far, the new one
    float l[BR];
    const V scale_v(scale), neg_inf_v(neg_inf);
    // x / scale is x · (1/scale), bit for bit, when scale is a power of two (head_dim 4, 16, 64, 256…): the
    // quotient and the product are the same real number, rounded once.
    const float inverse = 1.0f / scale;
    const bool divide = !(inverse * scale == 1.0f && (bits_of(scale) & 0x7fffffu) == 0);
    const V inverse_v(inverse);

    for (int64_t i0 = 0; i0 < T; i0 += BR) {
        const int64_t br = min_i64(BR, T - i0);
        const int64_t slivers = (br + MR - 1) / MR;
        pack_a<MR>(q + i0 * ldq, ldq, br, d, qp);
        for (int64_t x = 0; x < slivers * MR * dp; ++x) o[x] = 0.0f;
        for (int64_t r = 0; r < BR; ++r) {  // rows past br stay finite: their alphas are computed, never used
            m[r] = r < br ? neg_inf : 0.0f;
            m_new[r] = 0.0f;
            l[r] = 0.0f;
        }
        for (int64_t j0 = 0; j0 < i0 + br; j0 += BC) {
            const int64_t jn = min_i64(BC, T - j0);
            // pass 1: scores, s = (Q Kᵀ) / scale, then -inf above the diagonal and past T
            const float* ktile = kp + (j0 / BC) * BC * d;
            for (int64_t p = 0; p < BC / NR; ++p)
                for (int64_t x = 0; x < slivers; ++x)
                    packed_kernel<Arch, MR, Bk::NV, Fused>(qp + x * d * MR, ktile + p * d * NR, d,
                                                           s + x * MR * BC + p * NR, BC, true, nullptr);
            for (int64_t r = 0; r < br; ++r) {
                float* sr = s + r * BC;
                V row_max = neg_inf_v;
                for (int64_t t = 0; t < BC; t += W) {
                    const V x = divide ? V::load_aligned(sr + t) / scale_v : V::load_aligned(sr + t) * inverse_v;
                    x.store_aligned(sr + t);
                    row_max = xsimd::max(row_max, x);
                }
                const int64_t visible = min_i64(jn, i0 + r - j0 + 1);  // keys j ≤ i inside T
                if (visible < BC) {  // a tile on the diagonal, or the last one
                    for (int64_t t = visible < 0 ? 0 : visible; t < BC; ++t) sr[t] = neg_inf;
                    row_max = neg_inf_v;
                    for (int64_t t = 0; t < BC; t += W) row_max = xsimd::max(row_max, V::load_aligned(sr + t));
                }
                // the row max is exact whatever the order of its comparisons
                float lanes[W];
                row_max.store_unaligned(lanes);
                float tile_max = neg_inf;
                for (int64_t x_ = 0; x_ < W; ++x_) tile_max = lanes[x_] > tile_max ? lanes[x_] : tile_max;
                m_new[r] = tile_max > m[r] ? tile_max : m[r];
            }
            // pass 2: weights. First every row's alpha = E(m − m'), W rows at a time (1 while m' is -inf)...
            for (int64_t r = 0; r < br; r += W)
                exp_fast_vec<Arch>(V::load_aligned(m + r) - V::load_aligned(m_new + r)).store_aligned(alpha + r);
            for (int64_t r = 0; r < br; ++r) {
                float* sr = s + r * BC;
                if (m_new[r] == neg_inf) {
                    alpha[r] = 1.0f;
                    for (int64_t t = 0; t < BC; ++t) sr[t] = 0.0f;
                    l[r] = l[r] * alpha[r] + 0.0f;
                } else {
                    // ... then p = E(s − m'), summed as it is made into the tile's 16 lanes (tile_sum's order)
                    constexpr int64_t G = kAttentionLanes / W;
                    const V mv(m_new[r]);
                    V acc[G];
                    for (int64_t t = 0; t < BC; t += W) {
                        const V p = exp_fast_nonpositive<Arch>(V::load_aligned(sr + t) - mv);
                        p.store_aligned(sr + t);
                        const int64_t g = (t / W) % G;
                        acc[g] = t < kAttentionLanes ? p : acc[g] + p;
                    }
                    l[r] = l[r] * alpha[r] + lane_tree<Arch>(acc);
                }
                m[r] = m_new[r];
                // pass 3, first half: o = o · alpha (o · 1 is o: nothing to do)
                if (alpha[r] != 1.0f) {
                    float* orow = o + r * dp;
                    const V av(alpha[r]);
                    for (int64_t c = 0; c < dp; c += W) (V::load_aligned(orow + c) * av).store_aligned(orow + c);
                }
            }
            // pass 3: o += P · V over the tile's keys, in order (P's rows read in place: rows past br hold
            // the +0 scores of zero queries)
            const float* vtile = vp + (j0 / BC) * BC * dp;
            for (int64_t p = 0; p < dp / NR; ++p)
                for (int64_t x = 0; x < slivers; ++x)
                    packed_kernel<Arch, MR, Bk::NV, Fused, BC, 1>(s + x * MR * BC, vtile + p * BC * NR, BC,
                                                                  o + x * MR * dp + p * NR, dp, false, nullptr);
        }
        for (int64_t r = 0; r < br; ++r) {
            const float* orow = o + r * dp;
            float* dst = out + (i0 + r) * ldo;
            const V lv(l[r]);
            int64_t c = 0;
            for (; c + W <= d; c += W) (V::load_aligned(orow + c) / lv).store_unaligned(dst + c);
            for (; c < d; ++c) dst[c] = orow[c] / l[r];
        }
    }
}

// ---------------------------------------------------------------------------------------------------

// Whether gemm_fused exists for an arch: only with a real FMA instruction.
template <class Arch>
struct HasFma {
    static constexpr bool value = false;
};
#if XSIMD_WITH_FMA3_AVX2
template <>
struct HasFma<xsimd::fma3<xsimd::avx2>> {
    static constexpr bool value = true;
};
#endif
#if XSIMD_WITH_AVX512F
template <>
struct HasFma<xsimd::avx512f> {
    static constexpr bool value = true;
};
#endif

template <class Arch>
constexpr auto gemm_fused_of() {
    using Gemm = void (*)(const float*, int64_t, const float*, int64_t, int64_t, const float*, float*, int64_t,
                          int64_t, int64_t, int64_t);
    if constexpr (HasFma<Arch>::value) return static_cast<Gemm>(&gemm<Arch, true>);
    else return static_cast<Gemm>(nullptr);
}

template <class Arch>
constexpr auto attention_causal_fused_of() {
    using Attention = void (*)(const float*, int64_t, const float*, int64_t, const float*, int64_t, float*, int64_t,
                               int64_t, int64_t, float);
    if constexpr (HasFma<Arch>::value) return static_cast<Attention>(&attention_causal<Arch, true>);
    else return static_cast<Attention>(nullptr);
}

template <class Arch>
Table make_table(const char* name) {
    return Table{name,
                 &matmul<Arch>,
                 &gemm<Arch>,
                 gemm_fused_of<Arch>(),
                 &attention_causal<Arch>,
                 attention_causal_fused_of<Arch>(),
                 &softmax_rows<Arch>,
                 &exp<Arch>,
                 &binary<Arch>,
                 &binary_scalar<Arch>,
                 &masked_fill<Arch>};
}

}  // namespace
}  // namespace attn::kernels
