// The SSE4.1 kernel table (built with -msse4.1), and under Emscripten the wasm SIMD128 one: the same source
// built with -msimd128 -msse4.1, whose SSE intrinsics Emscripten maps onto wasm SIMD. Its choices: an FMA
// emulated in double (neither has the instruction) and register blocks for 16 registers of 4 lanes.
#include "simd_table.hpp"

namespace attn::kernels {
namespace {

using Sse41 = xsimd::sse4_1;

// SSE4.1 and wasm SIMD have no FMA: compute it in double, two lanes at a time. a·b is exact in double
// (24 + 24 bits), so c + a·b is rounded once to double, then once more to float. That second rounding
// is wrong only when the double lands exactly on a midpoint between two floats (low 29 bits 1000…0):
// such lanes are flagged (a few per million, most of them exact sums), and EXP redoes them with exp_ref.
// (EXP's FMA results are never float subnormals, whose midpoints lie elsewhere; an exhaustive test over all
// 2^32 inputs checks the whole of EXP.)
template <>
struct Fma<Sse41> {
    static constexpr bool hardware = false;  // so no gemm_fused or attention_causal_fused
    using V = Vec<Sse41>;
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

template <>
struct Blocking<Sse41> {  // 16 registers of 4 lanes (V8 keeps one): 8 accumulators
    static constexpr int MR = 4;
    static constexpr int NV = 2;
};

}  // namespace

const Table& table_sse41() {
#ifdef __EMSCRIPTEN__
    static const Table table = make_table<Sse41>("wasm-simd128");
#else
    static const Table table = make_table<Sse41>("sse4.1");
#endif
    return table;
}

}  // namespace attn::kernels
