#include "convert.hpp"

#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

namespace attn::wasm {

namespace {

val float32_array_copy(const float* data, size_t n) {
    // A view into the heap goes stale when memory grows: copy it out at once.
    return val(emscripten::typed_memory_view(n, data)).call<val>("slice");
}

// How an unexpected JS value is named in a message: numbers by value, anything else by kind.
std::string type_name(const val& v) {
    if (v.isNull()) return "null";
    if (v.isNumber()) return v.call<std::string>("toString");
    if (v.isArray()) return "an array";
    return v.typeOf().as<std::string>();
}

}  // namespace

int64_t integer_from_js(const val& v, const char* what) {
    if (!v.isNumber()) throw Error(std::string(what) + ", got " + type_name(v));
    const double d = v.as<double>();
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740992.0)
        throw Error(std::string(what) + ", got " + v.call<std::string>("toString"));
    return static_cast<int64_t>(d);
}

Shape shape_from_js(const val& v) {
    if (!v.isArray()) throw Error("expected an array of sizes, got " + type_name(v));
    Shape shape;
    const int n = v["length"].as<int>();
    for (int i = 0; i < n; ++i) shape.push_back(integer_from_js(v[i], "expected an integer size"));
    return shape;
}

Tensor tensor_from_js(const val& js) {
    if (js.isNull() || js.isUndefined() || !js["storage"].instanceof(val::global("Float32Array")))
        throw Error("expected a tensor, got " + type_name(js));
    std::vector<float> storage = emscripten::convertJSArrayToNumberVector<float>(js["storage"]);
    const DType dtype = js["dtype"].as<std::string>() == "bool" ? DType::Bool : DType::Float32;
    Tensor t = Tensor::from_strided(std::move(storage), shape_from_js(js["shape"]), shape_from_js(js["strides"]),
                                    integer_from_js(js["offset"], "tensor: expected an integer offset"), dtype);
    const bool requires_grad = js["requiresGrad"].isTrue();
    if (js["isParameter"].isTrue()) t.set_parameter(true, requires_grad);
    else if (!js["gradFn"].as<std::string>().empty()) t.record(js["gradFn"].as<std::string>().c_str(), true);
    else t.set_requires_grad(requires_grad);
    return t;
}

static val shape_to_js(const Shape& shape) {
    val out = val::array();
    for (int64_t s : shape) out.call<void>("push", static_cast<double>(s));
    return out;
}

static void set_flags(const Tensor& t, val& js) {
    js.set("dtype", std::string(dtype_name(t.dtype())));
    js.set("requiresGrad", t.requires_grad());
    js.set("gradFn", t.grad_fn());
    js.set("isParameter", t.is_parameter());
}

val tensor_to_js(const Tensor& t) {
    val js = val::object();
    const std::vector<float>& storage = t.storage();
    js.set("storage", float32_array_copy(storage.data(), storage.size()));
    js.set("shape", shape_to_js(t.shape()));
    js.set("strides", shape_to_js(t.strides()));
    js.set("offset", static_cast<double>(t.storage_offset()));
    set_flags(t, js);
    return js;
}

void write_back(const Tensor& t, const val& js) {
    const std::vector<float>& storage = t.storage();
    js["storage"].call<void>("set", val(emscripten::typed_memory_view(storage.size(), storage.data())));
    val target = js;
    set_flags(t, target);
}

std::vector<Tensor> tensors_from_js(const val& v) {
    if (!v.isArray()) throw Error("expected an array of tensors, got " + type_name(v));
    std::vector<Tensor> out;
    const int n = v["length"].as<int>();
    for (int i = 0; i < n; ++i) out.push_back(tensor_from_js(v[i]));
    return out;
}

PrintOptionsUpdate print_options_from_js(const val& v) {
    PrintOptionsUpdate u;
    if (v.isUndefined() || v.isNull()) return u;
    auto number = [&](const char* key) -> std::optional<double> {
        const val x = v[key];
        if (x.isUndefined() || x.isNull()) return std::nullopt;
        if (!x.isNumber()) throw Error(std::string("setPrintOptions: ") + key + " must be a number, got " + type_name(x));
        return x.as<double>();
    };
    auto integer = [&](const char* key) {
        return static_cast<int>(integer_from_js(v[key], (std::string("setPrintOptions: ") + key + " must be an integer").c_str()));
    };
    if (number("precision")) u.precision = integer("precision");
    if (auto t = number("threshold")) u.threshold = *t;
    if (number("edgeitems")) u.edgeitems = integer("edgeitems");
    if (number("linewidth")) u.linewidth = integer("linewidth");
    const val sci = v["sciMode"];
    if (!sci.isUndefined() && !sci.isNull()) u.sci_mode = sci.isTrue();
    const val profile = v["profile"];
    if (profile.isString()) u.profile = profile.as<std::string>();
    return u;
}

uint64_t seed_from_js(const val& v) {
    std::string text;
    if (v.isNumber()) text = std::to_string(integer_from_js(v, "manualSeed: expected an integer seed"));
    else if (v.typeOf().as<std::string>() == "bigint") text = v.call<std::string>("toString");
    else throw Error("manualSeed: expected an integer or a BigInt seed, got " + type_name(v));
    // torch.manual_seed accepts [-2^63, 2^64 - 1]; a negative seed becomes its two's complement.
    const bool negative = text[0] == '-';
    const std::string digits = negative ? text.substr(1) : text;
    const std::string limit = negative ? "9223372036854775808" : "18446744073709551615";
    if (digits.size() > limit.size() || (digits.size() == limit.size() && digits > limit))
        throw Error("manualSeed: seed must be in [-2^63, 2^64 - 1], got " + text);
    const uint64_t magnitude = std::stoull(digits);
    return negative ? uint64_t{0} - magnitude : magnitude;
}

RngProfile profile_from_js(const val& v) {
    if (!v.isString()) throw Error("setRngProfile: profile must be 'default' or 'mkl', got " + type_name(v));
    return parse_rng_profile(v.as<std::string>());
}

DType dtype_from_js(const val& v) {
    const std::string name = v.isString() ? v.as<std::string>() : "";
    if (name == "float32") return DType::Float32;
    if (name == "bool") return DType::Bool;
    throw Error("dtype must be 'float32' or 'bool', got " + (v.isString() ? "'" + name + "'" : type_name(v)));
}

std::vector<float> floats_from_js(const val& v) {
    if (!v.isArray() && !v.instanceof(val::global("Float32Array")))
        throw Error("expected an array of numbers, got " + type_name(v));
    return emscripten::convertJSArrayToNumberVector<float>(v);
}

val to_js(const std::vector<float>& v) { return float32_array_copy(v.data(), v.size()); }

val to_js(const std::vector<std::string>& v) {
    val out = val::array();
    for (const auto& s : v) out.call<void>("push", s);
    return out;
}

double heap_bytes() { return static_cast<double>(emscripten_get_heap_size()); }
double allocated_bytes() { return static_cast<double>(mallinfo().uordblks); }

val error_to_js(const std::string& message) {
    val err = val::object();
    err.set("attentionError", message);
    return err;
}

}  // namespace attn::wasm
