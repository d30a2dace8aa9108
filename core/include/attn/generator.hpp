#pragma once
// PyTorch's default CPU generator, bit for bit (shared/docs/torch-rng.md): MT19937 seeded from the low
// 32 bits of the seed, float and double uniforms, the cached normal spare, and the two dropout paths.
#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace attn {

// Which PyTorch build's dropout masks to reproduce.
//   Default: builds without MKL (the book's printouts): one double uniform (2 draws) per element.
//   Mkl:     Intel-MKL builds on Intel CPUs: one draw seeds an MCG31 stream for the whole mask.
enum class RngProfile { Default, Mkl };

// "default" | "mkl": the names the JS API takes (the bindings register these, and nothing else).
const char* rng_profile_name(RngProfile profile);

class Generator {
public:
    // PyTorch's default seed for a fresh process's CPU generator.
    static constexpr uint64_t kDefaultSeed = 67280421310721ULL;

    explicit Generator(uint64_t seed = kDefaultSeed) { manual_seed(seed); }

    // Like torch.manual_seed: any 64-bit value (a negative seed arrives as its two's complement);
    // only the low 32 bits reach the engine. Clears the normal spare and the draw counter.
    void manual_seed(uint64_t seed);
    uint64_t initial_seed() const { return seed_; }

    uint32_t random();    // one tempered 32-bit word: one draw
    uint64_t random64();  // two draws, the first is the high word
    float uniform_float();    // (w & 0xFFFFFF) * 2^-24, one draw
    double uniform_double();  // (random64() & (2^53-1)) * 2^-53, two draws

    // 32-bit words consumed since the last manual_seed.
    uint64_t draws() const { return draws_; }

    // The cached second value of the < 16-element Box-Muller path (torch-rng.md §5a).
    std::optional<double> normal_spare;

    RngProfile profile = RngProfile::Default;

private:
    std::mt19937 engine_;
    uint64_t seed_ = kDefaultSeed;
    uint64_t draws_ = 0;
};

// The process-wide generator that torch.manual_seed, torch.rand, nn.Linear, ... use.
Generator& default_generator();
void manual_seed(uint64_t seed);
inline void manual_seed(int64_t seed) { manual_seed(static_cast<uint64_t>(seed)); }
inline void manual_seed(int seed) { manual_seed(static_cast<uint64_t>(static_cast<int64_t>(seed))); }
// torch.initial_seed(), and the default generator's profile and draw counter.
uint64_t initial_seed();
void set_rng_profile(RngProfile profile);
RngProfile rng_profile();
uint64_t rng_draws();

class Tensor;

// Fills in row-major order, consuming draws as PyTorch does (torch-rng.md §2-§6).
void fill_rand(Tensor& t, Generator& gen);                         // torch.rand
void fill_uniform(Tensor& t, double from, double to, Generator& gen);  // Tensor.uniform_(from, to)
void fill_randn(Tensor& t, Generator& gen);                        // torch.randn
// torch.randn's streams with mean and std applied as PyTorch's normal_ applies them (fma in float for the
// >= 16 contiguous path, in double for the other).
void fill_normal(Tensor& t, double mean, double std, Generator& gen);

// Tensor.uniform_(from, to) and Tensor.normal_(mean, std): float32 tensors only, arguments checked with
// PyTorch's messages; they fill t in place and return it.
Tensor& uniform_(Tensor& t, double from, double to, Generator& gen = default_generator());
Tensor& normal_(Tensor& t, double mean, double std, Generator& gen = default_generator());
// Dropout's keep mask for n elements with drop probability p (0 < p < 1), per gen.profile.
std::vector<bool> bernoulli_keep_mask(int64_t n, double p, Generator& gen);

// The float32 normal transform of one 16-value block (AVX2 path, §5b), exposed for tests.
void normal_block16(float* d);

}  // namespace attn
