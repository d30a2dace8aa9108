// The API as Embind declarations, and nothing else. Each core function or method is wrapped in
// Js<...>::call (convert.hpp), which passes tensors as JS-owned records and reports errors; api/ gives
// these exports their PyTorch-shaped names, overloads and argument checks (api/ops.js declares the ops).
#include <emscripten/bind.h>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/parallel.hpp"
#include "attn/print.hpp"
#include "convert.hpp"
#include "kernels/kernels.hpp"

using namespace emscripten;
using attn::Shape;
using attn::Tensor;
using attn::wasm::Js;
using attn::wasm::JsNew;
namespace nn = attn::nn;
using i64 = int64_t;

namespace {
// Overloaded core functions, each named once.
constexpr Tensor (*add_tensor)(const Tensor&, const Tensor&) = attn::add;
constexpr Tensor (*sub_tensor)(const Tensor&, const Tensor&) = attn::sub;
constexpr Tensor (*mul_tensor)(const Tensor&, const Tensor&) = attn::mul;
constexpr Tensor (*div_tensor)(const Tensor&, const Tensor&) = attn::div;
constexpr Tensor (*pow_tensor)(const Tensor&, const Tensor&) = attn::pow;
using attn::Scalar;
constexpr Tensor (*add_number)(const Tensor&, const Scalar&) = attn::add;
constexpr Tensor (*sub_number)(const Tensor&, const Scalar&) = attn::sub;
constexpr Tensor (*mul_number)(const Tensor&, const Scalar&) = attn::mul;
constexpr Tensor (*div_number)(const Tensor&, const Scalar&) = attn::div;
constexpr Tensor (*pow_number)(const Tensor&, const Scalar&) = attn::pow;
constexpr Tensor (*rsub_number)(const Tensor&, const Scalar&) = attn::rsub;
constexpr Tensor (*compare_tensor)(const Tensor&, const Tensor&, attn::Compare) = attn::compare;
constexpr Tensor (*compare_number)(const Tensor&, const Scalar&, attn::Compare) = attn::compare;
constexpr Tensor (*bitwise_tensor)(const Tensor&, const Tensor&, attn::Bitwise) = attn::bitwise;
constexpr Tensor (*bitwise_number)(const Tensor&, const Scalar&, attn::Bitwise) = attn::bitwise;
constexpr attn::DType (*result_type_tensor)(const Tensor&, const Tensor&) = attn::result_type;
constexpr attn::DType (*result_type_number)(const Tensor&, const Scalar&) = attn::result_type;
constexpr Tensor (*argmax_all)(const Tensor&) = attn::argmax;
constexpr Tensor (*argmin_all)(const Tensor&) = attn::argmin;
constexpr Tensor (*argmax_dim)(const Tensor&, int64_t, bool) = attn::argmax;
constexpr Tensor (*argmin_dim)(const Tensor&, int64_t, bool) = attn::argmin;
constexpr Tensor (*max_all)(const Tensor&) = attn::max;
constexpr Tensor (*min_all)(const Tensor&) = attn::min;
constexpr attn::ValuesIndices (*max_dim)(const Tensor&, int64_t, bool) = attn::max;
constexpr attn::ValuesIndices (*min_dim)(const Tensor&, int64_t, bool) = attn::min;
constexpr Tensor (*linear_bias)(const Tensor&, const Tensor&, const Tensor&) = nn::linear;
constexpr Tensor (*linear_no_bias)(const Tensor&, const Tensor&) = nn::linear;
constexpr Tensor (*sum_all)(const Tensor&) = attn::sum;
constexpr Tensor (*sum_dim)(const Tensor&, int64_t, bool) = attn::sum;
constexpr Tensor (*squeeze_all)(const Tensor&) = attn::squeeze;
constexpr Tensor (*squeeze_dim)(const Tensor&, int64_t) = attn::squeeze;
constexpr Tensor (*prod_all)(const Tensor&) = attn::prod;
constexpr Tensor (*prod_dim)(const Tensor&, int64_t, bool) = attn::prod;
constexpr void (*manual_seed)(uint64_t) = attn::manual_seed;
constexpr std::string (*to_string)(const Tensor&) = attn::to_string;
constexpr Tensor& (Tensor::*add_tensor_)(const Tensor&) = &Tensor::add_;

constexpr Tensor& (Tensor::*set_number)(const std::vector<int64_t>&, double) = &Tensor::set;
constexpr Tensor& (Tensor::*set_tensor)(const std::vector<int64_t>&, const Tensor&) = &Tensor::set;

// The JS API draws from the default generator, like torch's functions.
Tensor rand_default(const Shape& shape) { return attn::rand(shape); }
Tensor randn_default(const Shape& shape) { return attn::randn(shape); }
Tensor& uniform_default(Tensor& t, double from, double to) { return attn::uniform_(t, from, to); }
Tensor& normal_default(Tensor& t, double mean, double std) { return attn::normal_(t, mean, std); }
Tensor from_doubles(const Shape& shape, const std::vector<double>& values, attn::DType dtype) {
    return Tensor::from_doubles(shape, values, dtype);
}
Tensor dropout_default(const Tensor& x, double p, bool training) { return nn::dropout(x, p, training); }
std::string kernel_backend() { return attn::kernels::active().name; }
// The loader checks the count (1 to 256) before it calls these; Embind takes no 64-bit integers.
void set_num_threads(int n) { attn::set_num_threads(n); }
int num_threads() { return static_cast<int>(attn::get_num_threads()); }
Tensor& add_number_(Tensor& t, const Scalar& other) { return t.add_(other.value); }
}  // namespace

EMSCRIPTEN_BINDINGS(attention) {
    // ---- how values cross (convert.hpp)
    value_object<attn::wasm::RecordLayout>("RecordLayout")
        .field("values", &attn::wasm::RecordLayout::values)
        .field("length", &attn::wasm::RecordLayout::length)
        .field("rank", &attn::wasm::RecordLayout::rank)
        .field("offset", &attn::wasm::RecordLayout::offset)
        .field("dtype", &attn::wasm::RecordLayout::dtype)
        .field("requiresGrad", &attn::wasm::RecordLayout::requires_grad)
        .field("isParameter", &attn::wasm::RecordLayout::is_parameter)
        .field("shared", &attn::wasm::RecordLayout::shared)
        .field("gradFn", &attn::wasm::RecordLayout::grad_fn)
        .field("headerBytes", &attn::wasm::RecordLayout::header_bytes);
    function("recordLayout", &attn::wasm::record_layout);
    value_object<attn::wasm::MemoryUsage>("MemoryUsage")
        .field("heapBytes", &attn::wasm::MemoryUsage::heap_bytes)
        .field("allocatedBytes", &attn::wasm::MemoryUsage::allocated_bytes);
    function("memoryUsage", &Js<&attn::wasm::memory_usage>::call);
    function("kernelBackend", &kernel_backend);
    function("setNumThreads", &set_num_threads);
    function("numThreads", &num_threads);
    constant("maxDims", static_cast<int>(attn::kMaxDims));  // api/ stops walking nested arrays deeper than this

    // ---- generator
    enum_<attn::RngProfile>("RngProfile")
        .value(attn::rng_profile_name(attn::RngProfile::Default), attn::RngProfile::Default)
        .value(attn::rng_profile_name(attn::RngProfile::Mkl), attn::RngProfile::Mkl);
    function("manualSeed", &Js<manual_seed>::call);
    function("initialSeed", &Js<&attn::initial_seed>::call);
    function("setRngProfile", &attn::set_rng_profile);
    function("getRngProfile", &attn::rng_profile);
    function("rngDraws", &Js<&attn::rng_draws>::call);

    // ---- creation
    enum_<attn::Compare>("Compare")
        .value("eq", attn::Compare::Eq)
        .value("ne", attn::Compare::Ne)
        .value("lt", attn::Compare::Lt)
        .value("le", attn::Compare::Le)
        .value("gt", attn::Compare::Gt)
        .value("ge", attn::Compare::Ge);
    enum_<attn::DType>("DType")
        .value(attn::dtype_name(attn::DType::Float32), attn::DType::Float32)
        .value(attn::dtype_name(attn::DType::Bool), attn::DType::Bool)
        .value(attn::dtype_name(attn::DType::Int64), attn::DType::Int64)
        .value(attn::dtype_name(attn::DType::Float64), attn::DType::Float64)
        .value(attn::dtype_name(attn::DType::Int32), attn::DType::Int32);
    enum_<attn::ScalarKind>("ScalarKind")
        .value("bool", attn::ScalarKind::Bool)
        .value("int", attn::ScalarKind::Int)
        .value("float", attn::ScalarKind::Float);
    value_object<Scalar>("Scalar").field("value", &Scalar::value).field("kind", &Scalar::kind);
    enum_<attn::Bitwise>("Bitwise")
        .value("and", attn::Bitwise::And)
        .value("or", attn::Bitwise::Or)
        .value("xor", attn::Bitwise::Xor);
    function("fromValues", &Js<&Tensor::from_vector>::call);
    function("fromDoubles", &Js<&from_doubles>::call);
    function("full", &Js<&attn::full>::call);
    function("arange", &Js<&attn::arange>::call);
    function("linspace", &Js<&attn::linspace>::call);
    function("eye", &Js<&attn::eye>::call);
    function("rand", &Js<&rand_default>::call);
    function("randn", &Js<&randn_default>::call);
    function("zeros", &Js<&attn::zeros>::call);
    function("ones", &Js<&attn::ones>::call);
    function("empty", &Js<&attn::empty>::call);
    function("stack", &Js<&attn::stack>::call);
    function("cat", &Js<&attn::cat>::call);

    // ---- ops
    function("add", &Js<add_tensor>::call);
    function("sub", &Js<sub_tensor>::call);
    function("mul", &Js<mul_tensor>::call);
    function("div", &Js<div_tensor>::call);
    function("pow", &Js<pow_tensor>::call);
    function("addNumber", &Js<add_number>::call);
    function("subNumber", &Js<sub_number>::call);
    function("mulNumber", &Js<mul_number>::call);
    function("divNumber", &Js<div_number>::call);
    function("powNumber", &Js<pow_number>::call);
    function("exp", &Js<&attn::exp>::call);
    function("neg", &Js<&attn::neg>::call);
    function("rsubNumber", &Js<rsub_number>::call);
    function("reciprocal", &Js<&attn::reciprocal>::call);
    function("compare", &Js<compare_tensor>::call);
    function("compareNumber", &Js<compare_number>::call);
    function("bitwise", &Js<bitwise_tensor>::call);
    function("bitwiseNumber", &Js<bitwise_number>::call);
    function("bitwiseNot", &Js<&attn::bitwise_not>::call);
    function("resultType", &Js<result_type_tensor>::call);
    function("resultTypeNumber", &Js<result_type_number>::call);
    function("argmaxAll", &Js<argmax_all>::call);
    function("argminAll", &Js<argmin_all>::call);
    function("argmax", &Js<argmax_dim>::call);
    function("argmin", &Js<argmin_dim>::call);
    function("maxAll", &Js<max_all>::call);
    function("minAll", &Js<min_all>::call);
    function("max", &Js<max_dim>::call);
    function("min", &Js<min_dim>::call);
    function("linear", &Js<linear_bias>::call);
    function("linearNoBias", &Js<linear_no_bias>::call);
    function("dropout", &Js<dropout_default>::call);
    function("sumAll", &Js<sum_all>::call);
    function("sumDim", &Js<sum_dim>::call);
    function("softmax", &Js<&attn::softmax>::call);
    function("dot", &Js<&attn::dot>::call);
    function("matmul", &Js<&attn::matmul>::call);
    function("triu", &Js<&attn::triu>::call);
    function("tril", &Js<&attn::tril>::call);
    function("maskedFill", &Js<&attn::masked_fill>::call);
    function("allclose", &Js<&attn::allclose>::call);

    // ---- shape ops (core/src/shape_ops.cpp)
    function("permute", &Js<&Tensor::permute>::call);
    function("unbind", &Js<&attn::unbind>::call);
    function("split", &Js<&attn::split>::call);
    function("splitWithSizes", &Js<&attn::split_with_sizes>::call);
    function("chunk", &Js<&attn::chunk>::call);
    function("squeeze", &Js<squeeze_dim>::call);
    function("squeezeAll", &Js<squeeze_all>::call);
    function("expand", &Js<&attn::expand>::call);
    function("repeat", &Js<&attn::repeat>::call);
    function("movedim", &Js<&attn::movedim>::call);
    function("sliceStep", &Js<&attn::slice_step>::call);
    function("indexMask", &Js<&attn::index_mask>::call);
    function("indexSelect", &Js<&attn::index_select>::call);
    function("indexPutMask_", &Js<&attn::index_put_mask>::call);
    function("indexPutRows_", &Js<&attn::index_put_rows>::call);

    // ---- math ops (core/src/math_ops.cpp)
    function("sumDims", &Js<&attn::sum_dims>::call);
    function("mean", &Js<&attn::mean>::call);
    function("meanDims", &Js<&attn::mean_dims>::call);
    function("var", &Js<&attn::var>::call);
    function("std", &Js<&attn::std_dev>::call);
    function("amax", &Js<&attn::amax>::call);
    function("amin", &Js<&attn::amin>::call);
    function("prod", &Js<prod_all>::call);
    function("prodDim", &Js<prod_dim>::call);
    function("cumsum", &Js<&attn::cumsum>::call);
    function("abs", &Js<&attn::abs>::call);
    function("log", &Js<&attn::log>::call);
    function("sqrt", &Js<&attn::sqrt>::call);
    function("rsqrt", &Js<&attn::rsqrt>::call);
    function("clamp", &Js<&attn::clamp>::call);
    function("where", &Js<&attn::where>::call);
    function("isclose", &Js<&attn::isclose>::call);
    function("equal", &Js<&attn::equal>::call);
    function("logSoftmax", &Js<&attn::log_softmax>::call);
    function("bmm", &Js<&attn::bmm>::call);
    function("baddbmm", &Js<&attn::baddbmm>::call);
    function("einsum", &Js<&attn::einsum>::call);

    // ---- tensor methods: the receiver comes first
    function("item", &Js<&Tensor::value>::call);
    function("size", &Js<&Tensor::size>::call);
    function("stride", &Js<&Tensor::stride>::call);
    function("select", &Js<&Tensor::select>::call);
    function("slice", &Js<&Tensor::slice>::call);
    function("transpose", &Js<&Tensor::transpose>::call);
    function("T", &Js<&Tensor::T>::call);
    function("view", &Js<&Tensor::view>::call);
    function("reshape", &Js<&Tensor::reshape>::call);
    function("flatten", &Js<&attn::flatten>::call);
    function("unsqueeze", &Js<&Tensor::unsqueeze>::call);
    function("contiguous", &Js<&Tensor::contiguous>::call);
    function("clone", &Js<&Tensor::clone>::call);
    function("toBool", &Js<&Tensor::to_bool>::call);
    function("toFloat", &Js<&Tensor::to_float>::call);
    function("to", &Js<&Tensor::to>::call);
    function("zero_", &Js<&Tensor::zero_>::call);
    function("fill_", &Js<&Tensor::fill_>::call);
    function("uniform_", &Js<&uniform_default>::call);
    function("normal_", &Js<&normal_default>::call);
    function("add_", &Js<add_tensor_>::call);
    function("addNumber_", &Js<add_number_>::call);
    function("maskedFill_", &Js<&Tensor::masked_fill_>::call);
    function("setNumber", &Js<set_number>::call);
    function("setTensor", &Js<set_tensor>::call);

    // ---- printing
    function("tensorToString", &Js<to_string>::call);
    function("setPrintOptions", &Js<&attn::set_printoptions>::call);

    // ---- modules: Embind handles over a shared_ptr, freed by delete() or once collected
    enum_<nn::AttentionPath>("AttentionPath")
        .value(nn::attention_path_name(nn::AttentionPath::Auto), nn::AttentionPath::Auto)
        .value(nn::attention_path_name(nn::AttentionPath::Exact), nn::AttentionPath::Exact)
        .value(nn::attention_path_name(nn::AttentionPath::Fast), nn::AttentionPath::Fast);
    class_<nn::Module>("Module")
        .function("forward", &Js<&nn::Module::forward>::call)
        .function("train", &nn::Module::train)
        .property("training", &nn::Module::is_training)
        .function("parameterNames", &Js<&nn::Module::parameter_names>::call)
        .function("moduleNames", &Js<&nn::Module::module_names>::call)
        .function("forwardSubmodule", &Js<&nn::Module::forward_submodule>::call)
        .function("parameter", &Js<&nn::Module::parameter>::call)
        .function("loadParameter", &Js<&nn::Module::load_parameter>::call)
        .function("setAttentionPath", &nn::Module::set_attention_path);
    class_<nn::Linear, base<nn::Module>>("Linear")
        .smart_ptr_constructor("LinearPtr", &JsNew<nn::Linear, i64, i64, bool>::make);
    class_<nn::Dropout, base<nn::Module>>("Dropout")
        .smart_ptr_constructor("DropoutPtr", &JsNew<nn::Dropout, double>::make);
    class_<nn::SelfAttention_v1, base<nn::Module>>("SelfAttention_v1")
        .smart_ptr_constructor("SelfAttention_v1Ptr", &JsNew<nn::SelfAttention_v1, i64, i64>::make);
    class_<nn::SelfAttention_v2, base<nn::Module>>("SelfAttention_v2")
        .smart_ptr_constructor("SelfAttention_v2Ptr", &JsNew<nn::SelfAttention_v2, i64, i64, bool>::make);
    class_<nn::CausalAttention, base<nn::Module>>("CausalAttention")
        .smart_ptr_constructor("CausalAttentionPtr", &JsNew<nn::CausalAttention, i64, i64, i64, double, bool>::make);
    class_<nn::MultiHeadAttentionWrapper, base<nn::Module>>("MultiHeadAttentionWrapper")
        .smart_ptr_constructor("MultiHeadAttentionWrapperPtr",
                               &JsNew<nn::MultiHeadAttentionWrapper, i64, i64, i64, double, i64, bool>::make);
    class_<nn::MultiHeadAttention, base<nn::Module>>("MultiHeadAttention")
        .smart_ptr_constructor("MultiHeadAttentionPtr",
                               &JsNew<nn::MultiHeadAttention, i64, i64, i64, double, i64, bool>::make)
        .function("attentionWeights", &Js<&nn::MultiHeadAttention::attention_weights>::call);
}
