#include "convert.hpp"

#include <emscripten/emscripten.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace attn::wasm {

// ---------------------------------------------------------------- the wire's buffers
//
// index.js reads the header once: [0] input slots address, [1] their capacity, [2] input bytes address,
// [3] their capacity, [4] output slots address, [5] their count, [6] output bytes address, [7] their count.
// The input buffers grow on request (attn_wire_reserve) and every buffer shrinks back to its first
// capacity when a call is released, so the allocator holds the same bytes between calls.

namespace {

constexpr size_t kSlots = 4096, kBytes = 1 << 16;

struct Wire {
    uint32_t header[8] = {};
    std::vector<double> in_slots;
    std::vector<char> in_bytes;
    std::vector<std::vector<float>> staged;  // tensors' and float arrays' values, in staging order
    std::vector<JsValue> args;

    Wire() {
        in_slots.resize(kSlots);
        in_bytes.resize(kBytes);
        staged.reserve(16);  // capacities that stay put, so the allocator holds the same bytes between calls
        args.reserve(16);
        out().slots().reserve(kSlots);
        out().bytes().reserve(kBytes);
        publish_inputs();
    }
    void publish_inputs() {
        header[0] = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(in_slots.data()));
        header[1] = static_cast<uint32_t>(in_slots.size());
        header[2] = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(in_bytes.data()));
        header[3] = static_cast<uint32_t>(in_bytes.size());
    }
    void publish_outputs() {
        Writer& w = out();
        header[4] = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(w.slots().data()));
        header[5] = static_cast<uint32_t>(w.slots().size());
        header[6] = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(w.bytes().data()));
        header[7] = static_cast<uint32_t>(w.bytes().size());
    }
};

Wire& wire() {
    static Wire* w = new Wire();  // never destroyed: the module lives as long as the page
    return *w;
}

// One value from the input slots (see Tag in convert.hpp).
JsValue read_value(const double* s, size_t& i, const char* bytes, std::vector<std::vector<float>>& staged) {
    JsValue v;
    v.tag = static_cast<Tag>(static_cast<int>(s[i++]));
    auto text = [&] {
        const size_t at = static_cast<size_t>(s[i]), length = static_cast<size_t>(s[i + 1]);
        i += 2;
        return std::string(bytes + at, length);
    };
    switch (v.tag) {
        case Tag::Number:
        case Tag::Module: v.number = s[i++]; break;
        case Tag::String:
        case Tag::BigInt:
        case Tag::Other: v.text = text(); break;
        case Tag::Array: {
            const size_t n = static_cast<size_t>(s[i++]);
            v.items.reserve(n);
            for (size_t k = 0; k < n; ++k) v.items.push_back(read_value(s, i, bytes, staged));
            break;
        }
        case Tag::Object: {
            const size_t n = static_cast<size_t>(s[i++]);
            for (size_t k = 0; k < n; ++k) {
                v.keys.push_back(read_value(s, i, bytes, staged).text);
                v.items.push_back(read_value(s, i, bytes, staged));
            }
            break;
        }
        case Tag::Floats:
        case Tag::Tensor: {
            v.values = std::move(staged[static_cast<size_t>(s[i])]);
            i += 2;  // the staged buffer and its length
            if (v.tag == Tag::Floats) break;
            const size_t rank = static_cast<size_t>(s[i++]);
            for (size_t d = 0; d < rank; ++d) v.shape.push_back(static_cast<int64_t>(s[i++]));
            for (size_t d = 0; d < rank; ++d) v.strides.push_back(static_cast<int64_t>(s[i++]));
            v.offset = s[i++];
            v.is_bool = s[i++] != 0.0;
            v.requires_grad = s[i++] != 0.0;
            v.is_parameter = s[i++] != 0.0;
            i++;  // the gradFn's String tag
            v.grad_fn = text();
            break;
        }
        default: break;
    }
    return v;
}

}  // namespace

std::vector<JsValue>& args() { return wire().args; }

Writer& out() {
    static Writer* w = new Writer();
    return *w;
}

// ---------------------------------------------------------------- results

void Writer::text(const std::string& s, Tag t) {
    tag(t);
    number(static_cast<double>(bytes_.size()));
    number(static_cast<double>(s.size()));
    bytes_ += s;
}

void Writer::floats(const std::vector<float>& v) {
    held_floats_.push_back(v);
    number(static_cast<double>(reinterpret_cast<uintptr_t>(held_floats_.back().data())));
    number(static_cast<double>(v.size()));
}

void Writer::tensor(const Tensor& t, int shared) {
    tag(Tag::Tensor);
    number(shared);
    if (shared < 0) held_tensors_.push_back(t);
    number(shared < 0 ? static_cast<double>(reinterpret_cast<uintptr_t>(t.storage().data())) : 0.0);
    number(static_cast<double>(t.storage().size()));
    number(static_cast<double>(t.dim()));
    for (int64_t s : t.shape()) number(static_cast<double>(s));
    for (int64_t s : t.strides()) number(static_cast<double>(s));
    number(static_cast<double>(t.storage_offset()));
    number(t.dtype() == DType::Bool ? 1 : 0);
    number(t.requires_grad() ? 1 : 0);
    number(t.is_parameter() ? 1 : 0);
    text(t.grad_fn());
}

void Writer::error(const std::string& message) {
    clear();
    tag(Tag::Error);
    text(message);
    number(0);  // no write-backs
}

void Writer::clear() {
    slots_.clear();
    bytes_.clear();
    held_tensors_.clear();
    held_floats_.clear();
    // A call with a large result leaves the buffers as they were before it.
    if (slots_.capacity() > kSlots) {
        std::vector<double>().swap(slots_);
        slots_.reserve(kSlots);
    }
    if (bytes_.capacity() > kBytes) {
        std::string().swap(bytes_);
        bytes_.reserve(kBytes);
    }
    if (held_tensors_.capacity() > 16) {
        std::vector<Tensor>().swap(held_tensors_);
        held_tensors_.reserve(16);
    }
    if (held_floats_.capacity() > 16) {
        std::vector<std::vector<float>>().swap(held_floats_);
        held_floats_.reserve(16);
    }
}

void to_js(Writer& w, const std::vector<std::string>& v) {
    w.tag(Tag::Array);
    w.number(static_cast<double>(v.size()));
    for (const auto& s : v) w.text(s);
}

// ---------------------------------------------------------------- describing values

const JsValue& JsValue::operator[](const char* key) const {
    static const JsValue undefined;
    if (tag != Tag::Object) return undefined;
    for (size_t k = 0; k < keys.size(); ++k)
        if (keys[k] == key) return items[k];
    return undefined;
}

std::string type_of(const JsValue& v) {
    switch (v.tag) {
        case Tag::Undefined: return "undefined";
        case Tag::False:
        case Tag::True: return "boolean";
        case Tag::Number: return "number";
        case Tag::String: return "string";
        case Tag::BigInt: return "bigint";
        case Tag::Other: return v.text;
        default: return "object";  // null, arrays, tensors, float arrays, plain objects, modules
    }
}

std::string type_name(const JsValue& v) {
    if (v.tag == Tag::Null) return "null";
    if (v.tag == Tag::Number) return js_number_text(v.number);
    if (v.tag == Tag::Array) return "an array";
    return type_of(v);
}

std::string js_number_text(double x) {
    if (std::isnan(x)) return "NaN";
    if (std::isinf(x)) return x < 0 ? "-Infinity" : "Infinity";
    if (x == 0.0) return "0";
    // The shortest decimal that reads back as x: its digits and the exponent of its first digit.
    char buf[40];
    for (int p = 1; p <= 17; ++p) {
        std::snprintf(buf, sizeof buf, "%.*e", p - 1, x);
        if (std::strtod(buf, nullptr) == x) break;
    }
    const std::string sci = buf;
    const bool negative = sci[0] == '-';
    const size_t e_at = sci.find('e');
    std::string digits;
    for (size_t i = negative ? 1 : 0; i < e_at; ++i)
        if (sci[i] != '.') digits += sci[i];
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
    const int n = std::atoi(sci.c_str() + e_at + 1) + 1;  // x = 0.d1d2… × 10^n
    const int k = static_cast<int>(digits.size());
    std::string text;
    if (k <= n && n <= 21) text = digits + std::string(static_cast<size_t>(n - k), '0');
    else if (0 < n && n <= 21) text = digits.substr(0, static_cast<size_t>(n)) + "." + digits.substr(static_cast<size_t>(n));
    else if (-6 < n && n <= 0) text = "0." + std::string(static_cast<size_t>(-n), '0') + digits;
    else {
        text = digits.substr(0, 1) + (k > 1 ? "." + digits.substr(1) : "") + "e" + (n - 1 >= 0 ? "+" : "-") +
               std::to_string(std::abs(n - 1));
    }
    return negative ? "-" + text : text;
}

// ---------------------------------------------------------------- arguments

int64_t integer_from_js(const JsValue& v, const char* what) {
    if (!v.is_number()) throw Error(std::string(what) + ", got " + type_name(v));
    const double d = v.number;
    if (!std::isfinite(d) || d != std::floor(d) || std::fabs(d) > 9007199254740992.0)
        throw Error(std::string(what) + ", got " + js_number_text(d));
    return static_cast<int64_t>(d);
}

Shape shape_from_js(const JsValue& v) {
    if (v.tag != Tag::Array) throw Error("expected an array of sizes, got " + type_name(v));
    Shape shape;
    for (const JsValue& s : v.items) shape.push_back(integer_from_js(s, "expected an integer size"));
    return shape;
}

Tensor tensor_from_js(JsValue& js) {
    if (js.tag != Tag::Tensor) throw Error("expected a tensor, got " + type_name(js));
    Tensor t = Tensor::from_strided(std::move(js.values), js.shape, js.strides, static_cast<int64_t>(js.offset),
                                    js.is_bool ? DType::Bool : DType::Float32);
    if (js.is_parameter) t.set_parameter(true, js.requires_grad);
    else if (!js.grad_fn.empty()) t.record(js.grad_fn.c_str(), true);
    else t.set_requires_grad(js.requires_grad);
    return t;
}

std::vector<Tensor> tensors_from_js(JsValue& v) {
    if (v.tag != Tag::Array) throw Error("expected an array of tensors, got " + type_name(v));
    std::vector<Tensor> out;
    for (JsValue& t : v.items) out.push_back(tensor_from_js(t));
    return out;
}

PrintOptionsUpdate print_options_from_js(const JsValue& v) {
    PrintOptionsUpdate u;
    if (v.is_null_or_undefined()) return u;
    auto number = [&](const char* key) -> std::optional<double> {
        const JsValue& x = v[key];
        if (x.is_null_or_undefined()) return std::nullopt;
        if (!x.is_number()) throw Error(std::string("setPrintOptions: ") + key + " must be a number, got " + type_name(x));
        return x.number;
    };
    auto integer = [&](const char* key) {
        return static_cast<int>(integer_from_js(v[key], (std::string("setPrintOptions: ") + key + " must be an integer").c_str()));
    };
    if (number("precision")) u.precision = integer("precision");
    if (auto t = number("threshold")) u.threshold = *t;
    if (number("edgeitems")) u.edgeitems = integer("edgeitems");
    if (number("linewidth")) u.linewidth = integer("linewidth");
    const JsValue& sci = v["sciMode"];
    if (!sci.is_null_or_undefined()) u.sci_mode = sci.tag == Tag::True;
    const JsValue& profile = v["profile"];
    if (profile.tag == Tag::String) u.profile = profile.text;
    return u;
}

uint64_t seed_from_js(const JsValue& v) {
    std::string text;
    if (v.is_number()) text = std::to_string(integer_from_js(v, "manualSeed: expected an integer seed"));
    else if (v.tag == Tag::BigInt) text = v.text;
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

RngProfile profile_from_js(const JsValue& v) {
    if (v.tag != Tag::String) throw Error("setRngProfile: profile must be 'default' or 'mkl', got " + type_name(v));
    return parse_rng_profile(v.text);
}

DType dtype_from_js(const JsValue& v) {
    const std::string name = v.tag == Tag::String ? v.text : "";
    if (name == "float32") return DType::Float32;
    if (name == "bool") return DType::Bool;
    throw Error("dtype must be 'float32' or 'bool', got " + (v.tag == Tag::String ? "'" + name + "'" : type_name(v)));
}

std::vector<float> floats_from_js(JsValue& v) {
    if (v.tag == Tag::Floats) return std::move(v.values);
    if (v.tag != Tag::Array) throw Error("expected an array of numbers, got " + type_name(v));
    std::vector<float> out;
    for (const JsValue& x : v.items)
        out.push_back(x.is_number() ? static_cast<float>(x.number)
                      : x.tag == Tag::True ? 1.0f
                      : x.tag == Tag::False ? 0.0f
                                            : NAN);
    return out;
}

nn::AttentionPath attention_path_from_js(const JsValue& v) {
    if (v.tag != Tag::String)
        throw Error("setAttentionPath: path must be 'auto', 'exact' or 'fast', got " + type_name(v));
    return nn::parse_attention_path(v.text);
}

// ---------------------------------------------------------------- modules
//
// A module's id is the address of a holder of its shared_ptr: no table of modules grows in the heap.

namespace {
constexpr uint32_t kModuleMagic = 0x6d6f646c;  // "modl"
struct ModuleHolder {
    uint32_t magic = kModuleMagic;
    std::shared_ptr<nn::Module> module;
};
}  // namespace

int32_t register_module(std::shared_ptr<nn::Module> module) {
    auto* holder = new ModuleHolder{kModuleMagic, std::move(module)};
    return static_cast<int32_t>(reinterpret_cast<uintptr_t>(holder));
}

static ModuleHolder* holder_of(double id) {
    auto* holder = reinterpret_cast<ModuleHolder*>(static_cast<uintptr_t>(static_cast<uint32_t>(id)));
    return holder && holder->magic == kModuleMagic ? holder : nullptr;
}

std::shared_ptr<nn::Module> module_from_js(const JsValue& v) {
    ModuleHolder* holder = v.tag == Tag::Module ? holder_of(v.number) : nullptr;
    if (!holder) throw Error("expected a module, got " + type_name(v));
    return holder->module;
}

void release_module(int32_t id) {
    if (ModuleHolder* holder = holder_of(id)) {
        holder->magic = 0;
        delete holder;
    }
}

double heap_bytes() { return static_cast<double>(emscripten_get_heap_size()); }
double allocated_bytes() { return static_cast<double>(mallinfo().uordblks); }

// ---------------------------------------------------------------- one call

void run(void (*call)()) {
    Wire& w = wire();
    out().clear();
    w.args.clear();
    size_t i = 0;
    const size_t argc = static_cast<size_t>(w.in_slots[i++]);
    for (size_t k = 0; k < argc; ++k) w.args.push_back(read_value(w.in_slots.data(), i, w.in_bytes.data(), w.staged));
    w.staged.clear();
    call();
    w.publish_outputs();
}

}  // namespace attn::wasm

// ---------------------------------------------------------------- the wire's own exports

using attn::wasm::wire;

extern "C" {

// The header's address (read once by index.js).
EMSCRIPTEN_KEEPALIVE uint32_t* attn_wire() { return wire().header; }

// Room for at least `slots` input slots and `bytes` input bytes, keeping what is written; 0 if the heap is full.
EMSCRIPTEN_KEEPALIVE int attn_wire_reserve(uint32_t slots, uint32_t bytes) {
    auto& w = wire();
    try {
        if (slots > w.in_slots.size()) w.in_slots.resize(slots);
        if (bytes > w.in_bytes.size()) w.in_bytes.resize(bytes);
    } catch (const std::bad_alloc&) {
        return 0;
    }
    w.publish_inputs();
    return 1;
}

// A buffer for n floats of the next call's arguments (its staging index is the count before it); 0 if the
// heap is full.
EMSCRIPTEN_KEEPALIVE float* attn_stage(uint32_t n) {
    auto& w = wire();
    try {
        w.staged.emplace_back(n);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
    float* data = w.staged.back().data();
    return data ? data : reinterpret_cast<float*>(alignof(float));  // n = 0: any non-null address
}

// After JS has read a call's result: frees what it held, and what a refused call left staged.
EMSCRIPTEN_KEEPALIVE void attn_release() {
    auto& w = wire();
    attn::wasm::out().clear();
    w.args.clear();
    w.staged.clear();
    if (w.staged.capacity() > 16) {
        std::vector<std::vector<float>>().swap(w.staged);
        w.staged.reserve(16);
    }
    if (w.args.capacity() > 16) {
        std::vector<attn::wasm::JsValue>().swap(w.args);
        w.args.reserve(16);
    }
    if (w.in_slots.size() > attn::wasm::kSlots) {
        w.in_slots.resize(attn::wasm::kSlots);
        w.in_slots.shrink_to_fit();
    }
    if (w.in_bytes.size() > attn::wasm::kBytes) {
        w.in_bytes.resize(attn::wasm::kBytes);
        w.in_bytes.shrink_to_fit();
    }
    w.publish_inputs();
}

// A module's JS wrapper was garbage-collected.
EMSCRIPTEN_KEEPALIVE void attn_module_free(int32_t id) { attn::wasm::release_module(id); }

}  // extern "C"
