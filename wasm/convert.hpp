#pragma once
// What Embind (Emscripten 3.1.6) cannot express for this API, and so is written here. bindings.cpp
// declares every export with Embind and wraps each core function in `Js<F>::call`, which adds two things:
//
// 1. Tensors owned by JavaScript. Embind passes C++ objects that live in the wasm heap (class_ handles,
//    freed by delete() or its FinalizationRegistry), but the garbage collector does not see that memory:
//    500 un-deleted [1024, 768] results would exhaust it. So a tensor's values stay in a JS Float32Array and
//    cross as a TensorRecord in the heap: api/boundary.js writes an argument's record (and its values) before
//    the call; Js<F> writes a result's record, which JS reads and copies out before its next call. A result that
//    views an argument's storage says which, so that JS keeps sharing that argument's Float32Array. Shapes
//    and indices cross the same way (SizeList), which is cheaper than an emscripten::val array.
// 2. Errors. A C++ exception that leaves wasm reaches JS as an opaque WebAssembly.Exception (3.1.6 has no
//    way to read its message) and skips Embind's clean-up of the call's arguments. Js<F> catches it and
//    reports the message (report_error), and api/boundary.js throws it as an AttentionError.
//
// Everything else (numbers, strings, enums, value objects, modules as class_ handles, plain objects and
// typed arrays as emscripten::val) is Embind's own.
#include <emscripten/val.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"
#include "attn/tensor.hpp"

namespace attn::wasm {

using emscripten::val;

// ---------------------------------------------------------------- how a tensor crosses

// A tensor in the heap: this header, then int32 shape[rank] and int32 strides[rank]. An argument's values
// follow (written by JS); a result's `values` points into the storage of the tensor Js<F> holds for it.
struct TensorRecord {
    uint32_t values;  // heap address of the whole storage, as float32 (int64/float64: two per element)
    uint32_t length;  // floats in the storage
    int32_t rank;
    int32_t offset;  // where the first element sits in the storage, in elements
    int32_t dtype;    // attn::DType's value
    int32_t requires_grad;
    int32_t is_parameter;
    int32_t shared;  // result: the argument whose storage it views, or -1
    char grad_fn[32];  // "" or e.g. "MmBackward0", NUL-terminated
};

// Byte offsets of TensorRecord's fields, given to api/boundary.js once so that the layout is written only here.
struct RecordLayout {
    int values, length, rank, offset, dtype, requires_grad, is_parameter, shared, grad_fn, header_bytes;
};
RecordLayout record_layout();

// A list of tensors (stack, cat): a count, then that many record addresses.
struct TensorList {
    uint32_t count;
    uint32_t records[1];  // `count` of them
};

Tensor tensor_from_record(uintptr_t address);
std::vector<Tensor> tensors_from_list(uintptr_t address);
// Writes `t`'s record and holds `t` until the next call; returns the record's address.
uintptr_t record_of(const Tensor& t, int shared);
// What the last call held for JS: released when the next call starts.
void release_results();

// ---------------------------------------------------------------- errors

// Hands the message to api/boundary.js, which throws it as an AttentionError when the call returns.
void report_error(const char* message);

// The size of the wasm heap and the bytes malloc has handed out (to watch for leaks).
struct MemoryUsage {
    double heap_bytes, allocated_bytes;
};
MemoryUsage memory_usage();

// ---------------------------------------------------------------- parameters: what Embind passes, and how

// Param<T>: a parameter of type T in a core signature. `Wire` is what Embind passes from JS; the Param
// holds the converted value for the duration of the call.
template <class T>
struct Param {  // numbers, strings, enums: Embind's own conversions
    using Wire = T;
    explicit Param(Wire w) : value(std::move(w)) {}
    T& get() { return value; }
    T value;
};
template <class T>
struct Param<const T&> : Param<T> {
    using Param<T>::Param;
};

template <>
struct Param<Tensor> {  // by value, const& or & (in place: JS copies the record's values back)
    using Wire = uintptr_t;
    explicit Param(Wire w) : value(tensor_from_record(w)) {}
    Tensor& get() { return value; }
    Tensor value;
};
template <>
struct Param<const Tensor&> : Param<Tensor> {
    using Param<Tensor>::Param;
};
template <>
struct Param<Tensor&> : Param<Tensor> {
    using Param<Tensor>::Param;
};

template <>
struct Param<const std::vector<Tensor>&> {
    using Wire = uintptr_t;
    explicit Param(Wire w) : value(tensors_from_list(w)) {}
    const std::vector<Tensor>& get() { return value; }
    std::vector<Tensor> value;
};

// JS numbers: api/checks.js has checked that integers are safe integers; the cast saturates so that no
// value can trap the module.
int64_t saturate(double x);
template <>
struct Param<int64_t> {
    using Wire = double;
    explicit Param(Wire w) : value(saturate(w)) {}
    int64_t get() { return value; }
    int64_t value;
};
template <>
struct Param<float> {  // like a Python float given to a float32 op
    using Wire = double;
    explicit Param(Wire w) : value(static_cast<float>(w)) {}
    float get() { return value; }
    float value;
};
template <>
struct Param<uint64_t> {  // a seed: its decimal text (api/torch.js turned a Number or BigInt into [0, 2^64))
    using Wire = std::string;
    explicit Param(const Wire& w) : value(std::stoull(w)) {}
    uint64_t get() { return value; }
    uint64_t value;
};

// A shape or an index (t[i, j]): api/boundary.js writes its count and then the numbers, as float64, in the
// heap (through an emscripten::val array it would take 0.4 µs more per view). api/checks.js has checked that
// they are safe integers.
struct SizeList {
    uint32_t count;
    uint32_t unused;  // the numbers start 8-byte aligned
    double values[1];  // `count` of them
};
Shape shape_from_list(uintptr_t address);
template <>
struct Param<Shape> {
    using Wire = uintptr_t;
    explicit Param(Wire w) : value(shape_from_list(w)) {}
    Shape& get() { return value; }
    Shape value;
};
template <>
struct Param<const Shape&> : Param<Shape> {
    using Param<Shape>::Param;
};

// Values for a new tensor: a Float32Array, or a Float64Array for any dtype (copied with one set() through a
// typed_memory_view).
template <>
struct Param<std::vector<float>> {
    using Wire = val;
    explicit Param(const Wire& w) : value(emscripten::convertJSArrayToNumberVector<float>(w)) {}
    std::vector<float> get() { return std::move(value); }
    std::vector<float> value;
};
template <>
struct Param<const std::vector<double>&> {
    using Wire = val;
    explicit Param(const Wire& w) : value(emscripten::convertJSArrayToNumberVector<double>(w)) {}
    const std::vector<double>& get() { return value; }
    std::vector<double> value;
};

// torch.set_printoptions's keywords, as a plain object (api/torch.js has checked their types).
PrintOptionsUpdate print_options_from_js(const val& options);
template <>
struct Param<const PrintOptionsUpdate&> {
    using Wire = val;
    explicit Param(const Wire& w) : value(print_options_from_js(w)) {}
    const PrintOptionsUpdate& get() { return value; }
    PrintOptionsUpdate value;
};

// ---------------------------------------------------------------- results

// Result<R>: how a core result goes back to JS (`Wire`), given the call's Params (for tensors that view
// an argument's storage).
template <class R>
struct Result {  // numbers, strings, bools, enums: Embind's own
    using Wire = R;
    template <class... P>
    static Wire to(R r, std::tuple<P...>&) { return r; }
};

template <class P>
void note_shared(const Tensor& result, P& param, int index, int& shared) {
    if constexpr (std::is_same_v<decltype(param.value), Tensor>) {
        if (shared < 0 && result.shares_storage_with(param.value)) shared = index;
    }
}
template <>
struct Result<void> {
    using Wire = void;
};
template <>
struct Result<Tensor> {
    using Wire = uintptr_t;
    template <class... P>
    static Wire to(const Tensor& r, std::tuple<P...>& params) {
        int shared = -1;
        std::apply([&](auto&... p) {
            int index = 0;
            (note_shared(r, p, index++, shared), ...);
        }, params);
        return record_of(r, shared);
    }
};
template <>
struct Result<Tensor&> : Result<Tensor> {};
// max/min along a dim: the two tensors' records, as a JS array.
template <>
struct Result<ValuesIndices> {
    using Wire = val;
    template <class... P>
    static Wire to(const ValuesIndices& r, std::tuple<P...>& params) {
        val out = val::array();
        out.call<void>("push", Result<Tensor>::to(r.values, params));
        out.call<void>("push", Result<Tensor>::to(r.indices, params));
        return out;
    }
};
template <>
struct Result<std::vector<Tensor>> {  // unbind, split, chunk: an array of record addresses
    using Wire = val;
    template <class... P>
    static Wire to(const std::vector<Tensor>& r, std::tuple<P...>& params) {
        val out = val::array();
        for (const Tensor& t : r) out.call<void>("push", Result<Tensor>::to(t, params));
        return out;
    }
};
template <>
struct Result<int64_t> {
    using Wire = double;
    template <class... P>
    static Wire to(int64_t r, std::tuple<P...>&) { return static_cast<double>(r); }
};
template <>
struct Result<uint64_t> {  // decimal text: JS makes a BigInt of it
    using Wire = std::string;
    template <class... P>
    static Wire to(uint64_t r, std::tuple<P...>&) { return std::to_string(r); }
};
template <>
struct Result<std::vector<std::string>> {
    using Wire = val;
    template <class... P>
    static Wire to(const std::vector<std::string>& r, std::tuple<P...>&) {
        val out = val::array();
        for (const std::string& s : r) out.call<void>("push", s);
        return out;
    }
};

// Runs `body` and gives back its result, or, if it throws, reports the message and gives back an empty
// value (api/boundary.js throws before looking at it).
template <class Wire, class Body>
Wire guarded(Body&& body) {
    release_results();
    try {
        return body();
    } catch (const std::bad_alloc&) {
        report_error("out of memory: the WebAssembly heap cannot grow further");
    } catch (const std::exception& e) {
        report_error(e.what());
    }
    if constexpr (std::is_same_v<Wire, val>) return val::undefined();
    else if constexpr (!std::is_void_v<Wire>) return Wire{};
}

// Calls `f` on the converted parameters and converts its result.
template <class R, class... A, class F>
auto call_with(F&& f, typename Param<A>::Wire... wire) {
    using Out = Result<std::remove_cv_t<R>>;
    using Wire = typename Out::Wire;
    return guarded<Wire>([&]() -> Wire {
        std::tuple<Param<A>...> params(std::move(wire)...);
        if constexpr (std::is_void_v<R>) {
            std::apply([&](auto&... p) { f(p.get()...); }, params);
        } else {
            return Out::to(std::apply([&](auto&... p) -> R { return f(p.get()...); }, params), params);
        }
    });
}

// ---------------------------------------------------------------- Js<F>::call

// Js<&function>::call or Js<&Class::method>::call: F's signature with each parameter and the result in
// their Embind form, and errors reported. A Tensor method takes its receiver as a record (first argument);
// a module's method is bound to its class_, so Embind passes the module itself.
template <auto F, class Sig = decltype(F)>
struct Js;

template <auto F, class R, class... A>
struct Js<F, R (*)(A...)> {
    static auto call(typename Param<A>::Wire... a) { return call_with<R, A...>(F, std::move(a)...); }
};

template <auto F, class R, class... A>
struct Js<F, R (Tensor::*)(A...) const> {
    static auto call(uintptr_t self, typename Param<A>::Wire... a) {
        auto method = [](const Tensor& t, auto&&... args) -> R { return (t.*F)(args...); };
        return call_with<R, const Tensor&, A...>(method, self, std::move(a)...);
    }
};

template <auto F, class R, class... A>
struct Js<F, R (Tensor::*)(A...)> {
    static auto call(uintptr_t self, typename Param<A>::Wire... a) {
        auto method = [](Tensor& t, auto&&... args) -> R { return (t.*F)(args...); };
        return call_with<R, Tensor&, A...>(method, self, std::move(a)...);
    }
};

template <auto F, class R, class C, class... A>
struct Js<F, R (C::*)(A...)> {
    static auto call(C& self, typename Param<A>::Wire... a) {
        auto method = [&self](auto&&... args) -> R { return (self.*F)(args...); };
        return call_with<R, A...>(method, std::move(a)...);
    }
};

template <auto F, class R, class C, class... A>
struct Js<F, R (C::*)(A...) const> {
    static auto call(const C& self, typename Param<A>::Wire... a) {
        auto method = [&self](auto&&... args) -> R { return (self.*F)(args...); };
        return call_with<R, A...>(method, std::move(a)...);
    }
};

// A module's constructor for class_<M>::smart_ptr_constructor: Embind's handle owns a shared_ptr, which its
// FinalizationRegistry releases once the handle is collected (raw pointers get no finalizer). Empty (and an
// error reported) for arguments the core refuses.
template <class M, class... A>
struct JsNew {
    static std::shared_ptr<M> make(typename Param<A>::Wire... a) {
        return guarded<std::shared_ptr<M>>([&] {
            std::tuple<Param<A>...> params(std::move(a)...);
            return std::apply([](auto&... p) { return std::make_shared<M>(p.get()...); }, params);
        });
    }
};

}  // namespace attn::wasm
