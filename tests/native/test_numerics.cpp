// PyTorch's float32 bits for sum, exp, softmax, products and scalar ops: the vectors of
// shared/docs/torch-numerics.md, through the public API.
#include <catch2/catch.hpp>

#include <cmath>

#include "attn/error.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "book.hpp"
#include "support.hpp"

using namespace attn;
using test::hex_list;
using test::tensor_bits;
using test::book_inputs;

namespace {
std::string hex_of(const Tensor& t) { return hex_list(tensor_bits(t)); }

Tensor from_hex(const Shape& shape, const std::string& text) {
    std::vector<float> v;
    for (uint32_t b : test::parse_hex(text)) v.push_back(test::from_bits(b));
    return Tensor::from_vector(shape, v);
}

}  // namespace

TEST_CASE("torch.tensor rounds Python doubles to float32", "[numerics]") {
    CHECK(hex_of(tensor({0.43})) == "3edc28f6");
}

TEST_CASE("sum follows ATen's cascade and lane order (§1.3)", "[numerics][sum]") {
    CHECK(hex_of(sum(tensor({0.1, 0.2, 0.3}))) == "3f19999a");
    Generator gen(0);
    const Tensor r6 = rand({6}, gen);
    CHECK(hex_of(r6) == "3efe1558 3f44aa2f 3db533a8 3e073300 3e9d6686 3f2252fb");
    CHECK(hex_of(sum(r6)) == "401b4b93");

    gen.manual_seed(0);
    const Tensor r66 = rand({6, 6}, gen);
    CHECK(hex_of(sum(r66)) == "417d96c6");
    CHECK(hex_of(sum(r66, 0)) == "3ff27598 406671e4 40297cf1 4020425f 40059152 40475dce");
    // Reductions follow memory order: the transpose's dim 1 is the original's dim 0.
    CHECK(hex_of(sum(r66.T(), 1)) == hex_of(sum(r66, 0)));
    CHECK(sum(r66, 0, true).shape() == Shape{1, 6});

    gen.manual_seed(0);
    const auto cols = tensor_bits(sum(rand({6, 36}, gen), 0));
    CHECK(hex_list({cols[0], cols[31], cols[32], cols[35]}) == "401e94d2 407d46aa 403f42e7 3fcb0ef9");

    const Tensor weights = softmax(matmul(book_inputs(), book_inputs().T()), 1);
    CHECK(hex_of(sum(weights, 1)) == "3f7ffffe 3f800000 3f800001 3f800000 3f800000 3f800000");
}

TEST_CASE("exp is SLEEF's expf_u10, not libm's expf (§2.1)", "[numerics][exp]") {
    const Tensor x = tensor({0.0, -0.5, 1.0, 88.0, -100.0, -104.5});
    CHECK(hex_of(exp(x)) == "3f800000 3f1b4598 402df854 7ef882b7 0000001b 00000000");
    CHECK(hex_of(exp(from_hex({2}, "c0685832 c04764e3"))) == "3cd9232c 3d35ad76");
}

TEST_CASE("softmax along the last dim and along an outer dim (§2.5)", "[numerics][softmax]") {
    const Tensor s = from_hex({6}, "3f745390 3fbf5c2a 3fbcd9e9 3f57e910 3f34fdf4 3f8b126f");
    const Tensor w = softmax(s, 0);
    CHECK(hex_of(w) == "3e0ddf6a 3e7399c7 3e6edf63 3dfdef4d 3ddd8e74 3e21e889");
    CHECK(hex_of(sum(w)) == "3f800000");
    CHECK(hex_of(softmax(s / std::pow(2.0, 0.5), 0)) == "3e17308b 3e5d9538 3e5a8879 3e0bc6d3 3dfdd99d 3e25fe1f");

    CHECK(hex_of(softmax(tensor({0.5, -INFINITY, 0.25, -INFINITY}), 0)) == "3f0feacd 00000000 3ee02a68 00000000");
    for (float v : softmax(tensor({-INFINITY, -INFINITY}), 0).to_vector()) CHECK(std::isnan(v));

    Generator gen(1);
    const auto col8 = tensor_bits(softmax(randn({4, 9}, gen), 0));
    CHECK(hex_list({col8[8], col8[17], col8[26], col8[35]}) == "3d2c993d 3cdc697c 3f26748c 3e8fbd27");

    CHECK(softmax(scalar_tensor(3.0), 0).item() == 1.0f);
}

TEST_CASE("products are running sums with no FMA (§3)", "[numerics][matmul]") {
    Generator gen(2);
    const Tensor a = rand({3}, gen), b = rand({3}, gen);
    CHECK(hex_of(dot(a, b)) == "3f753b2f");
    CHECK(hex_of(matmul(a, b)) == "3f753b2f");

    gen.manual_seed(1);
    const Tensor c = rand({8}, gen), d = rand({8}, gen);
    CHECK(hex_of(dot(c, d)) == "3ffe8115");

    // nn.Linear adds the bias after the running sum.
    gen.manual_seed(0);
    nn::Linear lin(3, 2, true, gen);
    const Tensor x = rand({2, 3}, gen);
    CHECK(hex_of(lin(x)) == "3c884b98 3e35da98 bdb12708 3e9dd502");

    CHECK_THROWS_WITH(matmul(scalar_tensor(1.0), a), Catch::Contains("need to be at least 1D"));
}

TEST_CASE("a Python float is rounded to float32 before the op (§4)", "[numerics]") {
    CHECK(test::bits(static_cast<float>(std::pow(2.0, 0.5))) == 0x3fb504f3u);
    Generator gen(0);
    const Tensor v = rand({4}, gen);
    CHECK(hex_of(v / std::pow(2.0, 0.5)) == "3eb3aa01 3f0b1021 3d802107 3dbf3359");
}
