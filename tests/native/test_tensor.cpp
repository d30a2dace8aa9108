// Tensor semantics the chapter relies on: views that share storage, in-place writes, broadcasting,
// shapes, masks, and a clear error for every misuse.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "attn/error.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"

using namespace attn;
using Catch::Contains;
using Catch::Equals;
using Catch::StartsWith;

TEST_CASE("creation, shape and metadata", "[tensor]") {
    const Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
    CHECK(t.shape() == Shape{2, 3});
    CHECK(t.dim() == 2);
    CHECK(t.numel() == 6);
    CHECK(t.size(-1) == 3);
    CHECK(t.size(0) == 2);
    CHECK_THROWS_WITH(t.size(2), Equals("Dimension out of range (expected to be in range of [-2, 1], but got 2)"));
    CHECK(t.stride(0) == 3);
    CHECK(t.stride(-1) == 1);
    CHECK_THROWS_WITH(t.stride(-3), Equals("Dimension out of range (expected to be in range of [-2, 1], but got -3)"));
    CHECK(zeros({2, 0}).numel() == 0);
    CHECK(ones({3}).to_vector() == std::vector<float>{1, 1, 1});
    CHECK(scalar_tensor(2.5).dim() == 0);
    CHECK(scalar_tensor(2.5).item() == 2.5f);
    CHECK_THROWS_WITH(t.item(), Contains("only a tensor with one element"));
    CHECK_THROWS_WITH(Tensor::from_vector({2, 2}, {1, 2, 3}), Contains("needs 4 values, got 3"));
    CHECK_THROWS_WITH(zeros({-1, 2}), Contains("non-negative"));
}

TEST_CASE("views share storage; in-place ops write through", "[tensor]") {
    Tensor t = zeros({3, 4});
    Tensor row = t[1];
    row.fill_(7.0f);
    CHECK(t.at({1, 2}) == 7.0f);
    CHECK(t.at({0, 2}) == 0.0f);

    Tensor col = t.T()[3];  // column 3 of t
    col.add_(1.0);
    CHECK(t.at({0, 3}) == 1.0f);
    CHECK(t.at({1, 3}) == 8.0f);

    t.set({2, 0}, 5.0f);
    CHECK(t.at({2, 0}) == 5.0f);
    t.set({0}, tensor({1, 2, 3, 4}));
    CHECK(t[0].to_vector() == std::vector<float>{1, 2, 3, 4});
    t.set({2}, scalar_tensor(9.0));  // a 0-d value broadcasts over the row
    CHECK(t[2].to_vector() == std::vector<float>{9, 9, 9, 9});
    CHECK_THROWS_WITH(t.set({0}, tensor({1, 2})),
                      Equals("The size of tensor a (4) must match the size of tensor b (2) at non-singleton dimension 0"));
    CHECK_THROWS_WITH(t.set({3}, 1.0f), Equals("index 3 is out of bounds for dimension 0 with size 3"));
    CHECK(t.at({-1, -1}) == 9.0f);

    t.zero_();
    CHECK(sum(t).item() == 0.0f);
}

TEST_CASE("transpose, view, reshape, contiguous, flatten, slice", "[tensor]") {
    const Tensor t = tensor({{1, 2, 3}, {4, 5, 6}});
    const Tensor tt = t.T();
    CHECK(tt.shape() == Shape{3, 2});
    CHECK_FALSE(tt.is_contiguous());
    CHECK(tt.to_vector() == std::vector<float>{1, 4, 2, 5, 3, 6});
    CHECK(tt.shares_storage_with(t));
    CHECK_THROWS_WITH(tt.view({6}), StartsWith("view size is not compatible with input tensor's size and stride"));
    CHECK(tt.contiguous().view({6}).to_vector() == std::vector<float>{1, 4, 2, 5, 3, 6});
    CHECK(tt.reshape({-1}).to_vector() == std::vector<float>{1, 4, 2, 5, 3, 6});
    CHECK(t.view({3, -1}).shape() == Shape{3, 2});
    CHECK(t.view({-1}).shares_storage_with(t));
    CHECK_THROWS_WITH(t.view({4, -1}), Equals("shape '[4, -1]' is invalid for input of size 6"));
    CHECK_THROWS_WITH(t.view({-1, -1}), Equals("only one dimension can be inferred"));
    CHECK(t.flatten().shape() == Shape{6});
    CHECK(t.transpose(0, 1).to_vector() == tt.to_vector());
    CHECK_THROWS_WITH(t.transpose(0, 2), Equals("Dimension out of range (expected to be in range of [-2, 1], but got 2)"));

    const Tensor mask = triu(ones({6, 6}), 1);
    const Tensor corner = mask.slice(0, 0, 4).slice(1, 0, 4);
    CHECK(corner.shape() == Shape{4, 4});
    CHECK(corner.to_vector() == triu(ones({4, 4}), 1).to_vector());
    CHECK(t.slice(1, -2, 100).to_vector() == std::vector<float>{2, 3, 5, 6});

    // Heads split and merged the way MultiHeadAttention does it.
    const Tensor x = rand({2, 5, 6});
    const Tensor heads = x.view({2, 5, 3, 2}).transpose(1, 2);
    CHECK(heads.shape() == Shape{2, 3, 5, 2});
    CHECK(heads.transpose(1, 2).contiguous().view({2, 5, 6}).to_vector() == x.to_vector());
}

TEST_CASE("broadcasting elementwise ops", "[tensor]") {
    const Tensor m = tensor({{1, 2}, {3, 4}});
    CHECK((m + tensor({10, 20})).to_vector() == std::vector<float>{11, 22, 13, 24});
    CHECK((m / tensor({1, 2}).view({2, 1})).to_vector() == std::vector<float>{1, 2, 1.5f, 2});
    CHECK((m * 2.0).to_vector() == std::vector<float>{2, 4, 6, 8});
    CHECK((m - 1.0).to_vector() == std::vector<float>{0, 1, 2, 3});
    CHECK((-m).to_vector() == std::vector<float>{-1, -2, -3, -4});
    CHECK(pow(m, 2.0).to_vector() == std::vector<float>{1, 4, 9, 16});
    CHECK(pow(m, tensor({1, 0})).to_vector() == std::vector<float>{1, 1, 3, 1});
    CHECK_THROWS_WITH(m + tensor({1, 2, 3}),
                      Equals("The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"));
    Tensor acc = zeros({2});
    CHECK_THROWS_WITH(acc.add_(m), StartsWith("output with shape"));
}

TEST_CASE("masks: triu, tril, bool, masked_fill", "[tensor]") {
    const Tensor t = tril(ones({3, 3}));
    CHECK(t.to_vector() == std::vector<float>{1, 0, 0, 1, 1, 0, 1, 1, 1});
    CHECK(triu(ones({3, 3}), 1).to_vector() == std::vector<float>{0, 1, 1, 0, 0, 1, 0, 0, 0});
    CHECK(tril(ones({3, 3}), -1).to_vector() == std::vector<float>{0, 0, 0, 1, 0, 0, 1, 1, 0});
    const Tensor b = triu(ones({3, 3}), 1).to_bool();
    CHECK(b.dtype() == DType::Bool);
    const Tensor filled = masked_fill(zeros({3, 3}), b, -INFINITY);
    CHECK(std::isinf(filled.at({0, 2})));
    CHECK(filled.at({2, 0}) == 0.0f);
    Tensor in_place = zeros({2, 3, 3});
    in_place.masked_fill_(b, 5.0f);  // the mask broadcasts over the batch
    CHECK(in_place.at({1, 0, 1}) == 5.0f);
    CHECK_THROWS_WITH(masked_fill(zeros({3}), b, 1.0f), Contains("masked_fill"));
    CHECK_THROWS_WITH(triu(ones({3})), Contains("at least 2 dims"));
}

TEST_CASE("stack and cat", "[tensor]") {
    const Tensor a = tensor({1, 2}), b = tensor({3, 4});
    CHECK(stack({a, b}).shape() == Shape{2, 2});
    CHECK(stack({a, b}, 1).to_vector() == std::vector<float>{1, 3, 2, 4});
    CHECK(cat({a, b}).to_vector() == std::vector<float>{1, 2, 3, 4});
    CHECK(cat({stack({a, b}), stack({a, b})}, -1).shape() == Shape{2, 4});
    CHECK_THROWS_WITH(stack({a, tensor({1, 2, 3})}),
                      Equals("stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1"));
    CHECK_THROWS_WITH(cat({a, b}, 1), Equals("Dimension out of range (expected to be in range of [-1, 0], but got 1)"));
    CHECK_THROWS_WITH(cat({}), Contains("non-empty"));
}

TEST_CASE("matmul shapes: 1-D, 2-D, batched, broadcast", "[tensor][matmul]") {
    const Tensor m = rand({4, 3}), v = rand({3});
    CHECK(matmul(v, m.T()).shape() == Shape{4});
    CHECK(matmul(m, v).shape() == Shape{4});
    CHECK(matmul(rand({2, 5, 4}), m).shape() == Shape{2, 5, 3});
    CHECK(matmul(rand({2, 3, 5, 4}), rand({1, 3, 4, 2})).shape() == Shape{2, 3, 5, 2});
    CHECK_THROWS_WITH(matmul(rand({6, 3}), rand({2, 3})),
                      Equals("mat1 and mat2 shapes cannot be multiplied (6x3 and 2x3)"));
    CHECK_THROWS_WITH(dot(rand({3}), rand({4})), StartsWith("inconsistent tensor size, expected tensor [3] and src [4]"));
    CHECK_THROWS_WITH(dot(rand({3, 1}), rand({3})), Equals("1D tensors expected, but got 2D and 1D tensors"));
    // Per-batch results equal the 2-D products, bit for bit.
    const Tensor a = rand({3, 4, 5}), b = rand({3, 5, 2});
    const Tensor c = matmul(a, b);
    for (int64_t i = 0; i < 3; ++i) CHECK(c[i].to_vector() == matmul(a[i], b[i]).to_vector());
}

TEST_CASE("reductions and softmax: dims and errors", "[tensor]") {
    const Tensor t = tensor({{1, 2}, {3, 4}});
    CHECK(sum(t, 0).to_vector() == std::vector<float>{4, 6});
    CHECK(sum(t, -1, true).shape() == Shape{2, 1});
    CHECK_THROWS_WITH(sum(t, 2), Equals("Dimension out of range (expected to be in range of [-2, 1], but got 2)"));
    CHECK_THROWS_WITH(softmax(t, -3), Equals("Dimension out of range (expected to be in range of [-2, 1], but got -3)"));
    const Tensor s = softmax(t, 0);
    CHECK(s.shape() == Shape{2, 2});
}

TEST_CASE("modules reject bad arguments with a clear message", "[tensor][nn]") {
    CHECK_THROWS_WITH(nn::MultiHeadAttention(3, 5, 6, 0.0, 2), Contains("d_out must be divisible by num_heads"));
    CHECK_THROWS_WITH(nn::Dropout(1.5), Contains("[0, 1], got 1.5"));
    CHECK_THROWS_WITH(nn::CausalAttention(3, 2, 6, -0.1), Contains("CausalAttention: dropout probability"));
    CHECK_THROWS_WITH(nn::Linear(0, 2), Contains("in_features must be a positive integer"));

    manual_seed(1);
    nn::CausalAttention ca(3, 2, 4, 0.0);
    CHECK_THROWS_WITH(ca(rand({1, 5, 3})), Contains("5 tokens, more than context_length = 4"));
    CHECK_THROWS_WITH(ca(rand({1, 4, 2})), Contains("expected d_in = 3"));
    nn::MultiHeadAttention mha(3, 4, 4, 0.0, 2);
    CHECK_THROWS_WITH(mha(rand({2, 6, 3})), Contains("6 tokens, more than context_length = 4"));
    CHECK_THROWS_WITH(mha(rand({2, 2, 2, 3})), Contains("expected an input with 2 to 3 dims"));
    // The module still works after a rejected call.
    CHECK(mha(rand({2, 4, 3})).shape() == Shape{2, 4, 4});
    CHECK(mha(rand({4, 3})).shape() == Shape{4, 4});
}

TEST_CASE("Dropout: training scales kept values, eval is the identity", "[tensor][nn][dropout]") {
    manual_seed(5);
    nn::Dropout dropout(0.5);
    const Tensor x = ones({4, 4});
    const auto before = default_generator().draws();
    dropout.eval();
    CHECK(dropout(x).to_vector() == x.to_vector());
    CHECK(default_generator().draws() == before);
    dropout.train();
    for (float v : dropout(x).to_vector()) CHECK((v == 0.0f || v == 2.0f));
    CHECK(default_generator().draws() == before + 32);
    nn::Dropout all(1.0);
    CHECK(sum(all(x)).item() == 0.0f);

    // Modules pass train/eval down to their dropout.
    nn::CausalAttention ca(3, 2, 6, 0.5);
    ca.eval();
    const Tensor batch = rand({1, 6, 3});
    const auto draws = default_generator().draws();
    ca(batch);
    CHECK(default_generator().draws() == draws);
}

TEST_CASE("named parameters follow PyTorch's state_dict names", "[tensor][nn]") {
    manual_seed(0);
    nn::MultiHeadAttentionWrapper wrapper(3, 2, 6, 0.0, 2, true);
    std::vector<std::string> names;
    for (auto& [name, tensor] : wrapper.named_parameters()) names.push_back(name);
    CHECK(names.size() == 12);
    CHECK(names[0] == "heads.0.W_query.weight");
    CHECK(names[1] == "heads.0.W_query.bias");
    CHECK(names.back() == "heads.1.W_value.bias");

    nn::MultiHeadAttention mha(3, 4, 6, 0.0, 2);
    CHECK(mha.parameter("out_proj.bias").shape() == Shape{4});
    CHECK_THROWS_WITH(mha.parameter("W_query.bias"), Contains("no parameter called 'W_query.bias'"));
    CHECK_THROWS_WITH(mha.load_parameter("out_proj.weight", zeros({3, 4})), Contains("expected shape [4,4], got [3,4]"));
    mha.load_parameter("out_proj.weight", ones({4, 4}));
    CHECK(sum(mha.out_proj.weight).item() == 16.0f);
    CHECK(mha.out_proj.weight.is_parameter());
}

TEST_CASE("a tensor larger than the memory limit is refused up front", "[tensor]") {
    CHECK_THROWS_WITH(zeros({100000, 100000}), Contains("zeros: shape [100000,100000] is too large"));
    CHECK_THROWS_WITH(ones({int64_t{1} << 40, int64_t{1} << 40}), Contains("ones: shape"));
    CHECK_THROWS_WITH(randn({-1}), Contains("randn: sizes must be non-negative"));
    CHECK(zeros({0, int64_t{1} << 20}).numel() == 0);
}

TEST_CASE("sizes are checked before any arithmetic, even beside a size of 0", "[tensor]") {
    const auto beside_zero = Contains("is too large: even beside a size of 0, the other sizes may multiply to at most");
    CHECK_THROWS_WITH(ones({3, 0, 6, 1000000000000}), Contains("ones: shape [3,0,6,1000000000000]") && beside_zero);
    CHECK_THROWS_WITH(zeros({0, int64_t{1} << 31}), Contains("zeros: shape [0,2147483648]") && beside_zero);
    CHECK_THROWS_WITH(ones({0}).reshape({int64_t{1} << 31, 0}), Contains("reshape: shape [2147483648,0]") && beside_zero);
    CHECK_THROWS_WITH(ones({0}).view({0, int64_t{1} << 62, int64_t{1} << 62}), Contains("view: shape") && beside_zero);
    // Multiplying these would overflow int64; the message shows the -1 as given.
    CHECK_THROWS_WITH(ones({6}).view({-1, int64_t{1} << 62, int64_t{1} << 62}),
                      Contains("view: shape [-1,4611686018427387904,4611686018427387904] is too large"));
    // Below the limit a size of 0 still makes an empty tensor whose strides stay small.
    const Tensor empty_rows = zeros({0, 1 << 14, 1 << 14});
    CHECK(empty_rows.strides() == Shape{1 << 28, 1 << 14, 1});
    CHECK(ones({0}).reshape({1 << 20, 0}).shape() == Shape{1 << 20, 0});
}

TEST_CASE("a strided view reaching past its storage is refused without overflowing", "[tensor]") {
    const int64_t huge = int64_t{1} << 62;  // (2 - 1) * huge twice wraps an int64 to a negative position
    CHECK_THROWS_WITH(Tensor::from_strided({1, 2}, {2, 2}, {huge, huge}, 0), Contains("reaches outside a storage of 2"));
    CHECK_THROWS_WITH(Tensor::from_strided({1, 2}, {2}, {1}, int64_t{1} << 40), Contains("reaches outside"));
    CHECK(Tensor::from_strided({1, 2, 3, 4}, {2, 2}, {1, 2}, 0).to_vector() == std::vector<float>{1, 3, 2, 4});
}

TEST_CASE("more than kMaxDims dims are refused wherever a tensor is made, with one message", "[tensor]") {
    const Shape deepest(static_cast<size_t>(kMaxDims), 1), too_deep(static_cast<size_t>(kMaxDims) + 1, 1);
    const std::string over = ": a tensor may have at most 64 dims, got 65";
    CHECK(ones(deepest).dim() == kMaxDims);
    CHECK_THROWS_WITH(ones(too_deep), "ones" + over);
    CHECK_THROWS_WITH(Tensor::from_vector(too_deep, {1}), "tensor" + over);
    CHECK_THROWS_WITH(Tensor::from_strided({1}, too_deep, Shape(too_deep.size(), 1), 0), "tensor" + over);
    CHECK_THROWS_WITH(ones(deepest).unsqueeze(0), "unsqueeze" + over);
    CHECK_THROWS_WITH(ones({1}).view(too_deep), "view" + over);
    CHECK_THROWS_WITH(ones({1}).reshape(too_deep), "reshape" + over);
    CHECK_THROWS_WITH(stack({ones(deepest)}), "stack" + over);
    // 6000 dims used to print by recursing 6000 deep (and to overflow the WebAssembly stack).
    CHECK_THROWS_WITH(ones(Shape(6000, 1)), "ones: a tensor may have at most 64 dims, got 6000");
}

TEST_CASE("submodules: names, forward, and train/eval reach every dropout", "[tensor][nn]") {
    manual_seed(3);
    nn::MultiHeadAttentionWrapper wrapper(3, 2, 6, 0.5, 2);
    const auto names = wrapper.module_names();
    CHECK(names.front() == "heads.0");
    CHECK(std::find(names.begin(), names.end(), "heads.1.dropout") != names.end());
    wrapper.eval();
    CHECK_FALSE(wrapper.heads[1].dropout.training);
    wrapper.train();
    CHECK(wrapper.heads[1].dropout.training);

    nn::SelfAttention_v2 sa(3, 2);
    const Tensor x = rand({6, 3});
    CHECK(sa.forward_submodule("W_query", x).to_vector() == sa.W_query(x).to_vector());
    CHECK_THROWS_WITH(sa.submodule("W_q"), Contains("no submodule called 'W_q'; this module has: W_query, W_key"));
}

TEST_CASE("MultiHeadAttentionWrapper: the heads' weights together are checked before any head is made", "[tensor][nn]") {
    // 2^32 heads used to wrap to 0 in WebAssembly's 32-bit size_t and then be made one by one until the heap ran out.
    CHECK_THROWS_WITH(nn::MultiHeadAttentionWrapper(2, 2, 3, 0.0, int64_t{1} << 32),
                      "MultiHeadAttentionWrapper: shape [4294967296,2,2] is too large: one tensor may hold at most "
                      "268435456 elements (1024 MiB)");
    CHECK(nn::MultiHeadAttentionWrapper(2, 2, 3, 0.0, 4).heads.size() == 4);
}
