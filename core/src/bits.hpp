#pragma once
// A float by its bit pattern and back: the numerics specs give their constants as hex bits.
#include <cstdint>
#include <cstring>

namespace attn {

inline float float_from_bits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

inline uint32_t bits_of(float f) {
    uint32_t bits;
    std::memcpy(&bits, &f, sizeof bits);
    return bits;
}

}  // namespace attn
