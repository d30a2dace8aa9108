// PyTorch's CPU generator: the test vectors of shared/docs/torch-rng.md §10 and the draw counts of §7.
#include <catch2/catch.hpp>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "support.hpp"

using namespace attn;
using test::hex_list;
using test::parse_hex;
using test::tensor_bits;

namespace {

struct SeedVectors {
    uint64_t seed;
    const char* raw3;
    const char* rand4;
    const char* uniform4;
    const char* linear_w0;
    const char* linear_b;
    const char* randn5_4;
    const char* randn17_0_1_15_16;
    const char* default_mask;
    const char* mkl_mask;  // nullptr where the spec gives none
};

// torch-rng.md §10, row by row.
const SeedVectors kVectors[] = {
    {0, "8c7f0aac 97c4aa2f b716a675", "3efe1558 3f44aa2f 3db533a8 3e073300", "bbf55400 3f09545e bf52b316 bf3c6680",
     "bb755400 3e89545e bed2b316 bebc6680", "bef491b8 bea98b52 be530ee8", "3fc53f5c be963c50 c00b7149 3f1184b6",
     "bf901b85 bfd91446 bf57fb33 3f6e8c30", "001000 110111 101111 001010 100001 001110",
     "100110 011110 011101 000011 111000 010110"},
    {42, "5fe1dc66 cbea3db3 f362035c", "3f61dc66 3f6a3db3 3ec406b8 3f75950e", "3f43b8cc 3f547b66 be6fe520 3f6b2a1c",
     "3ec3b8cc 3ed47b66 bdefe520 3eeb2a1c", "3ebd2294 3d8aae50 3e76e15c", "3eac62ae 3e03e69d 3e7016e7 3e6bdc6c",
     "3ff6a529 be236d85 3f5c1fb0 be9e9482", "111101 001111 001010 011011 110111 111100",
     "001111 101010 001110 110101 101111 111010"},
    {123, "b24bcdfe b6843d6d 49406d7e", "3e979bfc 3f043d6d 3e80dafc 3f304542", "bed0c808 3d07ada0 befe4a08 3ec11508",
     "be50c808 3c87ada0 be7e4a08 3e411508", "bed94654 be9b523e be3bfe80", "bde448df 3df680d9 bebd40bc be763021",
     "3eacbbc9 bf829ed3 c035c276 bf48ec26", "110110 000101 111101 011001 010101 011110", nullptr},
};

std::vector<uint32_t> first(const Tensor& t, size_t n) {
    auto b = tensor_bits(t);
    b.resize(n);
    return b;
}

// Dropout(0.5) on ones(6, 6) as a string of kept (1) / dropped (0) rows.
std::string dropout_mask(Generator& gen) {
    nn::Dropout dropout(0.5, gen);
    const Tensor out = dropout(ones({6, 6}));
    std::string mask;
    const auto v = out.to_vector();
    for (size_t i = 0; i < v.size(); ++i) {
        if (i && i % 6 == 0) mask += ' ';
        mask += v[i] == 2.0f ? '1' : '0';
    }
    return mask;
}

}  // namespace

TEST_CASE("seeding uses the low 32 bits and matches std::mt19937", "[rng]") {
    for (const auto& v : kVectors) {
        CAPTURE(v.seed);
        Generator gen(v.seed);
        std::vector<uint32_t> raw{gen.random(), gen.random(), gen.random()};
        CHECK(hex_list(raw) == v.raw3);
    }
    Generator a(5), b((uint64_t{1} << 32) + 5);
    for (int i = 0; i < 1000; ++i) REQUIRE(a.random() == b.random());
}

TEST_CASE("torch.rand, uniform_, nn.Linear init, randn: spec vectors bit for bit", "[rng]") {
    for (const auto& v : kVectors) {
        CAPTURE(v.seed);
        Generator gen(v.seed);
        CHECK(hex_list(first(rand({8}, gen), 4)) == v.rand4);

        gen.manual_seed(v.seed);
        Tensor u = Tensor::empty({8});
        fill_uniform(u, -1.0, 1.0, gen);
        CHECK(hex_list(first(u, 4)) == v.uniform4);

        gen.manual_seed(v.seed);
        nn::Linear linear(4, 3, true, gen);
        CHECK(hex_list(tensor_bits(linear.weight[0])) == v.linear_w0);
        CHECK(hex_list(tensor_bits(*linear.bias)) == v.linear_b);

        gen.manual_seed(v.seed);
        CHECK(hex_list(first(randn({5}, gen), 4)) == v.randn5_4);

        gen.manual_seed(v.seed);
        const auto b17 = tensor_bits(randn({17}, gen));
        CHECK(hex_list({b17[0], b17[1], b17[15], b17[16]}) == v.randn17_0_1_15_16);
    }
}

TEST_CASE("randn(6, 6) takes the 16-block path with a redrawn tail", "[rng]") {
    Generator gen(0);
    const Tensor t = randn({6, 6}, gen);
    CHECK(hex_list(tensor_bits(t[0])) == "bf901b85 bf93808a be804bd6 bede255d 3f594515 3f312783");
    CHECK(gen.draws() == 36 + 16);
}

TEST_CASE("dropout masks for both rng profiles", "[rng][dropout]") {
    for (const auto& v : kVectors) {
        CAPTURE(v.seed);
        Generator gen(v.seed);
        CHECK(dropout_mask(gen) == v.default_mask);
        CHECK(gen.draws() == 2 * 36);
        if (v.mkl_mask) {
            gen.profile = RngProfile::Mkl;
            gen.manual_seed(v.seed);
            CHECK(dropout_mask(gen) == v.mkl_mask);
            CHECK(gen.draws() == 1);
        }
    }
    // The fingerprint of §6: with seed 123 the MKL path keeps the whole first row.
    Generator gen(123);
    gen.profile = RngProfile::Mkl;
    CHECK(dropout_mask(gen).substr(0, 6) == "111111");
}

TEST_CASE("the normal spare survives across small randn calls", "[rng]") {
    Generator gen(0);
    const Tensor three = randn({3}, gen);  // two pairs: one value left as the spare
    CHECK(gen.draws() == 8);
    const Tensor one = randn({1}, gen);  // served by the spare: no draws
    CHECK(gen.draws() == 8);
    Generator again(0);
    const Tensor four = randn({4}, again);
    CHECK(hex_list(tensor_bits(four)) == hex_list(tensor_bits(cat({three, one}))));
    gen.manual_seed(0);
    CHECK_FALSE(gen.normal_spare.has_value());
}

TEST_CASE("draw counts of the spec's verified sequence add up to 96 words", "[rng]") {
    Generator gen(7);
    for (int i = 0; i < 3; ++i) rand({3, 2}, gen);
    CHECK(gen.draws() == 18);
    nn::Linear a(3, 4, true, gen);
    CHECK(gen.draws() == 34);
    nn::Linear b(4, 4, true, gen);
    nn::Linear c(4, 2, true, gen);
    CHECK(gen.draws() == 64);
    nn::Dropout dropout(0.5, gen);
    dropout(ones({8}));
    CHECK(gen.draws() == 80);
    randn({2, 3}, gen);
    CHECK(gen.draws() == 92);
    rand({4}, gen);
    CHECK(gen.draws() == 96);
}

TEST_CASE("negative and 64-bit seeds wrap like torch.manual_seed", "[rng]") {
    Generator a(0), b(0);
    a.manual_seed(static_cast<uint64_t>(int64_t{-1}));
    b.manual_seed(0xffffffffu);
    CHECK(a.random() == b.random());
    CHECK(a.initial_seed() == 0xffffffffffffffffULL);
}

TEST_CASE("dropout scale for p = 0.1 is 1/(float)(0.9)", "[rng][dropout]") {
    Generator gen(3);
    nn::Dropout dropout(0.1, gen);
    const auto v = dropout(ones({64})).to_vector();
    bool saw_kept = false;
    for (float x : v) {
        if (x != 0.0f) {
            CHECK(test::bits(x) == 0x3F8E38E4u);
            saw_kept = true;
        }
    }
    CHECK(saw_kept);
}

TEST_CASE("rng profile names", "[rng]") {
    CHECK(std::string(rng_profile_name(RngProfile::Default)) == "default");
    CHECK(std::string(rng_profile_name(RngProfile::Mkl)) == "mkl");
}
