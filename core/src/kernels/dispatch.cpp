// Which kernel tables this program can run, and the one it uses. Built without -m flags: nothing here may
// run a SIMD table's code (not even its table function) before the CPU is known to support it.
#include "kernels/kernels.hpp"

#if !defined(__EMSCRIPTEN__) && \
    (defined(ATTN_KERNEL_SSE41) || defined(ATTN_KERNEL_AVX2) || defined(ATTN_KERNEL_AVX512))
#define ATTN_KERNEL_CPUID 1
#include <xsimd/xsimd.hpp>  // only for xsimd::available_architectures (cpuid)
#endif

namespace attn::kernels {

// Defined in simd_<arch>.cpp, each built for its own instruction set.
#ifdef ATTN_KERNEL_SSE41
const Table& table_sse41();
#endif
#ifdef ATTN_KERNEL_AVX2
const Table& table_avx2();
#endif
#ifdef ATTN_KERNEL_AVX512
const Table& table_avx512();
#endif

std::vector<const Table*> available() {
    std::vector<const Table*> tables{&reference()};  // narrowest to widest
#ifdef ATTN_KERNEL_CPUID
    const auto cpu = xsimd::available_architectures();
#endif
#ifdef ATTN_KERNEL_SSE41
#ifdef __EMSCRIPTEN__
    tables.push_back(&table_sse41());  // wasm SIMD: the engine validated the module, so it runs it
#else
    if (cpu.sse4_1) tables.push_back(&table_sse41());
#endif
#endif
#ifdef ATTN_KERNEL_AVX2
    // GCC's check also asks the OS (xgetbv) whether the wide registers are enabled; xsimd's does not.
    if (cpu.fma3_avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        tables.push_back(&table_avx2());
#endif
#ifdef ATTN_KERNEL_AVX512
    if (cpu.avx512f && __builtin_cpu_supports("avx512f")) tables.push_back(&table_avx512());
#endif
    return tables;
}

const Table& active() {
    static const Table& table = *available().back();
    return table;
}

}  // namespace attn::kernels
