#include "convert.hpp"

#include <emscripten/em_js.h>
#include <emscripten/heap.h>
#include <malloc.h>

#include <cmath>
#include <cstddef>
#include <cstring>

#include "attn/error.hpp"

namespace attn::wasm {

// ---------------------------------------------------------------- tensors

RecordLayout record_layout() {
    return {offsetof(TensorRecord, values),        offsetof(TensorRecord, length),
            offsetof(TensorRecord, rank),          offsetof(TensorRecord, offset),
            offsetof(TensorRecord, dtype),         offsetof(TensorRecord, requires_grad),
            offsetof(TensorRecord, is_parameter),  offsetof(TensorRecord, shared),
            offsetof(TensorRecord, grad_fn),       sizeof(TensorRecord)};
}

static const int32_t* dims_of(const TensorRecord* r) { return reinterpret_cast<const int32_t*>(r + 1); }

Tensor tensor_from_record(uintptr_t address) {
    const auto* r = reinterpret_cast<const TensorRecord*>(address);
    const int32_t* dims = dims_of(r);
    const Shape shape(dims, dims + r->rank), strides(dims + r->rank, dims + 2 * r->rank);
    if (r->dtype < 0 || r->dtype > static_cast<int32_t>(DType::Int32))
        throw Error("tensor: unknown dtype code " + std::to_string(r->dtype));
    const auto* values = reinterpret_cast<const float*>(r->values);
    Tensor t = Tensor::from_strided(std::vector<float>(values, values + r->length), shape, strides, r->offset,
                                    static_cast<DType>(r->dtype));
    if (r->is_parameter) t.set_parameter(true, r->requires_grad != 0);
    else if (r->grad_fn[0] != '\0') t.record(r->grad_fn, true);
    else t.set_requires_grad(r->requires_grad != 0);
    return t;
}

std::vector<Tensor> tensors_from_list(uintptr_t address) {
    const auto* list = reinterpret_cast<const TensorList*>(address);
    std::vector<Tensor> out;
    out.reserve(list->count);
    for (uint32_t i = 0; i < list->count; ++i) out.push_back(tensor_from_record(list->records[i]));
    return out;
}

namespace {
// The last call's results: the tensors whose storages JS copies out, and their records.
struct Held {
    Held() {  // capacities that stay put, so that the allocator holds the same bytes between calls
        tensors.reserve(4);
        records.reserve(4);
    }
    std::vector<Tensor> tensors;
    std::vector<std::vector<int32_t>> records;  // int32 words, so that every field is aligned
};
Held& held() {
    static Held* h = new Held();  // never destroyed: the module lives as long as the page
    return *h;
}
}  // namespace

uintptr_t record_of(const Tensor& t, int shared) {
    Held& h = held();
    h.tensors.push_back(t);
    const size_t rank = static_cast<size_t>(t.dim());
    h.records.emplace_back((sizeof(TensorRecord) + 2 * rank * sizeof(int32_t)) / sizeof(int32_t));
    auto* r = reinterpret_cast<TensorRecord*>(h.records.back().data());
    r->values = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(t.storage().data()));
    r->length = static_cast<uint32_t>(t.storage().size());
    r->rank = static_cast<int32_t>(rank);
    r->offset = static_cast<int32_t>(t.storage_offset());
    r->dtype = static_cast<int32_t>(t.dtype());
    r->requires_grad = t.requires_grad();
    r->is_parameter = t.is_parameter();
    r->shared = shared;
    std::strncpy(r->grad_fn, t.grad_fn().c_str(), sizeof r->grad_fn - 1);  // the core's names are short
    auto* dims = reinterpret_cast<int32_t*>(r + 1);
    for (size_t d = 0; d < rank; ++d) {
        dims[d] = static_cast<int32_t>(t.shape()[d]);
        dims[rank + d] = static_cast<int32_t>(t.strides()[d]);
    }
    return reinterpret_cast<uintptr_t>(r);
}

void release_results() {
    Held& h = held();
    h.tensors.clear();
    h.records.clear();
}

// ---------------------------------------------------------------- other arguments

int64_t saturate(double x) {
    constexpr double limit = 9223372036854774784.0;  // the largest double below 2^63
    if (std::isnan(x)) return 0;
    return static_cast<int64_t>(std::fmax(-limit, std::fmin(limit, x)));
}

Shape shape_from_list(uintptr_t address) {
    const auto* list = reinterpret_cast<const SizeList*>(address);
    Shape shape(list->count);
    for (uint32_t i = 0; i < list->count; ++i) shape[i] = saturate(list->values[i]);
    return shape;
}

PrintOptionsUpdate print_options_from_js(const val& options) {
    PrintOptionsUpdate u;
    auto given = [&](const char* key) { return !options[key].isUndefined() && !options[key].isNull(); };
    // Integers cross whole (saturated, never wrapped) so that the core's range checks see what was given.
    if (given("precision")) u.precision = saturate(options["precision"].as<double>());
    if (given("threshold")) u.threshold = options["threshold"].as<double>();
    if (given("edgeitems")) u.edgeitems = saturate(options["edgeitems"].as<double>());
    if (given("linewidth")) u.linewidth = saturate(options["linewidth"].as<double>());
    if (given("sciMode")) u.sci_mode = options["sciMode"].as<bool>();
    if (given("profile")) u.profile = options["profile"].as<std::string>();
    return u;
}

// ---------------------------------------------------------------- errors and memory

EM_JS(void, attn_report_error, (const char* message), { Module["attnError"] = UTF8ToString(message); });

void report_error(const char* message) { attn_report_error(message); }

MemoryUsage memory_usage() {
    return {static_cast<double>(emscripten_get_heap_size()), static_cast<double>(mallinfo().uordblks)};
}

}  // namespace attn::wasm
