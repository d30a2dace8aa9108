#pragma once
// Small helpers shared by the native tests: float bits, hex lists, masks, kernel comparisons.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "attn/tensor.hpp"
#include "bits.hpp"
#include "kernels/kernels.hpp"

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

// One float's bit pattern as 8 hex digits.
inline std::string hex(float f) {
    char text[16];
    std::snprintf(text, sizeof text, "%08x", static_cast<unsigned>(bits(f)));
    return text;
}

// The same float, bit for bit. Any NaN matches any NaN: NaN bits are no part of the contract (IEEE leaves
// them open, compilers swap the operands of * and +, and wasm may canonicalise them).
inline bool same(float a, float b) { return bits(a) == bits(b) || (std::isnan(a) && std::isnan(b)); }

// "" when both hold the same floats, else where and how they first differ (Catch prints it on failure).
inline std::string difference(const std::vector<float>& expected, const std::vector<float>& got) {
    if (expected.size() != got.size()) return "sizes differ";
    for (size_t i = 0; i < expected.size(); ++i)
        if (!same(expected[i], got[i]))
            return "at " + std::to_string(i) + ": expected " + hex(expected[i]) + ", got " + hex(got[i]);
    return "";
}

// Every SIMD table this build has and this CPU runs (the reference is what they are compared with).
inline std::vector<const attn::kernels::Table*> simd_tables() {
    auto tables = attn::kernels::available();
    tables.erase(tables.begin());
    return tables;
}

// n draws of N(0, sigma²).
inline std::vector<float> normal(std::mt19937& rng, size_t n, float sigma = 1.0f) {
    std::normal_distribution<float> dist(0.0f, sigma);
    std::vector<float> v(n);
    for (float& x : v) x = dist(rng);
    return v;
}

}  // namespace test
