// Golden tests: every case in tests/golden/golden.json (PyTorch 1.13.1 CPU float32 results, written by
// tests/golden/gen_golden.py) is recomputed through the public API and compared bit for bit.
// A failure names the case, the first differing element and both bit patterns.
// The one allowance: a NaN matches any NaN (PyTorch specifies no NaN sign or payload).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/tensor.hpp"

namespace {

using json = nlohmann::json;
using attn::Tensor;

const json& golden() {
    static const json data = [] {
        const std::string path = std::string(ATTN_GOLDEN_DIR) + "/golden.json";
        std::ifstream in(path);
        if (!in) throw std::runtime_error("cannot open " + path + " (run tests/golden/gen_golden.py)");
        return json::parse(in);
    }();
    return data;
}

// ---- decoding: {"shape": [...], "hex": "3f800000 ...", "views": [["T"], ["transpose", 1, 2]]}

std::string hex32(uint32_t b) {
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", b);
    return buf;
}

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

std::vector<uint32_t> parse_bits(const json& hex) {
    std::vector<uint32_t> out;
    auto add = [&out](const std::string& word) { out.push_back(static_cast<uint32_t>(std::stoul(word, nullptr, 16))); };
    if (hex.is_array()) {
        for (const json& w : hex) add(w.get<std::string>());
    } else {
        std::istringstream in(hex.get<std::string>());
        std::string word;
        while (in >> word) add(word);
    }
    return out;
}

attn::Shape shape_of(const json& t) { return t.at("shape").get<attn::Shape>(); }

Tensor decode(const json& t) {
    std::vector<float> values;
    for (uint32_t b : parse_bits(t.at("hex"))) {
        float f;
        std::memcpy(&f, &b, sizeof f);
        values.push_back(f);
    }
    Tensor out = Tensor::from_vector(shape_of(t), std::move(values));
    if (t.contains("views")) {
        for (const json& v : t.at("views")) {
            const std::string kind = v.at(0).get<std::string>();
            if (kind == "T") {
                out = out.T();
            } else if (kind == "transpose") {
                out = out.transpose(v.at(1).get<int64_t>(), v.at(2).get<int64_t>());
            } else {
                throw std::runtime_error("unknown view " + kind);
            }
        }
    }
    return out;
}

uint64_t seed_of(const json& s) {
    // Python ints: 2**63 and 2**64-1 arrive unsigned, -1 signed (its two's complement is the seed).
    return s.is_number_unsigned() ? s.get<uint64_t>() : static_cast<uint64_t>(s.get<int64_t>());
}

// ---- comparison

std::string index_str(int64_t flat, const attn::Shape& shape) {
    std::vector<int64_t> idx(shape.size());
    for (size_t d = shape.size(); d-- > 0;) {
        idx[d] = shape[d] ? flat % shape[d] : 0;
        flat = shape[d] ? flat / shape[d] : 0;
    }
    std::string s = "[";
    for (size_t d = 0; d < idx.size(); ++d) s += (d ? "," : "") + std::to_string(idx[d]);
    return s + "]";
}

// Empty when `got` has the expected shape and bits; otherwise what differs first.
std::string difference(const Tensor& got, const json& expected) {
    const attn::Shape shape = shape_of(expected);
    if (got.shape() != shape) {
        return "shape " + attn::shape_str(got.shape()) + ", expected " + attn::shape_str(shape);
    }
    const std::vector<uint32_t> want = parse_bits(expected.at("hex"));
    const std::vector<float> have = got.to_vector();
    if (have.size() != want.size()) {
        return std::to_string(have.size()) + " values, expected " + std::to_string(want.size());
    }
    int64_t first = -1, count = 0;
    for (size_t i = 0; i < want.size(); ++i) {
        const uint32_t h = bits_of(have[i]);
        float w;
        std::memcpy(&w, &want[i], sizeof w);
        const bool same = h == want[i] || (std::isnan(have[i]) && std::isnan(w));
        if (!same) {
            if (first < 0) first = static_cast<int64_t>(i);
            ++count;
        }
    }
    if (first < 0) return "";
    float w;
    std::memcpy(&w, &want[static_cast<size_t>(first)], sizeof w);
    char vals[96];
    std::snprintf(vals, sizeof vals, " (%.9g vs %.9g)", static_cast<double>(have[static_cast<size_t>(first)]),
                  static_cast<double>(w));
    return "element " + std::to_string(first) + " " + index_str(first, shape) + ": got " +
           hex32(bits_of(have[static_cast<size_t>(first)])) + ", expected " + hex32(want[static_cast<size_t>(first)]) +
           vals + "; " + std::to_string(count) + " of " + std::to_string(want.size()) + " elements differ";
}

void expect_same(const std::string& where, const Tensor& got, const json& expected) {
    const std::string diff = difference(got, expected);
    if (diff.empty()) {
        SUCCEED();
    } else {
        FAIL_CHECK(where << ": " << diff);
    }
}

void expect_draws(const std::string& where, uint64_t expected) {
    const uint64_t got = attn::default_generator().draws();
    if (got == expected) {
        SUCCEED();
    } else {
        FAIL_CHECK(where << ": generator draws " << got << ", expected " << expected);
    }
}

// Runs one case; an exception fails that case only, with its name.
template <class F>
void guarded(const std::string& name, F&& run) {
    try {
        run();
    } catch (const std::exception& e) {
        FAIL_CHECK(name << ": threw " << e.what());
    }
}

// ---- group a: generator streams

void run_rng_case(const json& c) {
    const std::string name = c.at("name").get<std::string>();
    attn::Generator& gen = attn::default_generator();
    Tensor prev;  // the last rand/uniform/randn result, input of a following "prev" dropout
    int64_t index = 0;
    for (const json& step : c.at("steps")) {
        const std::string op = step.at("op").get<std::string>();
        const std::string where = name + " step " + std::to_string(index++) + " (" + op + ")";
        if (op == "seed") {
            attn::manual_seed(seed_of(step.at("seed")));
        } else if (op == "rand") {
            prev = attn::rand(step.at("shape").get<attn::Shape>());
            expect_same(where, prev, step.at("out"));
        } else if (op == "uniform") {
            prev = Tensor::empty(step.at("shape").get<attn::Shape>());
            attn::fill_uniform(prev, step.at("from").get<double>(), step.at("to").get<double>(), gen);
            expect_same(where, prev, step.at("out"));
        } else if (op == "randn") {
            prev = attn::randn(step.at("shape").get<attn::Shape>());
            expect_same(where, prev, step.at("out"));
        } else if (op == "linear") {
            const bool bias = step.at("bias").get<bool>();
            attn::nn::Linear lin(step.at("in_features").get<int64_t>(), step.at("out_features").get<int64_t>(), bias);
            expect_same(where + " weight", lin.weight, step.at("weight"));
            if (bias != lin.bias.has_value()) {
                FAIL_CHECK(where << ": bias present " << lin.bias.has_value() << ", expected " << bias);
            } else if (bias) {
                expect_same(where + " bias", *lin.bias, step.at("bias_value"));
            }
        } else if (op == "dropout") {
            attn::nn::Dropout dropout(step.at("p").get<double>());  // modules start in training mode
            const bool ones = step.at("input").get<std::string>() == "ones";
            const Tensor x = ones ? attn::ones(step.at("shape").get<attn::Shape>()) : prev;
            expect_same(where, dropout(x), step.at("out"));
        } else {
            FAIL_CHECK(where << ": unknown op");
            continue;
        }
        expect_draws(where, step.at("draws").get<uint64_t>());
    }
}

// ---- group b: ops

void run_ops_case(const json& c) {
    const std::string name = c.at("name").get<std::string>();
    const std::string op = c.at("op").get<std::string>();
    if (op == "sum") {
        expect_same(name, attn::sum(decode(c.at("x"))), c.at("out"));
    } else if (op == "sum_dim") {
        const Tensor x = decode(c.at("x"));
        for (const json& o : c.at("outs")) {
            const int64_t dim = o.at("dim").get<int64_t>();
            const bool keepdim = o.at("keepdim").get<bool>();
            expect_same(name + " dim=" + std::to_string(dim) + " keepdim=" + std::to_string(keepdim),
                        attn::sum(x, dim, keepdim), o.at("out"));
        }
    } else if (op == "softmax") {
        const Tensor x = decode(c.at("x"));
        for (const json& o : c.at("outs")) {
            const int64_t dim = o.at("dim").get<int64_t>();
            expect_same(name + " dim=" + std::to_string(dim), attn::softmax(x, dim), o.at("out"));
        }
    } else if (op == "exp") {
        expect_same(name, attn::exp(decode(c.at("x"))), c.at("out"));
    } else if (op == "matmul") {
        expect_same(name, attn::matmul(decode(c.at("a")), decode(c.at("b"))), c.at("out"));
    } else if (op == "dot") {
        expect_same(name, attn::dot(decode(c.at("a")), decode(c.at("b"))), c.at("out"));
    } else if (op == "div" || op == "mul" || op == "add" || op == "sub") {
        const Tensor x = decode(c.at("x"));
        const double s = c.at("s").get<double>();
        const Tensor y = op == "div"   ? attn::div(x, s)
                         : op == "mul" ? attn::mul(x, s)
                         : op == "add" ? attn::add(x, s)
                                       : attn::sub(x, s);
        expect_same(name, y, c.at("out"));
    } else if (op == "linear") {
        const Tensor weight = decode(c.at("weight"));
        const bool has_bias = c.contains("bias");
        attn::Generator scratch;  // construction draws go here, not to the default generator
        attn::nn::Linear lin(weight.size(1), weight.size(0), has_bias, scratch);
        lin.weight.copy_(weight);
        if (has_bias) lin.bias->copy_(decode(c.at("bias")));
        expect_same(name, lin(decode(c.at("x"))), c.at("out"));
    } else {
        FAIL_CHECK(name << ": unknown op " << op);
    }
}

// ---- group c: modules

using Params = std::map<std::string, Tensor>;

void add_linear(Params& params, const std::string& prefix, const attn::nn::Linear& lin) {
    params[prefix + ".weight"] = lin.weight;
    if (lin.bias) params[prefix + ".bias"] = *lin.bias;
}

void add_qkv(Params& params, const std::string& prefix, const attn::nn::Linear& q, const attn::nn::Linear& k,
             const attn::nn::Linear& v) {
    add_linear(params, prefix + "W_query", q);
    add_linear(params, prefix + "W_key", k);
    add_linear(params, prefix + "W_value", v);
}

// Builds the module on the default generator; `params` gets its parameters under PyTorch's state_dict names.
std::unique_ptr<attn::nn::Module> build(const std::string& kind, const json& cfg, Params& params) {
    const int64_t d_in = cfg.at("d_in").get<int64_t>();
    const int64_t d_out = cfg.at("d_out").get<int64_t>();
    const bool qkv_bias = cfg.value("qkv_bias", false);
    const int64_t context_length = cfg.value("context_length", int64_t{0});
    const double dropout = cfg.value("dropout", 0.0);
    const int64_t num_heads = cfg.value("num_heads", int64_t{1});
    if (kind == "SelfAttention_v1") {
        auto m = std::make_unique<attn::nn::SelfAttention_v1>(d_in, d_out);
        params["W_query"] = m->W_query;
        params["W_key"] = m->W_key;
        params["W_value"] = m->W_value;
        return m;
    }
    if (kind == "SelfAttention_v2") {
        auto m = std::make_unique<attn::nn::SelfAttention_v2>(d_in, d_out, qkv_bias);
        add_qkv(params, "", m->W_query, m->W_key, m->W_value);
        return m;
    }
    if (kind == "CausalAttention") {
        auto m = std::make_unique<attn::nn::CausalAttention>(d_in, d_out, context_length, dropout, qkv_bias);
        add_qkv(params, "", m->W_query, m->W_key, m->W_value);
        return m;
    }
    if (kind == "MultiHeadAttentionWrapper") {
        auto m = std::make_unique<attn::nn::MultiHeadAttentionWrapper>(d_in, d_out, context_length, dropout,
                                                                        num_heads, qkv_bias);
        for (size_t h = 0; h < m->heads.size(); ++h) {
            const auto& head = m->heads[h];
            add_qkv(params, "heads." + std::to_string(h) + ".", head.W_query, head.W_key, head.W_value);
        }
        return m;
    }
    if (kind == "MultiHeadAttention") {
        auto m = std::make_unique<attn::nn::MultiHeadAttention>(d_in, d_out, context_length, dropout, num_heads,
                                                                 qkv_bias);
        add_qkv(params, "", m->W_query, m->W_key, m->W_value);
        add_linear(params, "out_proj", m->out_proj);
        return m;
    }
    throw std::runtime_error("unknown module " + kind);
}

void run_module_case(const json& c) {
    const std::string name = c.at("name").get<std::string>();
    const json& draws = c.at("draws");

    // 1. manual_seed, build: the parameters are drawn in attribute order
    attn::manual_seed(seed_of(c.at("seed")));
    Params params;
    std::unique_ptr<attn::nn::Module> module = build(c.at("module").get<std::string>(), c.at("config"), params);
    if (c.contains("params")) {
        const json& expected = c.at("params");
        for (const auto& item : expected.items()) {
            auto it = params.find(item.key());
            if (it == params.end()) {
                FAIL_CHECK(name << ": no parameter " << item.key());
            } else {
                expect_same(name + " param " + item.key(), it->second, item.value());
            }
        }
        for (const auto& p : params) {
            if (!expected.contains(p.first)) FAIL_CHECK(name << ": unexpected parameter " << p.first);
        }
    }
    expect_draws(name + " after build", draws.at("build").get<uint64_t>());

    // 2. the input: drawn with rand after building, or given
    const json& xj = c.at("x");
    Tensor x;
    if (c.at("input").get<std::string>() == "rand") {
        x = attn::rand(shape_of(xj));
        expect_same(name + " input", x, xj);
    } else {
        x = decode(xj);
    }
    expect_draws(name + " after input", draws.at("input").get<uint64_t>());

    // 3. forward (dropout draws its masks here in training mode)
    if (c.at("mode").get<std::string>() == "eval") module->eval();
    expect_same(name + " output", (*module)(x), c.at("out"));
    expect_draws(name + " after forward", draws.at("forward").get<uint64_t>());
}

template <class Run>
void run_group(const char* group, Run run) {
    for (const json& c : golden().at(group)) {
        const std::string name = c.at("name").get<std::string>();
        DYNAMIC_SECTION(name) { guarded(name, [&] { run(c); }); }
    }
}

}  // namespace

// rand, uniform_, randn, Linear init and Dropout masks, with the draw count after every step
TEST_CASE("golden rng: generator streams after manual_seed", "[golden]") {
    run_group("rng", run_rng_case);
}

// sum, sum(dim), softmax, exp, matmul, dot, scalar div/mul/add/sub, Linear forward
TEST_CASE("golden ops: tensor operations on given inputs", "[golden]") {
    run_group("ops", run_ops_case);
}

// SelfAttention_v1/v2, CausalAttention, MultiHeadAttentionWrapper, MultiHeadAttention: parameters, input, output
TEST_CASE("golden modules: attention modules after manual_seed", "[golden]") {
    run_group("modules", run_module_case);
}
