// int64, float64 and bool tensors against PyTorch 1.13 (tests/golden/dtypes.json from gen_dtypes.py): the
// dtype, values, printed text or error message of every binary op between every kind of operand (1-D and
// 0-d tensors of each dtype, Python bools, ints and floats), of the creation functions, conversions,
// sums, argmax/argmin and max/min, and of printing.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"

using namespace attn;
using json = nlohmann::json;

namespace {

const json& golden() {
    static const json g = [] {
        std::ifstream in(std::string(ATTN_GOLDEN_DIR) + "/dtypes.json");
        return json::parse(in);
    }();
    return g;
}

DType dtype_of(const std::string& name) {
    for (DType d : {DType::Float32, DType::Bool, DType::Int64, DType::Float64, DType::Int32})
        if (name == dtype_name(d)) return d;
    throw std::runtime_error("unknown dtype " + name);
}

std::vector<double> doubles_of(const json& hexes) {
    std::vector<double> out;
    for (const auto& h : hexes) out.push_back(std::strtod(h.get<std::string>().c_str(), nullptr));
    return out;
}

// A tensor from data as the fixture gives it: a number or a (nested) list, with its dtype.
void flatten(const json& data, Shape& shape, size_t depth, std::vector<double>& out) {
    if (!data.is_array()) {
        out.push_back(data.is_boolean() ? (data.get<bool>() ? 1.0 : 0.0) : data.get<double>());
        return;
    }
    if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(data.size()));
    for (const auto& d : data) flatten(d, shape, depth + 1, out);
}
Tensor from_data(const json& data, DType dtype) {
    Shape shape;
    std::vector<double> values;
    flatten(data, shape, 0, values);
    return Tensor::from_doubles(shape, values, dtype);
}

Tensor operand(const std::string& name) {
    const json& op = golden()["operands"][name];
    return from_data(op["data"], dtype_of(op["dtype"]));
}

Scalar number(const std::string& name) {
    const json& n = golden()["numbers"][name];
    const std::string kind = n["kind"];
    return {n["value"].is_boolean() ? (n["value"].get<bool>() ? 1.0 : 0.0) : n["value"].get<double>(),
            kind == "bool" ? ScalarKind::Bool : kind == "int" ? ScalarKind::Int : ScalarKind::Float};
}

// The result (or PyTorch's error) of `run` against the fixture's; `what` names the case.
void check(const std::function<Tensor()>& run, const json& want, const std::string& what) {
    INFO(what);
    if (want.contains("error")) {
        std::string got = "(no error)";
        try {
            run();
        } catch (const Error& e) {
            got = e.what();
        }
        CHECK(got == want["error"].get<std::string>());
        return;
    }
    const Tensor t = run();
    CHECK(dtype_name(t.dtype()) == want["dtype"].get<std::string>());
    CHECK(t.shape() == want["shape"].get<Shape>());
    const std::vector<double> values = t.to_doubles(), expected = doubles_of(want["hex"]);
    REQUIRE(values.size() == expected.size());
    for (size_t i = 0; i < values.size(); ++i)
        CHECK((values[i] == expected[i] || (std::isnan(values[i]) && std::isnan(expected[i]))));
    CHECK(to_string(t) == want["text"].get<std::string>());
}

// The fixture's binary op by name; `Other` is a Tensor or a Scalar, as each core op takes both.
template <class Other>
Tensor binary(const std::string& op, const Tensor& a, const Other& b) {
    if (op == "add") return add(a, b);
    if (op == "sub") return sub(a, b);
    if (op == "mul") return mul(a, b);
    if (op == "div") return div(a, b);
    if (op == "pow") return pow(a, b);
    if (op == "eq") return compare(a, b, Compare::Eq);
    if (op == "lt") return compare(a, b, Compare::Lt);
    if (op == "ge") return compare(a, b, Compare::Ge);
    if (op == "bitwise_and") return bitwise(a, b, Bitwise::And);
    if (op == "bitwise_or") return bitwise(a, b, Bitwise::Or);
    if (op == "bitwise_xor") return bitwise(a, b, Bitwise::Xor);
    throw std::runtime_error("unknown op " + op);
}

DType dtype_or(const json& c, DType fallback) { return c["dtype"].is_null() ? fallback : dtype_of(c["dtype"]); }

}  // namespace

TEST_CASE("dtypes: every binary op between bool, int64, float32, float64 tensors, 0-d tensors and numbers",
          "[dtypes]") {
    int checked = 0;
    for (const json& c : golden()["promotion"]) {
        const std::string a = c["a"], op = c["op"], b = c["b"];
        const std::string what = a + " " + op + " " + b;
        if (golden()["numbers"].contains(b)) {
            const Scalar s = number(b);
            CHECK(dtype_name(result_type(operand(a), s)) == golden()["result_type"][a + "," + b].get<std::string>());
            check([&] { return binary(op, operand(a), s); }, c["result"], what);
        } else {
            CHECK(dtype_name(result_type(operand(a), operand(b))) ==
                  golden()["result_type"][a + "," + b].get<std::string>());
            check([&] { return binary(op, operand(a), operand(b)); }, c["result"], what);
        }
        ++checked;
    }
    CHECK(checked == static_cast<int>(golden()["promotion"].size()));
    CHECK(checked > 1000);
}

TEST_CASE("dtypes: arange, linspace, eye, full, zeros, ones and empty with PyTorch's values and dtypes",
          "[dtypes]") {
    for (const json& c : golden()["creation"]) {
        const std::string fn = c["fn"];
        const json& args = c["args"];
        const std::string what = fn + args.dump() + " dtype=" + c["dtype"].dump();
        const auto is_int = [](const json& v) { return v.is_number_integer(); };
        check(
            [&]() -> Tensor {
                if (fn == "arange") {
                    const bool ints = std::all_of(args.begin(), args.end(), is_int);
                    const DType dtype = dtype_or(c, ints ? DType::Int64 : DType::Float32);
                    const double start = args.size() > 1 ? args[0].get<double>() : 0.0;
                    const double end = args.size() > 1 ? args[1].get<double>() : args[0].get<double>();
                    const double step = args.size() > 2 ? args[2].get<double>() : 1.0;
                    return arange(start, end, step, dtype);
                }
                if (fn == "linspace")
                    return linspace(args[0].get<double>(), args[1].get<double>(), args[2].get<int64_t>(),
                                    dtype_or(c, DType::Float32));
                if (fn == "eye") {
                    const int64_t n = args[0], m = args.size() > 1 ? args[1].get<int64_t>() : n;
                    return eye(n, m, dtype_or(c, DType::Float32));
                }
                if (fn == "full") {
                    const json& v = args[1];
                    const DType inferred = v.is_boolean() ? DType::Bool : is_int(v) ? DType::Int64 : DType::Float32;
                    return full(args[0].get<Shape>(), v.is_boolean() ? v.get<bool>() : v.get<double>(),
                                dtype_or(c, inferred));
                }
                const Shape shape = args[0].get<Shape>();
                const DType dtype = dtype_or(c, DType::Float32);
                if (fn == "zeros") return zeros(shape, dtype);
                if (fn == "ones") return ones(shape, dtype);
                return empty(shape, dtype);
            },
            c["result"], what);
    }
}

TEST_CASE("dtypes: tensor data given a dtype is converted as PyTorch converts it", "[dtypes]") {
    for (const json& c : golden()["tensor"]) {
        if (c["dtype"].is_null()) continue;  // inferring the dtype from Python values is the front ends' part
        check([&] { return from_data(c["data"], dtype_of(c["dtype"])); }, c["result"], c["data"].dump());
    }
}

TEST_CASE("dtypes: conversions, sums, argmax, argmin, max and min, with and without dim", "[dtypes]") {
    const json& g = golden();
    const auto named = [&](const std::string& name) {
        if (g["operands"].contains(name)) return operand(name);
        const json& m = g["method_operands"][name];
        return Tensor::from_doubles(m["shape"].get<Shape>(), doubles_of(m["hex"]), dtype_of(m["dtype"]));
    };
    for (const json& c : g["methods"]) {
        const std::string name = c["operand"], method = c["method"];
        const json& args = c["args"];
        const std::string what = name + "." + method + args.dump();
        const Tensor t = named(name);
        const json& want = c["result"];
        if ((method == "max" || method == "min") && !args.empty()) {
            INFO(what);
            if (want.contains("error")) {
                CHECK_THROWS_WITH(method == "max" ? max(t, args[0], args[1]) : min(t, args[0], args[1]),
                                  want["error"].get<std::string>());
                continue;
            }
            const ValuesIndices r = method == "max" ? max(t, args[0], args[1]) : min(t, args[0], args[1]);
            check([&] { return r.values; }, want["values"], what + " values");
            check([&] { return r.indices; }, want["indices"], what + " indices");
            continue;
        }
        check(
            [&]() -> Tensor {
                if (method == "long") return t.to(DType::Int64);
                if (method == "double") return t.to(DType::Float64);
                if (method == "float") return t.to(DType::Float32);
                if (method == "bool") return t.to(DType::Bool);
                if (method == "int") return t.to(DType::Int32);
                if (method == "sum") return args.empty() ? sum(t) : sum(t, args[0], args[1]);
                if (method == "neg") return neg(t);
                if (method == "exp") return exp(t);
                if (method == "reciprocal") return reciprocal(t);
                if (method == "bitwise_not") return bitwise_not(t);
                if (method == "mean") return mean(t);
                if (method == "var") return var(t, {});
                if (method == "std") return std_dev(t, {});
                const bool has_dim = !args.empty();
                if (method == "argmax") return has_dim ? argmax(t, args[0], args[1]) : argmax(t);
                if (method == "argmin") return has_dim ? argmin(t, args[0], args[1]) : argmin(t);
                if (method == "max") return max(t);
                if (method == "min") return min(t);
                throw std::runtime_error("unknown method " + method);
            },
            want, what);
    }
}

TEST_CASE("dtypes: printing of long int64 rows, summarised int64 and bool, float64 and empty tensors",
          "[dtypes]") {
    for (const auto& [name, want] : golden()["print"].items()) {
        Tensor t = Tensor::from_doubles(want["shape"].get<Shape>(), doubles_of(want["hex"]), dtype_of(want["dtype"]));
        if (want["text"].get<std::string>().find("requires_grad") != std::string::npos) t.set_requires_grad(true);
        INFO(name);
        CHECK(to_string(t) == want["text"].get<std::string>());
    }
}

TEST_CASE("dtypes: int64 values beyond 2^53 are refused by name, float32 kernels refuse wide tensors",
          "[dtypes]") {
    CHECK_THROWS_WITH(Tensor::from_doubles({1}, {1e17}, DType::Int64),
                      "tensor: int64 values beyond +-(2^53 - 1) = +-9007199254740991 are not supported here, got "
                      "100000000000000000");
    const Tensor big = full({1}, 9007199254740991.0, DType::Int64);
    CHECK_THROWS_WITH(add(big, Scalar{1, ScalarKind::Int}),
                      "add: int64 values beyond +-(2^53 - 1) = +-9007199254740991 are not supported here, got "
                      "9007199254740992");
    CHECK_THROWS_WITH(mul(big, big), Catch::Contains("mul: int64 values beyond"));
    CHECK_THROWS_WITH(matmul(ones({2, 2}, DType::Int64), ones({2, 2}, DType::Int64)),
                      "matmul: expected a float32 or bool tensor, got int64 (this operation has no int64 version "
                      "here; convert with .float())");
    CHECK(cat({arange(0, 2, 1, DType::Int64), full({1}, 0.5, DType::Float64)}).dtype() == DType::Float64);
    // Views of a wide tensor read and write through the same storage.
    Tensor t = arange(0, 6, 1, DType::Int64).view({2, 3});
    t.transpose(0, 1).set({2, 1}, 40);
    CHECK(to_string(t) == "tensor([[ 0,  1,  2],\n        [ 3,  4, 40]])");
    CHECK(to_string(t.transpose(0, 1).contiguous()) == "tensor([[ 0,  3],\n        [ 1,  4],\n        [ 2, 40]])");
    CHECK(t.value_at({1, 2}) == 40);
}
