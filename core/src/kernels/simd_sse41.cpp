// The SSE4.1 kernel table (built with -msse4.1). Under Emscripten the same source, built with
// -msimd128 -msse4.1, becomes the wasm SIMD table: Emscripten maps these SSE intrinsics onto wasm SIMD.
#include "simd.hpp"

namespace attn::kernels {

const Table& table_sse41() {
#ifdef __EMSCRIPTEN__
    static const Table table = make_table<xsimd::sse4_1>("wasm-simd128");
#else
    static const Table table = make_table<xsimd::sse4_1>("sse4.1");
#endif
    return table;
}

}  // namespace attn::kernels
