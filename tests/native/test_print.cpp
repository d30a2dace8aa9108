// str(tensor) against PyTorch 1.13: the test vectors of torch-numerics.md §5.4, then every case of
// golden/print.json (written by golden/gen_print.py from real torch).
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "attn/print.hpp"
#include "attn/tensor.hpp"

using attn::DType;
using attn::PrintOptionsUpdate;
using attn::Tensor;
using attn::to_string;

namespace {

PrintOptionsUpdate profile(const char* name) {
    PrintOptionsUpdate update;
    update.profile = name;
    return update;
}

// print_options() is global: every test puts back what it found.
struct OptionsGuard {
    attn::PrintOptions saved = attn::print_options();
    OptionsGuard() { attn::set_printoptions(profile("default")); }
    ~OptionsGuard() { attn::print_options() = saved; }
};

Tensor vec(std::vector<float> values) {
    const auto n = static_cast<int64_t>(values.size());
    return Tensor::from_vector({n}, std::move(values));
}

float from_hex(const std::string& hex) {
    const auto bits = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

const float kNan = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

}  // namespace

// ---- §5.4 test vectors, default options unless stated

TEST_CASE("print: 1.0 is an integer 0-d tensor", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(Tensor::from_vector({}, {1.0f})) == "tensor(1.)");
}

TEST_CASE("print: 1.0000001 is not an integer", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(Tensor::from_vector({}, {1.0000001f})) == "tensor(1.0000)");
}

TEST_CASE("print: integers are padded to a common width", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({-1.0f, 2.0f, 0.0f})) == "tensor([-1.,  2.,  0.])");
}

TEST_CASE("print: a value below 1e-4 switches to sci", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({1e-5f, 1.0f})) == "tensor([1.0000e-05, 1.0000e+00])");
}

TEST_CASE("print: a ratio above 1000 switches to sci", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({0.5f, 1000.0f})) == "tensor([5.0000e-01, 1.0000e+03])");
}

TEST_CASE("print: integers with a ratio above 1000 switch to sci", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({2.0f, 3000.0f})) == "tensor([2.0000e+00, 3.0000e+03])");
}

TEST_CASE("print: nan and inf are padded but do not set the width", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({kNan, 1.5f, -kInf})) == "tensor([   nan, 1.5000,   -inf])");
}

TEST_CASE("print: negative zero", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({-0.0f, 1.0f})) == "tensor([-0., 1.])");
}

TEST_CASE("print: exact ties round to even", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({0.03125f, 0.5f})) == "tensor([0.0312, 0.5000])");
}

TEST_CASE("print: 1.5e-4 is below the sci switch", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(vec({1.5e-4f, 0.5f})) == "tensor([1.5000e-04, 5.0000e-01])");
}

TEST_CASE("print: ones(1001) is summarised", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(Tensor::full({1001}, 1.0f)) == "tensor([1., 1., 1.,  ..., 1., 1., 1.])");
}

TEST_CASE("print: an empty 3-d tensor prints its size", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(Tensor::empty({2, 0, 3})) == "tensor([], size=(2, 0, 3))");
}

TEST_CASE("print: arange(16)/7 wraps at 9 per line", "[print]") {
    OptionsGuard guard;
    std::vector<float> values;
    for (int i = 0; i < 16; ++i) values.push_back(static_cast<float>(i) / 7.0f);
    CHECK(to_string(vec(values)) ==
          "tensor([0.0000, 0.1429, 0.2857, 0.4286, 0.5714, 0.7143, 0.8571, 1.0000, 1.1429,\n"
          "        1.2857, 1.4286, 1.5714, 1.7143, 1.8571, 2.0000, 2.1429])");
}

TEST_CASE("print: sci_mode=False keeps the sci width", "[print]") {
    OptionsGuard guard;
    PrintOptionsUpdate update;
    update.precision = 2;
    update.sci_mode = false;
    attn::set_printoptions(update);
    CHECK(to_string(vec({1e-5f, 1.0f})) == "tensor([    0.00,     1.00])");
}

TEST_CASE("print: set_printoptions resets sci_mode when not given", "[print]") {
    OptionsGuard guard;
    PrintOptionsUpdate sci;
    sci.sci_mode = true;
    attn::set_printoptions(sci);
    PrintOptionsUpdate precision;
    precision.precision = 3;
    attn::set_printoptions(precision);
    CHECK(!attn::print_options().sci_mode.has_value());
    CHECK(to_string(vec({0.5f, 2.0f})) == "tensor([0.500, 2.000])");
}

TEST_CASE("print: a 2x6 softmax moves grad_fn to its own line", "[print]") {
    OptionsGuard guard;
    // Layout only: any 2x6 of 4-decimal values has a last line of 57 characters, and 57 + 26 + 4 > 80.
    Tensor t = Tensor::from_vector({2, 6}, {0.1250f, 0.2500f, 0.1875f, 0.1250f, 0.1875f, 0.1250f,  //
                                            0.1500f, 0.1600f, 0.1700f, 0.1800f, 0.1818f, 0.1641f});
    t.record("SoftmaxBackward0", true);
    CHECK(to_string(t) ==
          "tensor([[0.1250, 0.2500, 0.1875, 0.1250, 0.1875, 0.1250],\n"
          "        [0.1500, 0.1600, 0.1700, 0.1800, 0.1818, 0.1641]],\n"
          "       grad_fn=<SoftmaxBackward0>)");
}

TEST_CASE("print: arange(1100).reshape(100, 11)/3 is sci, 6 per line, with a ... row", "[print]") {
    OptionsGuard guard;
    std::vector<float> values;
    for (int i = 0; i < 1100; ++i) values.push_back(static_cast<float>(i) / 3.0f);
    const std::string text = to_string(Tensor::from_vector({100, 11}, values));
    // Six items per line, the " ..." gap counting as one of them.
    CHECK(text.rfind("tensor([[0.0000e+00, 3.3333e-01, 6.6667e-01,  ..., 2.6667e+00, 3.0000e+00,\n"
                     "         3.3333e+00],\n",
                     0) == 0);
    CHECK(text.find("\n        ...,\n") != std::string::npos);
}

// ---- corners the spec states in prose

TEST_CASE("print: bool tensors print True/False padded to a common width", "[print]") {
    OptionsGuard guard;
    CHECK(to_string(Tensor::from_vector({2}, {1, 0}, DType::Bool)) == "tensor([ True, False])");
    CHECK(to_string(Tensor::from_vector({2}, {1, 1}, DType::Bool)) == "tensor([True, True])");
    CHECK(to_string(Tensor::from_vector({}, {1}, DType::Bool)) == "tensor(True)");
    CHECK(to_string(Tensor::empty({2, 0}, DType::Bool)) == "tensor([], size=(2, 0), dtype=torch.bool)");
}

TEST_CASE("print: only zeros and non-finite values ignore sci_mode", "[print]") {
    OptionsGuard guard;
    PrintOptionsUpdate sci;
    sci.sci_mode = true;
    attn::set_printoptions(sci);
    CHECK(to_string(vec({0.0f, kNan, -kInf})) == "tensor([0., nan, -inf])");
}

TEST_CASE("print: suffixes and the Parameter prefix", "[print]") {
    OptionsGuard guard;
    Tensor leaf = vec({1.0f, 2.0f});
    leaf.set_requires_grad(true);
    CHECK(to_string(leaf) == "tensor([1., 2.], requires_grad=True)");

    Tensor param = vec({1.0f, 2.0f});
    param.set_parameter(true, true);
    CHECK(to_string(param) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)");
    param.set_parameter(true, false);
    CHECK(to_string(param) == "Parameter containing:\ntensor([1., 2.])");
}

TEST_CASE("print: profiles and an explicit options object", "[print]") {
    OptionsGuard guard;
    attn::set_printoptions(profile("short"));
    CHECK(to_string(vec({0.125f, 1.0f})) == "tensor([0.12, 1.00])");
    attn::set_printoptions(profile("full"));
    CHECK(attn::print_options().threshold == std::numeric_limits<double>::infinity());
    CHECK(to_string(vec({0.125f, 1.0f}), attn::PrintOptions{}) == "tensor([0.1250, 1.0000])");
}

// ---- golden/print.json

TEST_CASE("print: golden cases from PyTorch", "[print][golden]") {
    std::ifstream in(std::string(ATTN_GOLDEN_DIR) + "/print.json");
    REQUIRE(in.good());
    const nlohmann::json doc = nlohmann::json::parse(in);
    const auto& cases = doc.at("cases");
    REQUIRE(cases.size() > 0);

    size_t passed = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        OptionsGuard guard;

        std::vector<float> values;
        for (const auto& hex : c.at("values")) values.push_back(from_hex(hex.get<std::string>()));
        const DType dtype = c.at("dtype") == "bool" ? DType::Bool : DType::Float32;
        Tensor t = Tensor::from_vector(c.at("shape").get<attn::Shape>(), values, dtype);
        const bool requires_grad = c.at("requires_grad").get<bool>();
        if (!c.at("grad_fn").is_null()) t.record(c.at("grad_fn").get<std::string>().c_str(), true);
        else if (requires_grad) t.set_requires_grad(true);
        if (c.at("is_parameter").get<bool>()) t.set_parameter(true, requires_grad);

        const auto& o = c.at("options");
        PrintOptionsUpdate update;
        if (o.contains("profile")) update.profile = o["profile"].get<std::string>();
        if (o.contains("precision")) update.precision = o["precision"].get<int>();
        if (o.contains("threshold")) update.threshold = o["threshold"].get<double>();
        if (o.contains("edgeitems")) update.edgeitems = o["edgeitems"].get<int>();
        if (o.contains("linewidth")) update.linewidth = o["linewidth"].get<int>();
        if (o.contains("sci_mode") && !o["sci_mode"].is_null()) update.sci_mode = o["sci_mode"].get<bool>();
        attn::set_printoptions(update);

        const std::string expected = c.at("str").get<std::string>();
        const std::string actual = to_string(t);
        INFO("case " << i << " options " << o.dump() << "\nexpected:\n" << expected << "\nactual:\n" << actual);
        CHECK(actual == expected);
        if (actual == expected) ++passed;
    }
    INFO(passed << " of " << cases.size() << " golden cases match");
    CHECK(passed == cases.size());
}

TEST_CASE("print: set_printoptions refuses a bad value when set and keeps the options it had", "[print]") {
    OptionsGuard guard;
    attn::set_printoptions(profile("short"));
    const Tensor t = vec({0.123456f, 2.5f});
    const std::string shown = to_string(t);
    const attn::PrintOptions kept = attn::print_options();
    const auto refused = [&](PrintOptionsUpdate update, const std::string& message) {
        update.profile = "full";  // applied first: it must not stick either
        CHECK_THROWS_WITH(attn::set_printoptions(update), message);
        CHECK(attn::print_options().precision == kept.precision);
        CHECK(attn::print_options().threshold == kept.threshold);
        CHECK(attn::print_options().edgeitems == kept.edgeitems);
        CHECK(attn::print_options().linewidth == kept.linewidth);
        CHECK(to_string(t) == shown);
    };
    PrintOptionsUpdate u;
    u.edgeitems = -7;
    refused(u, "set_printoptions: edgeitems must be an integer in [0, 2147483647], got -7");
    u = {};
    u.edgeitems = int64_t{1} << 31;
    refused(u, "set_printoptions: edgeitems must be an integer in [0, 2147483647], got 2147483648");
    u = {};
    u.precision = 1000000000;
    refused(u, "set_printoptions: precision must be an integer in [0, 149], got 1000000000");
    u = {};
    u.precision = -1;
    refused(u, "set_printoptions: precision must be an integer in [0, 149], got -1");
    u = {};
    u.linewidth = -(int64_t{1} << 31) - 1;
    refused(u, "set_printoptions: linewidth must be an integer in [-2147483648, 2147483647], got -2147483649");
    // The limits themselves are fine, and a negative linewidth puts one element per line, as in PyTorch.
    u = {};
    u.precision = 149;
    u.linewidth = -5;
    attn::set_printoptions(u);
    const std::string zeros(148, '0');
    CHECK(to_string(vec({1.5f, 2})) == "tensor([1.5" + zeros + ",\n        2.0" + zeros + "])");
    // Options handed to to_string directly follow the same rule.
    attn::PrintOptions direct;
    direct.precision = 1000000000;
    CHECK_THROWS_WITH(to_string(t, direct), "print: precision must be in [0, 149]");
}
