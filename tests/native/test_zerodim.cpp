// 0-d tensors (a dot product, a sum of everything, tensor(5.)) behave as in PyTorch 1.13: always
// contiguous, so they view, reshape, flatten, unsqueeze and stack; they broadcast against any shape; and
// what PyTorch refuses for them is refused with a message naming the op.
#include <catch2/catch.hpp>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"

using namespace attn;
using Catch::Contains;
using Catch::Equals;
using Catch::StartsWith;

namespace {
// torch.dot(torch.tensor([1., 2., 3.]), torch.tensor([4., 5., 6.])): tensor(32.)
Tensor dot32() { return dot(tensor({1, 2, 3}), tensor({4, 5, 6})); }
}  // namespace

TEST_CASE("0-d: a dot product, a full sum and a scalar tensor have shape []", "[zerodim]") {
    CHECK(dot32().shape() == Shape{});
    CHECK(dot32().is_contiguous());
    CHECK(to_string(dot32()) == "tensor(32.)");
    CHECK(sum(ones({2, 3})).shape() == Shape{});
    CHECK(scalar_tensor(5.0).item() == 5.0f);
}

TEST_CASE("0-d: view, reshape and flatten give one element in any shape of one element", "[zerodim]") {
    const Tensor d = dot32();
    for (const Shape& s : {Shape{1}, Shape{1, 1}, Shape{-1}, Shape{}}) {
        const Shape want = s == Shape{-1} ? Shape{1} : s;
        CHECK(d.view(s).shape() == want);
        CHECK(d.reshape(s).shape() == want);
        CHECK(d.view(s).shares_storage_with(d));
        CHECK(d.view(s).to_vector() == std::vector<float>{32});
    }
    CHECK(d.view({1}).grad_fn().empty());  // no input required grad
    CHECK(scalar_tensor(5.0).view({1}).to_vector() == std::vector<float>{5});
    CHECK(sum(rand({3})).view({1}).shape() == Shape{1});
    CHECK(d.flatten().shape() == Shape{1});
    CHECK_THROWS_WITH(d.view({2}), Equals("shape '[2]' is invalid for input of size 1"));
}

TEST_CASE("unsqueeze: a size-1 dim anywhere in [-(dim+1), dim]", "[zerodim]") {
    const Tensor d = dot32();
    CHECK(d.unsqueeze(0).shape() == Shape{1});
    CHECK(d.unsqueeze(-1).shape() == Shape{1});
    CHECK_THROWS_WITH(d.unsqueeze(1), Equals("Dimension out of range (expected to be in range of [-1, 0], but got 1)"));

    const Tensor m = tensor({{1, 2, 3}, {4, 5, 6}});
    CHECK(m.unsqueeze(0).shape() == Shape{1, 2, 3});
    CHECK(m.unsqueeze(1).shape() == Shape{2, 1, 3});
    CHECK(m.unsqueeze(2).shape() == Shape{2, 3, 1});
    CHECK(m.unsqueeze(-1).shape() == Shape{2, 3, 1});
    CHECK(m.unsqueeze(-3).shape() == Shape{1, 2, 3});
    CHECK(m.unsqueeze(1).is_contiguous());
    CHECK(m.unsqueeze(1).shares_storage_with(m));
    CHECK(m.T().unsqueeze(0).to_vector() == m.T().to_vector());
    CHECK_THROWS_WITH(m.unsqueeze(3), Equals("Dimension out of range (expected to be in range of [-3, 2], but got 3)"));
    Tensor p = m.clone();
    p.set_requires_grad(true);
    CHECK(p.unsqueeze(0).grad_fn() == "UnsqueezeBackward0");
}

TEST_CASE("0-d: stack makes a vector, cat refuses", "[zerodim]") {
    const Tensor d = dot32();
    CHECK(stack({d, d}).shape() == Shape{2});
    CHECK(stack({d, d}, -1).to_vector() == std::vector<float>{32, 32});
    CHECK_THROWS_WITH(stack({d, d}, 1), Equals("Dimension out of range (expected to be in range of [-1, 0], but got 1)"));
    CHECK_THROWS_WITH(cat({d, d}), Equals("zero-dimensional tensor (at position 0) cannot be concatenated"));
}

TEST_CASE("0-d: broadcasting, softmax and sums", "[zerodim]") {
    const Tensor d = dot32();
    CHECK((d + ones({2, 3})).shape() == Shape{2, 3});
    CHECK((d + ones({2, 3})).to_vector() == std::vector<float>(6, 33));
    CHECK((ones({2, 3}) - d).to_vector() == std::vector<float>(6, -31));
    CHECK(pow(scalar_tensor(2), tensor({1, 2, 3})).to_vector() == std::vector<float>{2, 4, 8});
    CHECK(div(ones({3}), d).to_vector() == std::vector<float>(3, 1.0f / 32));
    CHECK(masked_fill(ones({2, 2}), scalar_tensor(1).to_bool(), 0).to_vector() == std::vector<float>(4, 0));
    CHECK(masked_fill(d, scalar_tensor(1).to_bool(), 0).shape() == Shape{});
    // softmax over the one element of a 0-d tensor, along dim 0 or -1
    for (int64_t dim : {0, -1}) {
        CHECK(softmax(d, dim).shape() == Shape{});
        CHECK(softmax(d, dim).item() == 1.0f);
        CHECK(sum(d, dim).shape() == Shape{});
        CHECK(sum(d, dim).item() == 32.0f);
        CHECK(sum(d, dim, true).shape() == Shape{});
    }
    CHECK_THROWS_WITH(softmax(d, 1), Equals("Dimension out of range (expected to be in range of [-1, 0], but got 1)"));
}

TEST_CASE("0-d: item, set, transposes, and the ops that need dims", "[zerodim]") {
    Tensor d = dot32().clone();
    CHECK(d.item() == 32.0f);
    d.set({}, 5.0f);  // d[()] = 5
    CHECK(d.item() == 5.0f);
    CHECK(d.T().shape() == Shape{});
    CHECK(d.transpose(0, -1).shape() == Shape{});
    CHECK_THROWS_WITH(d[0], Equals("select() cannot be applied to a 0-dim tensor."));
    CHECK_THROWS_WITH(matmul(d, d), Equals("both arguments to matmul need to be at least 1D, but they are 0D and 0D"));
    CHECK_THROWS_WITH(dot(d, d), Equals("1D tensors expected, but got 0D and 0D tensors"));
    CHECK_THROWS_WITH(triu(d), Contains("triu: expected a tensor with at least 2 dims"));
}
