#pragma once
// Conversions between JavaScript values and the core's C++ types, and `Js<F>`, which adapts any core
// function or method to take and return JavaScript values. bindings.cpp only declares `Js<...>::call`.
//
// Values cross the boundary through the wire: two buffers in the wasm heap (f64 slots and UTF-8 bytes)
// that index.js writes each call's arguments into and reads its result from, with plain exported
// functions (no embind, no JS object built from C++). Each value is a tag and its payload (Tag below);
// a tensor's values travel in a float buffer of their own, staged by JS before the call.
//
// Tensors cross the boundary as plain JS objects that own their values:
//   { storage: Float32Array, shape: number[], strides: number[], offset: number,
//     dtype: 'float32' | 'bool', requiresGrad: boolean, gradFn: string, isParameter: boolean }
// so nothing in the wasm heap outlives a call and JavaScript never has to free a tensor. A result that is
// a view of an argument reuses that argument's Float32Array, and an argument that a method changes in
// place has its Float32Array updated, so views and in-place ops behave as in PyTorch.
// A C++ exception never crosses the boundary: it comes back as an error value, which the JS wrapper
// throws as an AttentionError.
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "attn/error.hpp"
#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/print.hpp"
#include "attn/tensor.hpp"

namespace attn::wasm {

// ---------------------------------------------------------------- the wire
//
// Every value is a tag slot followed by its payload slots (index.js mirrors this list):
//   Undefined, Null, False, True                          (no payload)
//   Number     value
//   String     byte offset, byte length                   (UTF-8 in the byte buffer)
//   BigInt     byte offset, byte length                   (its decimal text)
//   Array      length, then each element
//   Object     count, then (key as a String, value) pairs (plain objects: print options)
//   Floats     in: staged buffer, length                  out: heap address, length  (a Float32Array)
//   Tensor     in: staged buffer, length, rank, shape…, strides…, offset, dtype, requiresGrad, isParameter,
//                  gradFn (String)
//              out: shared argument (or -1), heap address, length, rank, shape…, strides…, offset, dtype,
//                  requiresGrad, isParameter, gradFn (String)
//   Other      its typeof (String)                        (functions, symbols: named in messages only)
//   Module     id                                         (a module held in the registry below)
//   Error      message (String)                           (out only)
// After the result come the write-backs of arguments changed in place: a count, then for each the
// argument's index and its Tensor (out form, shared argument -1).
enum class Tag : int {
    Undefined = 0, Null, False, True, Number, String, BigInt, Array, Object, Floats, Tensor, Other, Module, Error
};

// One decoded argument: the C++ side of a JS value.
struct JsValue {
    Tag tag = Tag::Undefined;
    double number = 0.0;          // Number; Module: its id
    std::string text;             // String, BigInt (decimal), Other (typeof)
    std::vector<JsValue> items;   // Array elements; Object values
    std::vector<std::string> keys;  // Object keys
    // Tensor and Floats: the staged values, then the tensor's view and flags.
    std::vector<float> values;
    Shape shape, strides;
    double offset = 0.0;
    bool is_bool = false, requires_grad = false, is_parameter = false;
    std::string grad_fn;

    bool is_number() const { return tag == Tag::Number; }
    bool is_null_or_undefined() const { return tag == Tag::Null || tag == Tag::Undefined; }
    // The member named `key` of an Object (Undefined when absent or not an object).
    const JsValue& operator[](const char* key) const;
};

// typeof v, as JavaScript gives it ('object' for null and arrays).
std::string type_of(const JsValue& v);
// How an unexpected JS value is named in a message: numbers by value, null, 'an array', else typeof.
std::string type_name(const JsValue& v);
// A number as JavaScript's String(x) writes it: 1.5, 100, 1e+21, NaN, -Infinity.
std::string js_number_text(double x);

// ---------------------------------------------------------------- results

// The result stream of one call. Tensors and float arrays point into the heap until release().
class Writer {
public:
    Writer() {  // capacities that stay put, so the allocator holds the same bytes between calls
        held_tensors_.reserve(16);
        held_floats_.reserve(16);
    }
    void tag(Tag t) { number(static_cast<double>(static_cast<int>(t))); }
    void number(double x) { slots_.push_back(x); }
    void text(const std::string& s, Tag t = Tag::String);  // a String (or BigInt, Other): tag and payload
    void floats(const std::vector<float>& v);
    // shared: the index of the argument whose storage this tensor views (JS reuses its Float32Array), or -1.
    void tensor(const Tensor& t, int shared);
    void error(const std::string& message);
    void clear();

    std::vector<double>& slots() { return slots_; }
    std::string& bytes() { return bytes_; }

private:
    std::vector<double> slots_;
    std::string bytes_;
    std::vector<Tensor> held_tensors_;  // their storages, which JS copies out before the release
    std::vector<std::vector<float>> held_floats_;
};

Writer& out();

inline void to_js(Writer& w, const Tensor& t) { w.tensor(t, -1); }
inline void to_js(Writer& w, double v) { w.tag(Tag::Number), w.number(v); }
inline void to_js(Writer& w, float v) { to_js(w, static_cast<double>(v)); }
inline void to_js(Writer& w, int64_t v) { to_js(w, static_cast<double>(v)); }
inline void to_js(Writer& w, bool v) { w.tag(v ? Tag::True : Tag::False); }
inline void to_js(Writer& w, const std::string& v) { w.text(v); }
inline void to_js(Writer& w, const char* v) { to_js(w, std::string(v)); }
inline void to_js(Writer& w, const std::vector<float>& v) { w.tag(Tag::Floats), w.floats(v); }
void to_js(Writer& w, const std::vector<std::string>& v);
inline void to_js(Writer& w, const std::optional<Tensor>& t) {
    if (t) to_js(w, *t);
    else w.tag(Tag::Null);
}
inline void to_js(Writer& w, uint64_t v) { w.text(std::to_string(v), Tag::BigInt); }
inline void to_js(Writer& w, RngProfile p) { to_js(w, std::string(rng_profile_name(p))); }
inline void to_js(Writer& w, nn::AttentionPath p) { to_js(w, std::string(nn::attention_path_name(p))); }
struct ModuleId {
    int32_t id;
};
inline void to_js(Writer& w, ModuleId m) { w.tag(Tag::Module), w.number(m.id); }

// ---------------------------------------------------------------- arguments

Tensor tensor_from_js(JsValue& js);
int64_t integer_from_js(const JsValue& v, const char* what);
Shape shape_from_js(const JsValue& v);
std::vector<Tensor> tensors_from_js(JsValue& v);
PrintOptionsUpdate print_options_from_js(const JsValue& v);
// A seed as torch.manual_seed takes it: an integer Number or a BigInt in [-2^63, 2^64 - 1].
uint64_t seed_from_js(const JsValue& v);
DType dtype_from_js(const JsValue& v);
RngProfile profile_from_js(const JsValue& v);
std::vector<float> floats_from_js(JsValue& v);  // a Float32Array or an array of numbers
nn::AttentionPath attention_path_from_js(const JsValue& v);

// Modules live here between calls, under the id JS holds; JS frees each one when its wrapper is collected.
std::shared_ptr<nn::Module> module_from_js(const JsValue& v);
int32_t register_module(std::shared_ptr<nn::Module> module);
void release_module(int32_t id);

// One argument: converts from JS, holds the C++ value for the call, and writes back afterwards.
template <class T>
struct Arg;

template <>
struct Arg<const Tensor&> {
    explicit Arg(JsValue& js) : value(tensor_from_js(js)) {}
    const Tensor& get() { return value; }
    bool after(Writer&, int) { return false; }
    Tensor value;
};
template <>
struct Arg<Tensor&> {  // changed in place: its JS storage is updated afterwards
    explicit Arg(JsValue& js) : value(tensor_from_js(js)) {}
    Tensor& get() { return value; }
    bool after(Writer& w, int index) {
        w.number(index);
        w.tensor(value, -1);
        return true;
    }
    Tensor value;
};
template <>
struct Arg<Tensor> : Arg<const Tensor&> {
    using Arg<const Tensor&>::Arg;
};

struct NoWriteBack {
    bool after(Writer&, int) { return false; }
};

template <class Number>
struct NumberArg : NoWriteBack {
    explicit NumberArg(JsValue& js) {
        if (!js.is_number()) throw Error("expected a number, got " + type_of(js));
        value = static_cast<Number>(js.number);
    }
    Number get() { return value; }
    Number value;
};
template <>
struct Arg<double> : NumberArg<double> {
    using NumberArg::NumberArg;
};
template <>
struct Arg<float> : NumberArg<float> {
    using NumberArg::NumberArg;
};
template <>
struct Arg<int64_t> : NoWriteBack {
    explicit Arg(JsValue& js) : value(integer_from_js(js, "expected an integer")) {}
    int64_t get() { return value; }
    int64_t value;
};
template <>
struct Arg<bool> : NoWriteBack {
    explicit Arg(JsValue& js) : value(js.tag == Tag::True) {}
    bool get() { return value; }
    bool value;
};
template <>
struct Arg<const std::string&> : NoWriteBack {
    explicit Arg(JsValue& js) {
        if (js.tag != Tag::String) throw Error("expected a string, got " + type_of(js));
        value = js.text;
    }
    const std::string& get() { return value; }
    std::string value;
};
template <>
struct Arg<const Shape&> : NoWriteBack {
    explicit Arg(JsValue& js) : value(shape_from_js(js)) {}
    const Shape& get() { return value; }
    Shape value;
};
template <>
struct Arg<Shape> : Arg<const Shape&> {
    using Arg<const Shape&>::Arg;
};
template <>
struct Arg<uint64_t> : NoWriteBack {
    explicit Arg(JsValue& js) : value(seed_from_js(js)) {}
    uint64_t get() { return value; }
    uint64_t value;
};
template <>
struct Arg<RngProfile> : NoWriteBack {
    explicit Arg(JsValue& js) : value(profile_from_js(js)) {}
    RngProfile get() { return value; }
    RngProfile value;
};
template <>
struct Arg<nn::AttentionPath> : NoWriteBack {
    explicit Arg(JsValue& js) : value(attention_path_from_js(js)) {}
    nn::AttentionPath get() { return value; }
    nn::AttentionPath value;
};
// The JS API always draws from the default generator, like torch's functions: the wrapper passes
// `undefined` in the generator's place.
template <>
struct Arg<Generator&> : NoWriteBack {
    explicit Arg(JsValue&) {}
    Generator& get() { return default_generator(); }
};
template <>
struct Arg<DType> : NoWriteBack {
    explicit Arg(JsValue& js) : value(dtype_from_js(js)) {}
    DType get() { return value; }
    DType value;
};
template <>
struct Arg<std::vector<float>> : NoWriteBack {
    explicit Arg(JsValue& js) : value(floats_from_js(js)) {}
    std::vector<float> get() { return std::move(value); }
    std::vector<float> value;
};
template <>
struct Arg<const std::vector<Tensor>&> : NoWriteBack {
    explicit Arg(JsValue& js) : value(tensors_from_js(js)) {}
    const std::vector<Tensor>& get() { return value; }
    std::vector<Tensor> value;
};
template <>
struct Arg<const PrintOptionsUpdate&> : NoWriteBack {
    explicit Arg(JsValue& js) : value(print_options_from_js(js)) {}
    const PrintOptionsUpdate& get() { return value; }
    PrintOptionsUpdate value;
};

// If a tensor result views the storage of a tensor argument, JS gives it that argument's Float32Array.
template <class A>
void shared_with(const Tensor& result, Arg<A>& arg, int index, int& shared) {
    if constexpr (std::is_same_v<std::decay_t<A>, Tensor>) {
        if (shared < 0 && result.shares_storage_with(arg.value)) shared = index;
    }
}

// The arguments of the call in progress, decoded from the wire (index.js wrote them).
std::vector<JsValue>& args();

// Runs `body`, turning any exception into the error value the JS wrapper throws; then frees the
// arguments' staged buffers.
template <class Body>
void guarded(Body&& body) {
    Writer& w = out();
    try {
        body(w);
    } catch (const std::bad_alloc&) {
        w.error("out of memory: the WebAssembly heap cannot grow further");
    } catch (const std::exception& e) {
        w.error(e.what());
    }
    args().clear();
}

// Calls a function whose arguments arrive on the wire, converting each one, and writes the result.
template <class R, class... A, class Call, size_t... I>
void call_with_js(Call&& call, std::index_sequence<I...>) {
    guarded([&](Writer& w) {
        std::vector<JsValue>& js = args();
        if (js.size() < sizeof...(A)) js.resize(sizeof...(A));  // missing arguments are undefined
        std::tuple<Arg<A>...> a{Arg<A>(js[I])...};
        auto write_backs = [&] {
            const size_t at = w.slots().size();
            w.number(0);
            int count = 0;
            ((count += std::get<I>(a).after(w, static_cast<int>(I)) ? 1 : 0), ...);
            w.slots()[at] = count;
        };
        if constexpr (std::is_void_v<R>) {
            call(std::get<I>(a).get()...);
            w.tag(Tag::Undefined);
            write_backs();
        } else {
            auto result = call(std::get<I>(a).get()...);  // a Tensor& result is copied: it shares storage
            if constexpr (std::is_same_v<std::decay_t<decltype(result)>, Tensor>) {
                int shared = -1;
                (shared_with(result, std::get<I>(a), static_cast<int>(I), shared), ...);
                w.tensor(result, shared);
            } else {
                to_js(w, result);
            }
            write_backs();
        }
    });
}

// Js<&function>::call, or Js<&Class::method>::call. A Tensor method takes its receiver as a JS tensor
// (first argument); a module's method takes the module's id first.
template <auto F, class Sig = decltype(F)>
struct Js;

template <auto F, class R, class... A>
struct Js<F, R (*)(A...)> {
    static void call() { call_with_js<R, A...>(F, std::index_sequence_for<A...>{}); }
};

template <auto F, class R, class... A>
struct Js<F, R (Tensor::*)(A...) const> {
    static void call() {
        auto method = [](const Tensor& t, auto&&... a) -> decltype(auto) { return (t.*F)(a...); };
        call_with_js<R, const Tensor&, A...>(method, std::index_sequence_for<Tensor, A...>{});
    }
};

template <auto F, class R, class... A>
struct Js<F, R (Tensor::*)(A...)> {
    static void call() {
        auto method = [](Tensor& t, auto&&... a) -> decltype(auto) { return (t.*F)(a...); };
        call_with_js<R, Tensor&, A...>(method, std::index_sequence_for<Tensor, A...>{});
    }
};

// A module's method: the first wire argument is the module's id, the rest are the method's arguments.
struct ModuleRef {
    std::shared_ptr<nn::Module> module;
};
template <>
struct Arg<ModuleRef> : NoWriteBack {
    explicit Arg(JsValue& js) : value{module_from_js(js)} {}
    ModuleRef get() { return value; }
    ModuleRef value;
};

template <class C>
C& module_as(const ModuleRef& ref) {
    if constexpr (std::is_same_v<C, nn::Module>) {
        return *ref.module;
    } else {
        auto* m = dynamic_cast<C*>(ref.module.get());
        if (!m) throw Error("this method needs another kind of module");
        return *m;
    }
}

template <auto F, class R, class C, class... A>
struct Js<F, R (C::*)(A...)> {
    static void call() {
        auto method = [](ModuleRef self, auto&&... a) -> decltype(auto) {
            return (module_as<C>(self).*F)(a...);
        };
        call_with_js<R, ModuleRef, A...>(method, std::index_sequence_for<ModuleRef, A...>{});
    }
};

template <auto F, class R, class C, class... A>
struct Js<F, R (C::*)(A...) const> {
    static void call() {
        auto method = [](ModuleRef self, auto&&... a) -> decltype(auto) {
            return (module_as<C>(self).*F)(a...);
        };
        call_with_js<R, ModuleRef, A...>(method, std::index_sequence_for<ModuleRef, A...>{});
    }
};

// Constructs a module from JS arguments; the JS side receives its id (or an error).
template <class M, class... A>
struct JsNew {
    static void call() {
        auto make = [](auto&&... a) { return ModuleId{register_module(std::make_shared<M>(a...))}; };
        call_with_js<ModuleId, A...>(make, std::index_sequence_for<A...>{});
    }
};

// The size of the wasm heap and the bytes malloc has handed out (for leak checks).
double heap_bytes();
double allocated_bytes();

// One exported call: decodes the arguments index.js wrote, runs `call` (a Js<…>::call), publishes the result.
void run(void (*call)());

}  // namespace attn::wasm
