#pragma once
// Conversions between JavaScript values and the core's C++ types, and `Js<F>`, which adapts any core
// function or method to take and return JavaScript values. bindings.cpp only declares `Js<...>::call`.
//
// Tensors cross the boundary as plain JS objects that own their values:
//   { storage: Float32Array, shape: number[], strides: number[], offset: number,
//     dtype: 'float32' | 'bool', requiresGrad: boolean, gradFn: string, isParameter: boolean }
// so nothing in the wasm heap outlives a call and JavaScript never has to free a tensor. A result that is
// a view of an argument reuses that argument's Float32Array, and an argument that a method changes in
// place has its Float32Array updated, so views and in-place ops behave as in PyTorch.
// A C++ exception never crosses the boundary: it comes back as { attentionError: message }, which the
// JS wrapper throws as an AttentionError.
#include <emscripten/val.h>

#include <cmath>
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
#include "attn/print.hpp"
#include "attn/tensor.hpp"

namespace attn::wasm {

using emscripten::val;

// ---------------------------------------------------------------- tensors

Tensor tensor_from_js(const val& js);
val tensor_to_js(const Tensor& t);
// Copies t's storage and autograd flags into an existing JS tensor (after an in-place change).
void write_back(const Tensor& t, const val& js);

// ---------------------------------------------------------------- plain values

// A JS number that must be an integer (sizes, dims, indices); `what` starts the error message.
int64_t integer_from_js(const val& v, const char* what);
Shape shape_from_js(const val& v);
std::vector<Tensor> tensors_from_js(const val& v);
PrintOptionsUpdate print_options_from_js(const val& v);
// A seed as torch.manual_seed takes it: an integer Number or a BigInt in [-2^63, 2^64 - 1].
uint64_t seed_from_js(const val& v);
DType dtype_from_js(const val& v);
RngProfile profile_from_js(const val& v);
std::vector<float> floats_from_js(const val& v);  // a Float32Array or an array of numbers

// One argument: converts from JS, holds the C++ value for the call, and writes back afterwards.
template <class T>
struct Arg;

template <>
struct Arg<const Tensor&> {
    explicit Arg(const val& js) : value(tensor_from_js(js)) {}
    const Tensor& get() { return value; }
    void after(const val&) {}
    Tensor value;
};
template <>
struct Arg<Tensor&> {  // changed in place: its JS storage is updated afterwards
    explicit Arg(const val& js) : value(tensor_from_js(js)) {}
    Tensor& get() { return value; }
    void after(const val& js) { write_back(value, js); }
    Tensor value;
};
template <>
struct Arg<Tensor> : Arg<const Tensor&> {
    using Arg<const Tensor&>::Arg;
};

template <class Number>
struct NumberArg {
    explicit NumberArg(const val& js) {
        if (!js.isNumber()) throw Error("expected a number, got " + js.typeOf().as<std::string>());
        value = static_cast<Number>(js.as<double>());
    }
    Number get() { return value; }
    void after(const val&) {}
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
struct Arg<int64_t> {
    explicit Arg(const val& js) : value(integer_from_js(js, "expected an integer")) {}
    int64_t get() { return value; }
    void after(const val&) {}
    int64_t value;
};
template <>
struct Arg<bool> {
    explicit Arg(const val& js) : value(js.isTrue()) {}
    bool get() { return value; }
    void after(const val&) {}
    bool value;
};
template <>
struct Arg<const std::string&> {
    explicit Arg(const val& js) {
        if (!js.isString()) throw Error("expected a string, got " + js.typeOf().as<std::string>());
        value = js.as<std::string>();
    }
    const std::string& get() { return value; }
    void after(const val&) {}
    std::string value;
};
template <>
struct Arg<const Shape&> {
    explicit Arg(const val& js) : value(shape_from_js(js)) {}
    const Shape& get() { return value; }
    void after(const val&) {}
    Shape value;
};
template <>
struct Arg<Shape> : Arg<const Shape&> {
    using Arg<const Shape&>::Arg;
};
template <>
struct Arg<uint64_t> {
    explicit Arg(const val& js) : value(seed_from_js(js)) {}
    uint64_t get() { return value; }
    void after(const val&) {}
    uint64_t value;
};
template <>
struct Arg<RngProfile> {
    explicit Arg(const val& js) : value(profile_from_js(js)) {}
    RngProfile get() { return value; }
    void after(const val&) {}
    RngProfile value;
};
// The JS API always draws from the default generator, like torch's functions: the wrapper passes
// `undefined` in the generator's place.
template <>
struct Arg<Generator&> {
    explicit Arg(const val&) {}
    Generator& get() { return default_generator(); }
    void after(const val&) {}
};
template <>
struct Arg<DType> {
    explicit Arg(const val& js) : value(dtype_from_js(js)) {}
    DType get() { return value; }
    void after(const val&) {}
    DType value;
};
template <>
struct Arg<std::vector<float>> {
    explicit Arg(const val& js) : value(floats_from_js(js)) {}
    std::vector<float> get() { return std::move(value); }
    void after(const val&) {}
    std::vector<float> value;
};
template <>
struct Arg<const std::vector<Tensor>&> {
    explicit Arg(const val& js) : value(tensors_from_js(js)) {}
    const std::vector<Tensor>& get() { return value; }
    void after(const val&) {}
    std::vector<Tensor> value;
};
template <>
struct Arg<const PrintOptionsUpdate&> {
    explicit Arg(const val& js) : value(print_options_from_js(js)) {}
    const PrintOptionsUpdate& get() { return value; }
    void after(const val&) {}
    PrintOptionsUpdate value;
};

// ---------------------------------------------------------------- results

inline val to_js(const Tensor& t) { return tensor_to_js(t); }
inline val to_js(double v) { return val(v); }
inline val to_js(float v) { return val(static_cast<double>(v)); }
inline val to_js(int64_t v) { return val(static_cast<double>(v)); }
inline val to_js(bool v) { return val(v); }
inline val to_js(const std::string& v) { return val(v); }
val to_js(const std::vector<float>& v);  // a Float32Array
val to_js(const std::vector<std::string>& v);
inline val to_js(const std::optional<Tensor>& t) { return t ? tensor_to_js(*t) : val::null(); }
inline val to_js(uint64_t v) { return val::global("BigInt")(std::to_string(v)); }
inline val to_js(RngProfile p) { return val(std::string(rng_profile_name(p))); }

// If a tensor result views the storage of a tensor argument, it shares that argument's Float32Array.
template <class A>
void share_storage(const Tensor& result, val& js_result, Arg<A>& arg, const val& js_arg) {
    if constexpr (std::is_same_v<std::decay_t<A>, Tensor>) {
        if (result.shares_storage_with(arg.value)) js_result.set("storage", js_arg["storage"]);
    }
}

val error_to_js(const std::string& message);

// The size of the wasm heap and the bytes malloc has handed out (for leak checks).
double heap_bytes();
double allocated_bytes();

// Runs `body`, turning any exception into the error object the JS wrapper throws.
template <class Body>
val guarded(Body&& body) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return error_to_js("out of memory: the WebAssembly heap cannot grow further");
    } catch (const std::exception& e) {
        return error_to_js(e.what());
    }
}

template <class>
using AsVal = val;

// Calls a function whose arguments arrive as JS values, converting each one, and converts the result.
template <class R, class... A, class Call, size_t... I>
val call_with_js(Call&& call, const std::tuple<AsVal<A>...>& js, std::index_sequence<I...>) {
    return guarded([&]() -> val {
        std::tuple<Arg<A>...> args{Arg<A>(std::get<I>(js))...};
        if constexpr (std::is_void_v<R>) {
            call(std::get<I>(args).get()...);
            (std::get<I>(args).after(std::get<I>(js)), ...);
            return val::undefined();
        } else {
            auto result = call(std::get<I>(args).get()...);  // a Tensor& result is copied: it shares storage
            (std::get<I>(args).after(std::get<I>(js)), ...);
            val out = to_js(result);
            if constexpr (std::is_same_v<std::decay_t<decltype(result)>, Tensor>)
                (share_storage(result, out, std::get<I>(args), std::get<I>(js)), ...);
            return out;
        }
    });
}

// Js<&function>::call, or Js<&Class::method>::call. A Tensor method takes its receiver as a JS tensor
// (first argument); any other class's method is bound with embind and receives the C++ object.
template <auto F, class Sig = decltype(F)>
struct Js;

template <auto F, class R, class... A>
struct Js<F, R (*)(A...)> {
    static val call(AsVal<A>... js) {
        return call_with_js<R, A...>(F, std::tuple<AsVal<A>...>(js...), std::index_sequence_for<A...>{});
    }
};

template <auto F, class R, class... A>
struct Js<F, R (Tensor::*)(A...) const> {
    static val call(val self, AsVal<A>... js) {
        auto method = [](const Tensor& t, auto&&... a) -> decltype(auto) { return (t.*F)(a...); };
        return call_with_js<R, const Tensor&, A...>(method, std::tuple<val, AsVal<A>...>(self, js...),
                                                    std::index_sequence_for<Tensor, A...>{});
    }
};

template <auto F, class R, class... A>
struct Js<F, R (Tensor::*)(A...)> {
    static val call(val self, AsVal<A>... js) {
        auto method = [](Tensor& t, auto&&... a) -> decltype(auto) { return (t.*F)(a...); };
        return call_with_js<R, Tensor&, A...>(method, std::tuple<val, AsVal<A>...>(self, js...),
                                              std::index_sequence_for<Tensor, A...>{});
    }
};

template <auto F, class R, class C, class... A>
struct Js<F, R (C::*)(A...)> {
    static val call(C& self, AsVal<A>... js) {
        auto method = [&self](auto&&... a) -> decltype(auto) { return (self.*F)(a...); };
        return call_with_js<R, A...>(method, std::tuple<AsVal<A>...>(js...), std::index_sequence_for<A...>{});
    }
};

template <auto F, class R, class C, class... A>
struct Js<F, R (C::*)(A...) const> {
    static val call(C& self, AsVal<A>... js) {
        auto method = [&self](auto&&... a) -> decltype(auto) { return (self.*F)(a...); };
        return call_with_js<R, A...>(method, std::tuple<AsVal<A>...>(js...), std::index_sequence_for<A...>{});
    }
};

// Constructs a module from JS arguments; the JS side receives an embind handle (or an error object).
template <class M, class... A>
struct JsNew {
    static val call(AsVal<A>... js) {
        auto make = [](auto&&... a) { return std::make_shared<M>(a...); };
        return guarded([&]() -> val {
            std::tuple<AsVal<A>...> vals(js...);
            return std::apply(
                [&](auto&... v) {
                    std::tuple<Arg<A>...> args{Arg<A>(v)...};
                    return val(std::apply([&](auto&... a) { return make(a.get()...); }, args));
                },
                vals);
        });
    }
};

}  // namespace attn::wasm
