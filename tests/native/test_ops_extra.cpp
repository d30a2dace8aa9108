// The operations the notebook's torch needs beyond the chapter's: comparisons (bool results), rsub and
// reciprocal, and nn.Linear's and nn.Dropout's forward as functions. Each is checked against a plain scalar
// reference or against the module it was taken from; tests/node/ops-extra.test.js checks the same ops
// against PyTorch 1.13's bits (tests/golden/ops_extra.json).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>

#include "attn/error.hpp"
#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"

using namespace attn;
using Catch::Contains;
using Catch::Equals;
using Catch::StartsWith;

namespace {
bool same_bits(const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
    const std::vector<float> x = a.to_vector(), y = b.to_vector();
    return std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}
}  // namespace

TEST_CASE("compare: each op against a scalar loop, broadcast, bool result, never requiring grad", "[ops-extra]") {
    manual_seed(7);
    Tensor a = randn({3, 4}).set_requires_grad(true);
    const Tensor b = randn({4});
    const std::vector<float> va = a.to_vector(), vb = b.to_vector();
    for (Compare op : {Compare::Eq, Compare::Ne, Compare::Lt, Compare::Le, Compare::Gt, Compare::Ge}) {
        const Tensor r = compare(a, b, op), s = compare(a, 0.1, op);
        CHECK(r.dtype() == DType::Bool);
        CHECK(r.shape() == Shape{3, 4});
        CHECK_FALSE(r.requires_grad());
        const std::vector<float> vr = r.to_vector(), vs = s.to_vector();
        for (size_t i = 0; i < va.size(); ++i) {
            const float x = va[i], y = vb[i % 4], z = 0.1f;
            const bool want[] = {x == y, x != y, x < y, x <= y, x > y, x >= y};
            const bool want_s[] = {x == z, x != z, x < z, x <= z, x > z, x >= z};
            CHECK((vr[i] != 0) == want[static_cast<int>(op)]);
            CHECK((vs[i] != 0) == want_s[static_cast<int>(op)]);
        }
    }
    CHECK(to_string(compare(tensor({0.1, 0.2}), 0.1, Compare::Eq)) == "tensor([ True, False])");
    CHECK_THROWS_WITH(compare(ones({2, 3}), ones({4}), Compare::Lt), Equals("The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"));
}

TEST_CASE("rsub and reciprocal: one float32 rounding each, PyTorch's grad_fn", "[ops-extra]") {
    manual_seed(3);
    Tensor t = randn({5}).set_requires_grad(true);
    const Tensor r = rsub(t, 0.3), q = reciprocal(t);
    const std::vector<float> v = t.to_vector(), vr = r.to_vector(), vq = q.to_vector();
    for (size_t i = 0; i < v.size(); ++i) {
        CHECK(vr[i] == 0.3f - v[i]);
        CHECK(vq[i] == 1.0f / v[i]);
    }
    CHECK(r.grad_fn() == "RsubBackward1");
    CHECK(q.grad_fn() == "ReciprocalBackward0");
}

TEST_CASE("linear as a function gives nn.Linear's bits and grad_fn for 1-D, 2-D and 3-D input", "[ops-extra]") {
    for (bool bias : {false, true}) {
        manual_seed(11);
        nn::Linear layer(4, 3, bias);
        for (const Shape& shape : {Shape{4}, Shape{5, 4}, Shape{2, 5, 4}}) {
            const Tensor x = rand(shape);
            const Tensor want = layer.forward(x);
            const Tensor got = bias ? nn::linear(x, layer.weight, *layer.bias) : nn::linear(x, layer.weight);
            CHECK(same_bits(got, want));
            CHECK(got.grad_fn() == want.grad_fn());
        }
    }
    // A transposed view as the weight reads the same values as its contiguous copy.
    const Tensor x = rand({3, 4}), wt = rand({4, 2}).T();
    CHECK(same_bits(nn::linear(x, wt), nn::linear(x, wt.contiguous())));
    CHECK_THROWS_WITH(nn::linear(x, ones({3})), Contains("linear: weight must be 2-D"));
    CHECK_THROWS_WITH(nn::linear(x, ones({2, 4}), ones({3})), Contains("linear: bias must have shape [2]"));
    CHECK_THROWS_WITH(nn::linear(x, ones({2, 5})), Equals("mat1 and mat2 shapes cannot be multiplied (3x4 and 5x2)"));
}

TEST_CASE("dropout as a function draws nn.Dropout's masks under both RNG profiles", "[ops-extra]") {
    for (RngProfile profile : {RngProfile::Default, RngProfile::Mkl}) {
        set_rng_profile(profile);
        for (double p : {0.1, 0.5}) {
            nn::Dropout module(p);
            manual_seed(123);
            const Tensor want = module.forward(ones({6, 6}));
            manual_seed(123);
            CHECK(same_bits(nn::dropout(ones({6, 6}), p, true), want));
        }
        manual_seed(123);
        const Tensor x = rand({2, 3});
        CHECK(same_bits(nn::dropout(x, 0.5, false), x));
    }
    set_rng_profile(RngProfile::Default);
    CHECK_THROWS_WITH(nn::dropout(ones({2}), 1.5, true), Contains("Dropout"));
}

TEST_CASE("allclose follows PyTorch 1.13: infinities, float32 tolerances, tolerances checked", "[ops-extra]") {
    const double inf = std::numeric_limits<double>::infinity();
    const auto close = [](std::initializer_list<double> a, std::initializer_list<double> b, double rtol = 1e-5,
                          double atol = 1e-8) { return allclose(tensor(a), tensor(b), rtol, atol); };
    // Each expectation is what torch.allclose printed for the same call.
    CHECK_FALSE(close({1}, {inf}));
    CHECK_FALSE(close({inf}, {-inf}));
    CHECK_FALSE(close({1e38}, {inf}));
    CHECK(close({inf}, {inf}));
    CHECK(close({-inf}, {-inf}));
    CHECK(close({inf}, {inf}, inf));
    CHECK(close({1}, {2}, 1e-5, inf));
    CHECK_FALSE(close({1}, {inf}, 1e-5, inf));
    CHECK_FALSE(close({std::nan("")}, {std::nan("")}));
    // At the edge of the tolerance, atol + |rtol * b| is a float32 sum, as PyTorch computes it.
    CHECK(close({-1.8840049505233765}, {-1.8858908414840698}, 1e-3, 0));
    CHECK(close({106.20808410644531}, {106.10198211669922}, 1e-3, 0));
    CHECK_THROWS_WITH(close({1}, {2}, std::nan("")), "allclose: rtol must be greater than or equal to zero, but got nan");
    CHECK_THROWS_WITH(close({1}, {2}, -1), "allclose: rtol must be greater than or equal to zero, but got -1");
    CHECK_THROWS_WITH(close({1}, {2}, 1e-5, -1), "allclose: atol must be greater than or equal to zero, but got -1");
}

TEST_CASE("triu and tril take any int64 diagonal: beyond the size all is zeroed or kept", "[ops-extra]") {
    const Tensor m = ones({3, 3});
    const int64_t big = int64_t{1} << 53, biggest = std::numeric_limits<int64_t>::max();
    CHECK(sum(triu(m, big)).item() == 0.0f);
    CHECK(sum(triu(m, -big)).item() == 9.0f);
    CHECK(sum(tril(m, biggest)).item() == 9.0f);
    CHECK(sum(tril(m, std::numeric_limits<int64_t>::min())).item() == 0.0f);
}
