// PyTorch's CPU random numbers, following shared/docs/torch-rng.md section by section.
// Compiled with -ffp-contract=off: every fused multiply-add below is an explicit std::fma.
#include "attn/generator.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "attn/error.hpp"
#include "attn/tensor.hpp"
#include "bits.hpp"

namespace attn {

const char* rng_profile_name(RngProfile profile) { return profile == RngProfile::Mkl ? "mkl" : "default"; }

// ---------------------------------------------------------------- §1 engine and seeding

void Generator::manual_seed(uint64_t seed) {
    seed_ = seed;
    engine_.seed(static_cast<uint32_t>(seed & 0xffffffffu));  // only the low 32 bits seed MT19937
    normal_spare.reset();
    draws_ = 0;
}

uint32_t Generator::random() {
    ++draws_;
    return static_cast<uint32_t>(engine_());
}

uint64_t Generator::random64() {
    const uint64_t high = random();
    const uint64_t low = random();
    return (high << 32) | low;
}

// ---------------------------------------------------------------- §2 uniforms

float Generator::uniform_float() { return static_cast<float>(random() & 0xFFFFFFu) * 0x1p-24f; }

double Generator::uniform_double() {
    return static_cast<double>(random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
}

Generator& default_generator() {
    // Like a fresh PyTorch process: a non-deterministic seed until manual_seed is called.
    static Generator gen([] {
        std::random_device device;
        return (static_cast<uint64_t>(device()) << 32) | device();
    }());
    return gen;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }
uint64_t initial_seed() { return default_generator().initial_seed(); }
void set_rng_profile(RngProfile profile) { default_generator().profile = profile; }
RngProfile rng_profile() { return default_generator().profile; }
uint64_t rng_draws() { return default_generator().draws(); }

// ---------------------------------------------------------------- fills

namespace {

// Writes values, in the order they were drawn, into t's elements in the order they lie in memory (as
// PyTorch's TensorIterator walks a tensor it fills: a transposed tensor is filled along its storage).
void write_in_memory_order(Tensor& t, std::vector<float> drawn) {
    if (!t.is_contiguous()) {
        const Shape& shape = t.shape();
        const Shape& strides = t.strides();
        std::vector<int64_t> offsets(drawn.size());
        std::vector<int64_t> index(shape.size(), 0);
        for (size_t i = 0; i < offsets.size(); ++i) {  // each element's offset, in row-major order
            int64_t offset = 0;
            for (size_t d = 0; d < shape.size(); ++d) offset += index[d] * strides[d];
            offsets[i] = offset;
            for (size_t d = shape.size(); d-- > 0;) {
                if (++index[d] < shape[d]) break;
                index[d] = 0;
            }
        }
        std::vector<size_t> by_offset(drawn.size());
        for (size_t i = 0; i < by_offset.size(); ++i) by_offset[i] = i;
        std::stable_sort(by_offset.begin(), by_offset.end(), [&](size_t a, size_t b) { return offsets[a] < offsets[b]; });
        std::vector<float> row_major(drawn.size());
        for (size_t k = 0; k < by_offset.size(); ++k) row_major[by_offset[k]] = drawn[k];
        drawn = std::move(row_major);
    }
    t.copy_(Tensor::from_vector(t.shape(), std::move(drawn)));
}

template <class Next>
void fill_in_order(Tensor& t, Next&& next) {
    std::vector<float> values(static_cast<size_t>(t.numel()));
    for (float& v : values) v = next();
    write_in_memory_order(t, std::move(values));
}

}  // namespace

void fill_rand(Tensor& t, Generator& gen) {
    fill_in_order(t, [&] { return gen.uniform_float(); });
}

// §3: from/to rounded to float, then fmaf(U, to - from, from) per element.
void fill_uniform(Tensor& t, double from, double to, Generator& gen) {
    const float lo = static_cast<float>(from), hi = static_cast<float>(to);
    const float range = hi - lo;
    fill_in_order(t, [&] { return std::fma(gen.uniform_float(), range, lo); });
}

// ---------------------------------------------------------------- §5b the AVX2 normal path

namespace {

// Cephes-style log256_ps (avx_mathfun.h) for one lane, x in (0, 1].
float log_avx2(float x) {
    static const float p[9] = {float_from_bits(0x3d9021bb), float_from_bits(0xbdebd1b8), float_from_bits(0x3def251a),
                               float_from_bits(0xbdfe5d4f), float_from_bits(0x3e11e9bf), float_from_bits(0xbe2aae50),
                               float_from_bits(0x3e4cceac), float_from_bits(0xbe7ffffc), float_from_bits(0x3eaaaaaa)};
    const float sqrthf = float_from_bits(0x3f3504f3), q1 = float_from_bits(0xb95e8083), q2 = float_from_bits(0x3f318000);
    const uint32_t bits = bits_of(x);
    float e = static_cast<float>(static_cast<int32_t>(bits >> 23) - 127) + 1.0f;
    const float m = float_from_bits((bits & 0x807FFFFFu) | 0x3F000000u);  // mantissa in [0.5, 1)
    float v = m - 1.0f;
    if (m < sqrthf) {
        e = e - 1.0f;
        v = v + m;
    }
    const float z = v * v;
    float y = p[0];
    for (int k = 1; k <= 8; ++k) y = std::fma(y, v, p[k]);
    y = y * v;
    y = std::fma(y, z, e * q1);
    y = y - z * 0.5f;
    return std::fma(e, q2, v + y);
}

// Cephes-style sincos256_ps for one lane, t >= 0.
void sincos_avx2(float t, float& sin_out, float& cos_out) {
    const float fopi = float_from_bits(0x3fa2f983), dp1 = float_from_bits(0xbf490000), dp2 = float_from_bits(0xb97da000),
                dp3 = float_from_bits(0xb3222169);
    const float s0 = float_from_bits(0xb94ca1f9), s1 = float_from_bits(0x3c08839e), s2 = float_from_bits(0xbe2aaaa3);
    const float c0 = float_from_bits(0x37ccf5ce), c1 = float_from_bits(0xbab6061a), c2 = float_from_bits(0x3d2aaaa5);
    int32_t j = static_cast<int32_t>(std::trunc(t * fopi));
    j = (j + 1) & ~1;
    const float yf = static_cast<float>(j);
    float x = std::fma(yf, dp1, t);
    x = std::fma(yf, dp2, x);
    x = std::fma(yf, dp3, x);
    const float z = x * x;
    float c = std::fma(std::fma(c0, z, c1), z, c2);
    c = c * z;
    c = std::fma(c, z, -(z * 0.5f));
    c = c + 1.0f;
    float s = std::fma(std::fma(s0, z, s1), z, s2);
    s = s * z;
    s = std::fma(s, x, x);
    float sin_v = (j & 2) == 0 ? s : c;
    float cos_v = (j & 2) == 0 ? c : s;
    if (j & 4) sin_v = -sin_v;
    if ((~(j - 2)) & 4) cos_v = -cos_v;
    sin_out = sin_v;
    cos_out = cos_v;
}

}  // namespace

void normal_block16(float* d) {
    for (int j = 0; j < 8; ++j) {
        const float u1 = 1.0f - d[j];
        const float u2 = d[j + 8];
        const float radius = std::sqrt(-2.0f * log_avx2(u1));
        const float theta = 6.2831855f * u2;  // 0x40C90FDB
        float s, c;
        sincos_avx2(theta, s, c);
        d[j] = radius * c;
        d[j + 8] = radius * s;
    }
}

void fill_randn(Tensor& t, Generator& gen) { fill_normal(t, 0.0, 1.0, gen); }

void fill_normal(Tensor& t, double mean, double std, Generator& gen) {
    const int64_t n = t.numel();
    std::vector<float> out(static_cast<size_t>(n));
    if (n >= 16 && t.is_contiguous()) {
        // §5b: n uniforms, transformed in blocks of 16; a ragged end redraws its last full block.
        for (float& v : out) v = gen.uniform_float();
        for (int64_t i = 0; i + 16 <= n; i += 16) normal_block16(&out[static_cast<size_t>(i)]);
        if (n % 16 != 0) {
            float* last = &out[static_cast<size_t>(n - 16)];
            for (int k = 0; k < 16; ++k) last[k] = gen.uniform_float();
            normal_block16(last);
        }
        const float mean_f = static_cast<float>(mean), std_f = static_cast<float>(std);
        for (float& v : out) v = std::fma(v, std_f, mean_f);  // the kernel's _mm256_fmadd_ps
    } else {
        // §5a: double Box-Muller, one value kept as the generator's spare; val * std + mean in double.
        for (float& v : out) {
            double normal;
            if (gen.normal_spare) {
                normal = *gen.normal_spare;
                gen.normal_spare.reset();
            } else {
                const double u1 = gen.uniform_double();
                const double u2 = gen.uniform_double();
                const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
                const double theta = 2.0 * M_PI * u1;
                gen.normal_spare = r * std::sin(theta);
                normal = r * std::cos(theta);
            }
            v = static_cast<float>(std::fma(normal, std, mean));
        }
    }
    write_in_memory_order(t, std::move(out));
}

// ---------------------------------------------------------------- Tensor.uniform_ and Tensor.normal_

namespace {

// A double as PyTorch's C++ messages print it (ostream's default: 6 significant digits).
std::string number_text(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

// The fills take float32 tensors; others are refused with PyTorch's message for the dtypes it refuses too.
void check_float32(const Tensor& t, const char* op, const char* kernel) {
    if (t.dtype() == DType::Float32) return;
    const std::string name = dtype_name(t.dtype());
    if (name == "bool") throw Error(std::string("\"") + kernel + "\" not implemented for 'Bool'");
    if (name == "int64") throw Error(std::string("\"") + kernel + "\" not implemented for 'Long'");
    throw Error(std::string(op) + ": fills float32 tensors only, got " + name);
}

}  // namespace

Tensor& uniform_(Tensor& t, double from, double to, Generator& gen) {
    check_float32(t, "uniform_", "check_uniform_bounds");
    const double lowest = std::numeric_limits<float>::lowest(), highest = std::numeric_limits<float>::max();
    if (!(from >= lowest && from <= highest)) throw Error("from is out of bounds for float");
    if (!(to >= lowest && to <= highest)) throw Error("to is out of bounds for float");
    if (from > to)
        throw Error("uniform_ expects to return a [from, to) range, but found from=" + number_text(from) +
                    " > to=" + number_text(to));
    if (to - from > highest)
        throw Error("uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found to=" + number_text(to) +
                    " and from=" + number_text(from) + " which result in to-from to exceed the limit");
    fill_uniform(t, from, to, gen);
    return t;
}

Tensor& normal_(Tensor& t, double mean, double std, Generator& gen) {
    check_float32(t, "normal_", "normal_kernel_cpu");
    if (!(std >= 0.0)) throw Error("normal expects std >= 0.0, but found std " + number_text(std));
    fill_normal(t, mean, std, gen);
    return t;
}

// ---------------------------------------------------------------- §6 dropout masks

std::vector<bool> bernoulli_keep_mask(int64_t n, double p, Generator& gen) {
    std::vector<bool> keep(static_cast<size_t>(n));
    const double keep_prob = 1.0 - p;
    if (gen.profile == RngProfile::Default) {
        for (int64_t i = 0; i < n; ++i) keep[static_cast<size_t>(i)] = gen.uniform_double() < keep_prob;
        return keep;
    }
    // MKL's VSL_BRNG_MCG31 stream, seeded by one draw; element 0 uses x_0 itself.
    constexpr uint64_t m = 2147483647u, a = 1132489760u;
    uint64_t x = gen.random() % m;
    if (x == 0) x = 1;
    for (int64_t i = 0; i < n; ++i) {
        keep[static_cast<size_t>(i)] = static_cast<double>(x) / static_cast<double>(m) < keep_prob;
        x = (a * x) % m;
    }
    return keep;
}

}  // namespace attn
