// The operations learners write beyond the chapter's lines: shape ops, reductions, element-wise math,
// indexing, bmm, baddbmm and einsum. Each against PyTorch 1.13's bits (tests/golden/ops_more.json, from
// gen_ops_more.py) or a plain loop, and the views against their input's storage; tests/node/ops-more.test.js
// runs every case of the fixture through the JavaScript API.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <string>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Equals;
using json = nlohmann::json;

namespace {

const json& fixture() {
    static const json j = [] {
        std::ifstream in(std::string(ATTN_GOLDEN_DIR) + "/ops_more.json");
        return json::parse(in);
    }();
    return j;
}

Tensor input(const std::string& name) {
    const json& g = fixture()["inputs"][name];
    std::vector<float> values;
    for (uint32_t b : test::parse_hex(g["hex"].get<std::string>())) values.push_back(test::from_bits(b));
    return Tensor::from_vector(g["shape"].get<Shape>(), values,
                               g["dtype"] == "bool" ? DType::Bool : DType::Float32);
}

// The result matches the fixture's: shape, bits (where the fixture says PyTorch's order is the core's), text.
void check(const Tensor& got, const std::string& name, const json& want, bool bits) {
    INFO(name);
    CHECK(got.shape() == want["shape"].get<Shape>());
    if (bits) CHECK(test::hex_list(test::tensor_bits(got)) == want["hex"].get<std::string>());
    CHECK(to_string(got) == want["printed"].get<std::string>());
}

void check(const Tensor& got, const std::string& name) {
    const json& v = fixture()["values"][name];
    check(got, name, v["result"], v["bits"].get<bool>());
}

void check(const std::vector<Tensor>& got, const std::string& name) {
    const json& v = fixture()["values"][name];
    REQUIRE(got.size() == v["result"].size());
    for (size_t i = 0; i < got.size(); ++i) check(got[i], name, v["result"][i], v["bits"].get<bool>());
}

std::string message(const std::string& name) { return fixture()["errors"][name]["message"].get<std::string>(); }

}  // namespace

TEST_CASE("shape ops: PyTorch's values, and views where PyTorch's are views", "[ops-more]") {
    const Tensor x = input("x"), u = input("u"), v = input("v"), m2 = input("m2");
    check(x.permute({2, 0, 1}), "permute");
    check(unbind(x, 1), "unbind(1)");
    check(chunk(x, 3, 2), "chunk(3, 2)");
    check(chunk(x, 2), "chunk(2)");
    check(split(x, 3, 2), "split(3, 2)");
    check(split_with_sizes(x, {1, 3}, 2), "split([1, 3], 2)");
    check(flatten(x, 1), "flatten(1)");
    check(flatten(x, 0, 1), "flatten(0, 1)");
    check(flatten(x, 0), "flatten()");
    check(flatten(x.T(), 0), "T.flatten()");
    check(squeeze(u), "squeeze()");
    check(squeeze(u, 1), "squeeze(1)");
    check(squeeze(u, 0), "squeeze(0)");
    check(expand(v, {2, 3, 4}), "expand(2, 3, 4)");
    check(expand(v, {-1, 4}), "expand(-1, 4)");
    check(repeat(m2, {2, 1, 2}), "repeat(2, 1, 2)");
    check(movedim(x, 0, 2), "movedim(0, 2)");
    check(slice_step(x, 1, 0, 3, 2), "x[:, ::2]");
    check(slice_step(x, 2, 1, 4, 2), "x[..., 1::2]");
    for (const Tensor& view : {unbind(x, 1)[0], chunk(x, 2, 2)[1], flatten(x, 0, 1), squeeze(u), expand(v, {2, 3, 4}),
                               movedim(x, 0, 2), slice_step(x, 2, 1, 4, 2)})
        CHECK((view.shares_storage_with(x) || view.shares_storage_with(u) || view.shares_storage_with(v)));
    CHECK_FALSE(repeat(m2, {2, 1}).shares_storage_with(m2));
    CHECK(expand(v, {2, 3, 4}).strides() == Shape{0, 1, 0});
}

TEST_CASE("indexing with masks and lists; assignment through them writes the tensor's storage", "[ops-more]") {
    const Tensor x = input("x"), m2 = input("m2"), mask = input("mask");
    check(index_mask(m2, mask), "m2[mask]");
    check(index_mask(x, input("rowmask")), "x[rowmask]");
    check(index_select(m2, 0, {0, 2}), "m2[[0, 2]]");
    check(index_select(m2, 1, {3, 1, -4}), "m2[:, [3, 1, -4]]");
    Tensor t = m2.clone();
    index_put_mask(t, mask, scalar_tensor(0.0));
    const std::vector<float> before = m2.to_vector(), after = t.to_vector(), flags = mask.to_vector();
    for (size_t i = 0; i < before.size(); ++i) CHECK(after[i] == (flags[i] != 0 ? 0.0f : before[i]));
    Tensor view = t.T();  // through a view: t.T[[0, 2]] = 7 writes t's columns 0 and 2
    index_put_rows(view, 0, {0, 2}, scalar_tensor(7.0));
    for (int64_t r = 0; r < 3; ++r) CHECK((t.at({r, 0}) == 7.0f && t.at({r, 2}) == 7.0f));
    CHECK_THROWS_WITH(index_mask(x, input("tfmask")), Equals(message("x[tfmask]")));
    CHECK_THROWS_WITH(index_select(m2, 0, {0, 5}), Equals(message("m2[[0, 5]]")));
    Tensor copy = m2.clone();
    CHECK_THROWS_WITH(index_put_mask(copy, mask, input("v2")), Equals(message("m2[mask] = v2")));
}

TEST_CASE("reductions: PyTorch's bits (mean is the sum over n, var and std accumulate in double)", "[ops-more]") {
    const Tensor x = input("x"), pos = input("pos");
    check(sum_dims(x, {0, 2}), "sum((0, 2))");
    check(sum_dims(x, {0, 1, 2}), "sum((0, 1, 2))");
    check(sum_dims(x, {1, 2}, true), "sum((1, 2), keepdim=True)");
    check(mean(x), "mean()");
    check(mean_dims(x, {1}), "mean(1)");
    check(mean_dims(x, {0, 2}, true), "mean((0, 2), keepdim=True)");
    check(var(x, {}), "var()");
    check(var(x, {1}), "var(1)");
    check(var(x, {1}, 0), "var(1, unbiased=False)");
    check(std_dev(x, {}), "std()");
    check(std_dev(x, {0, 2}, 1, true), "std((0, 2), keepdim=True)");
    check(max(x), "max()");
    check(min(x), "min()");
    check(amax(x, {1}), "amax(1)");
    check(amin(x, {0, 2}, true), "amin((0, 2), keepdim=True)");
    check(prod(pos), "prod()");
    check(prod(pos, 1), "prod(1)");
    check(cumsum(x, 1), "cumsum(1)");
    check(cumsum(x, -1), "cumsum(-1)");
    // The scalar reference: var as the two-pass mean and squared deviations in double.
    const std::vector<float> v = x.to_vector();
    double m = 0, m2 = 0;
    for (float f : v) m += f;
    m /= double(v.size());
    for (float f : v) m2 += (f - m) * (f - m);
    CHECK(std::fabs(var(x, {}).item() - m2 / double(v.size() - 1)) < 1e-6);
    CHECK_THROWS_WITH(max(input("o0")), Equals(message("max() of nothing")));
    CHECK_THROWS_WITH(mean_dims(input("o23"), {0, 0}), Equals(message("mean((0, 0))")));
}

TEST_CASE("element-wise math and where, isclose, equal, log_softmax", "[ops-more]") {
    const Tensor x = input("x"), pos = input("pos"), m2 = input("m2"), mask = input("mask");
    check(abs(x), "abs()");
    check(log(pos), "log()");
    check(sqrt(pos), "sqrt()");
    check(rsqrt(pos), "rsqrt()");
    check(clamp(x, -0.5, 0.5), "clamp(-0.5, 0.5)");
    check(clamp(x, 0, NAN), "clamp(min=0)");
    check(clamp(x, NAN, 0), "clamp(max=0)");
    check(where(mask, m2, pos), "where(mask, m2, pos)");
    check(where(mask, m2, input("s")), "where(mask, m2, 0-d)");
    check(isclose(m2, input("m2b")), "isclose(m2, m2b)");
    check(log_softmax(x, -1), "log_softmax(-1)");
    check(log_softmax(x, 1), "log_softmax(1)");
    CHECK(equal(m2, m2));
    CHECK_FALSE(equal(m2, input("m2b")));
    CHECK_THROWS_WITH(clamp(x, NAN, NAN), Equals(message("clamp()")));
    CHECK_THROWS_WITH(where(input("o23"), input("o23"), input("o3")), Equals(message("where with a float condition")));
}

TEST_CASE("bmm, baddbmm and einsum: PyTorch's bits and messages", "[ops-more]") {
    const Tensor x = input("x"), y = input("y"), m2 = input("m2");
    check(bmm(x, y), "bmm(x, y)");
    check(baddbmm(input("b3"), x, y), "baddbmm(b3, x, y)");
    check(baddbmm(input("b1"), x, y, 0.5, 2), "baddbmm(b1, x, y, beta=0.5, alpha=2)");
    check(baddbmm(input("b3"), x, y, 1, 0.3), "baddbmm(b3, x, y, alpha=0.3)");
    check(baddbmm(input("b3"), x, y, 0, 1.5), "baddbmm(b3, x, y, beta=0, alpha=1.5)");
    check(einsum("bij,bkj->bik", {x, x}), "einsum('bij,bkj->bik', x, x)");
    check(einsum("bij,bjk->bik", {x, y}), "einsum('bij,bjk->bik', x, y)");
    check(einsum("ij,jk->ik", {m2, input("w")}), "einsum('ij,jk->ik', m2, w)");
    check(einsum("bhqd,bhkd->bhqk", {input("q"), input("k")}), "einsum('bhqd,bhkd->bhqk', q, k)");
    check(einsum("ij->ji", {m2}), "einsum('ij->ji', m2)");
    check(einsum("bij->bj", {x}), "einsum('bij->bj', x)");
    check(einsum("i,j->ij", {input("a5"), input("a3")}), "einsum('i,j->ij', a5, a3)");
    check(einsum("ij,ij->i", {m2, input("m2b")}), "einsum('ij,ij->i', m2, m2b)");
    check(einsum("ij,jk", {m2, input("w")}), "einsum('ij,jk', m2, w)");
    // bmm is matmul's running sum from +0 over k, each product and sum rounded: the scalar reference.
    const Tensor r = bmm(x, y);
    for (int64_t b = 0; b < 2; ++b)
        for (int64_t i = 0; i < 3; ++i)
            for (int64_t j = 0; j < 3; ++j) {
                float acc = 0.0f;
                for (int64_t k = 0; k < 4; ++k) acc += x.at({b, i, k}) * y.at({b, k, j});
                CHECK(test::bits(r.at({b, i, j})) == test::bits(acc));
            }
    CHECK_THROWS_WITH(bmm(input("o23"), input("o23")), Equals(message("bmm of matrices")));
    CHECK_THROWS_WITH(bmm(input("o234"), input("o256")), Equals(message("bmm [2,3,4] [2,5,6]")));
    CHECK_THROWS_WITH(einsum("ij,jk->ik", {input("o23"), input("o45")}), Equals(message("einsum sizes")));
    CHECK_THROWS_WITH(einsum("ij->k", {input("o23")}), Equals(message("einsum output")));
}

TEST_CASE("PyTorch's messages for the shape mistakes learners make", "[ops-more]") {
    const Tensor o23 = input("o23");
    CHECK_THROWS_WITH(matmul(input("o45"), input("o34")), Equals(message("4x5 @ 3x4")));
    CHECK_THROWS_WITH(matmul(input("o5"), input("o4")), Equals(message("[5] @ [4]")));
    CHECK_THROWS_WITH(matmul(input("o34"), input("o5")), Equals(message("[3,4] @ [5]")));
    CHECK_THROWS_WITH(matmul(input("o5"), input("o43")), Equals(message("[5] @ [4,3]")));
    CHECK_THROWS_WITH(matmul(input("o234"), input("o256")), Equals(message("[2,3,4] @ [2,5,6]")));
    CHECK_THROWS_WITH(matmul(input("o234"), input("o56")), Equals(message("[2,3,4] @ [5,6]")));
    CHECK_THROWS_WITH(matmul(input("o34"), input("o256")), Equals(message("[3,4] @ [2,5,6]")));
    CHECK_THROWS_WITH(matmul(input("o234"), input("o346")), Equals(message("[2,3,4] @ [3,4,6]")));
    CHECK_THROWS_WITH(matmul(input("o234"), input("o5")), Equals(message("[2,3,4] @ [5]")));
    CHECK_THROWS_WITH(matmul(input("o5"), input("o243")), Equals(message("[5] @ [2,4,3]")));
    CHECK_THROWS_WITH(o23.T().view({6}), Equals(message("view of a transpose")));
    CHECK_THROWS_WITH(add(input("o24"), o23), Equals(message("[2,4] + [2,3]")));
    CHECK_THROWS_WITH(cat({o23, input("o24")}), Equals(message("cat of [2,3] and [2,4]")));
    CHECK_THROWS_WITH(cat({o23, input("o3")}), Equals(message("cat of [2,3] and [3]")));
    CHECK_THROWS_WITH(stack({o23, input("o24")}), Equals(message("stack of [2,3] and [2,4]")));
    CHECK_THROWS_WITH(chunk(o23, 0), Equals(message("chunk(0)")));
    CHECK_THROWS_WITH(split_with_sizes(o23, {2, 3}, 1), Equals(message("split([2, 3], 1)")));
    CHECK_THROWS_WITH(expand(o23, {2, 4}), Equals(message("expand(2, 4)")));
    CHECK_THROWS_WITH(expand(o23, {3}), Equals(message("expand(3)")));
    CHECK_THROWS_WITH(repeat(o23, {2}), Equals(message("repeat(2)")));
    CHECK_THROWS_WITH(flatten(o23, 1, 0), Equals(message("flatten(1, 0)")));
    CHECK_THROWS_WITH(movedim(o23, 0, 2), Equals(message("movedim(0, 2)")));
}

TEST_CASE("hostile sizes: refused with a message, never overflowing", "[ops-more]") {
    const Tensor o23 = input("o23");
    CHECK_THROWS_WITH(repeat(o23, {int64_t{1} << 62, 1}), Catch::Contains("more than one tensor may hold"));
    CHECK_THROWS_WITH(repeat(o23, {-(int64_t{1} << 62), 1}), Catch::StartsWith("Trying to create tensor with negative"));
    CHECK_THROWS_WITH(repeat(o23, {-1, 2}), Equals("Trying to create tensor with negative dimension -2: [-2, 6]"));
    CHECK(slice_step(o23, 1, 0, 3, INT64_MAX).shape() == Shape{2, 1});
    CHECK(chunk(input("o0"), 3).size() == 3);
    CHECK_THROWS_WITH(chunk(input("o0"), int64_t{1} << 40), Catch::Contains("empty chunks"));
    CHECK_THROWS_WITH(expand(o23, {int64_t{1} << 40, 2, 3}), Catch::Contains("too large"));
}

TEST_CASE("log_softmax in ATen's order: lanes along the last dim, vector blocks down a column", "[ops-more]") {
    check(log_softmax(input("wide"), -1), "wide log_softmax(-1)");
    check(log_softmax(input("deep"), 1), "deep log_softmax(1)");
}

TEST_CASE("bool tensors: PyTorch's refusals, and no int64 result passed off as float32", "[ops-more]") {
    const Tensor b = input("mask");
    CHECK_THROWS_WITH(mean(b), Catch::StartsWith("mean(): could not infer output dtype."));
    CHECK_THROWS_WITH(var(b, {}), Equals("std and var only support floating point and complex dtypes"));
    CHECK_THROWS_WITH(abs(b), Equals("\"abs_cpu\" not implemented for 'Bool'"));
    CHECK_THROWS_WITH(log_softmax(b, 0), Equals("\"softmax_kernel_impl\" not implemented for 'Bool'"));
    CHECK_THROWS_WITH(cumsum(b, 0), Catch::Contains("int64"));
    CHECK(amax(b, {}).dtype() == DType::Bool);
    CHECK(where(b, b, b).dtype() == DType::Bool);
    CHECK(log(b).dtype() == DType::Float32);
}
