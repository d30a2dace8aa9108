#pragma once
// Small helpers shared by the native tests: float bits, hex lists, masks.
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "bits.hpp"

namespace test {

inline uint32_t bits(float f) { return attn::bits_of(f); }
inline float from_bits(uint32_t b) { return attn::float_from_bits(b); }

// "3f800000 bf000000" -> bit patterns
inline std::vector<uint32_t> parse_hex(const std::string& text) {
    std::istringstream in(text);
    std::vector<uint32_t> out;
    std::string word;
    while (in >> word) out.push_back(static_cast<uint32_t>(std::stoul(word, nullptr, 16)));
    return out;
}

// The bit patterns of a tensor's values, row-major.
inline std::vector<uint32_t> tensor_bits(const attn::Tensor& t) {
    std::vector<uint32_t> out;
    for (float v : t.to_vector()) out.push_back(bits(v));
    return out;
}

inline std::string hex_list(const std::vector<uint32_t>& b) {
    std::ostringstream out;
    for (size_t i = 0; i < b.size(); ++i) {
        char buf[12];
        std::snprintf(buf, sizeof buf, "%s%08x", i ? " " : "", b[i]);
        out << buf;
    }
    return out.str();
}

// Every value rounded to `decimals` places, as printed; compares against a printed row.
inline std::vector<std::string> rounded(const attn::Tensor& t, int decimals = 4) {
    std::vector<std::string> out;
    for (float v : t.to_vector()) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.*f", decimals, static_cast<double>(v));
        out.push_back(buf);
    }
    return out;
}

}  // namespace test
