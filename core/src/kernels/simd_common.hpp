#pragma once
// What every simd_*.hpp kernel header shares (these headers are the only code that names xsimd): an
// arch's vectors, its fused multiply-add Fma (declared here, defined by each simd_<arch>.cpp), small
// helpers and aligned scratch memory.
//
// Every kernel gives exactly the bits of its scalar reference (reference.cpp): SIMD lanes hold
// independent outputs (columns, elements), and each output keeps the reference's order of operations.
// Tails that do not fill a vector run the reference's scalar steps (EXP: the lane code on a padded vector).
#include <xsimd/xsimd.hpp>

#include <cstring>

#include "kernels.hpp"

namespace attn::kernels {
// Internal linkage on purpose: each simd_<arch>.cpp compiles these templates with different -m flags, and
// the linker must never pick one file's copy (say, with AVX-512 encodings) for another file's table.
namespace {

template <class Arch>
using Vec = xsimd::batch<float, Arch>;
template <class Arch>
using IVec = xsimd::batch<int32_t, Arch>;

// Strided copies left to the compiler stay scalar: clang's vectorizer builds their addresses in i64x2 vectors
// and takes each lane out again (extract_lane), which in wasm is slower than plain loads and stores. (The
// packing's copies are vectorised by hand instead: transpose_4x4 in simd_gemm.hpp.)
#if defined(__clang__)
#define ATTN_SCALAR_LOOP _Pragma("clang loop vectorize(disable)")
#else
#define ATTN_SCALAR_LOOP
#endif

// Small vector functions called once per vector inside the attention's loops: a call there costs more than
// the body (GCC would keep exp_fast_nonpositive out of line, passing its 512-bit argument through memory).
#define ATTN_INLINE inline __attribute__((always_inline))

// No std:: functions that compile to code (std::max, std::isnan, numeric_limits…) in the simd_*.hpp headers:
// unoptimised, their out-of-line copies are shared by every file of the program, and the linker may keep the
// one built with a simd_<arch>.cpp's -m flags (AVX-512, say).
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

// Fma<Arch>: the arch's fused multiply-add, fma(a, b, c) = a·b + c rounded once, defined by simd_<arch>.cpp
// with the real instruction or an emulation. exact() is false when an emulated FMA could not promise one
// rounding (EXP then redoes those lanes with exp_ref); `hardware` says whether the CPU has the instruction,
// and with it the fused kernels (gemm_fused, attention_causal_fused).
template <class Arch>
struct Fma;

// Scratch floats for one call, 64-byte aligned. A class of these headers (internal linkage) rather than
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

}  // namespace
}  // namespace attn::kernels
