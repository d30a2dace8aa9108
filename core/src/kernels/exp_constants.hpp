#pragma once
// EXP's constants, SLEEF's expf_u10 (torch-numerics.md §2.1), by their bit patterns as the spec gives
// them: written once for the scalar references (exp_ref, exp_fast_ref in reference.cpp) and the SIMD
// lanes (simd_exp.hpp).
#include <cstdint>

namespace attn::kernels::exp_constants {

inline constexpr uint32_t kInvLn2 = 0x3fb8aa3b;    // 1/ln 2
inline constexpr uint32_t kLn2Upper = 0x3f317200;  // ln 2, upper bits: q·kLn2Upper is exact for |q| ≤ 151
inline constexpr uint32_t kLn2Lower = 0x35bfbe8e;  // ln 2, lower bits

// e^s ≈ 1 + s + s²·(c0 + c1·s + … + c5·s⁵), coefficients c0 … c5.
inline constexpr uint32_t kPoly[6] = {0x3f000000, 0x3e2aaaab, 0x3d2aaa7a, 0x3c0888a6, 0x3ab696c9, 0x39502bda};

// Outside [kUnderflowBelow, kOverflowAbove] EXP is 0 or infinity without computing.
inline constexpr float kUnderflowBelow = -104.0f;
inline constexpr float kOverflowAbove = 100.0f;

}  // namespace attn::kernels::exp_constants
