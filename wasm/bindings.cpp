// Declarations only: every export adapts a core function or method with Js<...> (convert.hpp), and
// index.js calls it as `_attn_<name>` with its arguments on the wire. The JavaScript wrapper (index.js)
// gives these their PyTorch-shaped names and argument handling.
#include <emscripten/emscripten.h>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"
#include "convert.hpp"
#include "kernels/kernels.hpp"

using attn::Shape;
using attn::Tensor;
using attn::wasm::Js;
using attn::wasm::JsNew;
namespace nn = attn::nn;

namespace {
// Overloaded core functions, each named once.
constexpr Tensor (*add_tensor)(const Tensor&, const Tensor&) = attn::add;
constexpr Tensor (*sub_tensor)(const Tensor&, const Tensor&) = attn::sub;
constexpr Tensor (*mul_tensor)(const Tensor&, const Tensor&) = attn::mul;
constexpr Tensor (*div_tensor)(const Tensor&, const Tensor&) = attn::div;
constexpr Tensor (*pow_tensor)(const Tensor&, const Tensor&) = attn::pow;
constexpr Tensor (*add_number)(const Tensor&, double) = attn::add;
constexpr Tensor (*sub_number)(const Tensor&, double) = attn::sub;
constexpr Tensor (*mul_number)(const Tensor&, double) = attn::mul;
constexpr Tensor (*div_number)(const Tensor&, double) = attn::div;
constexpr Tensor (*pow_number)(const Tensor&, double) = attn::pow;
constexpr Tensor (*sum_all)(const Tensor&) = attn::sum;
constexpr Tensor (*sum_dim)(const Tensor&, int64_t, bool) = attn::sum;
constexpr void (*manual_seed)(uint64_t) = attn::manual_seed;
constexpr std::string (*to_string)(const Tensor&) = attn::to_string;
constexpr Tensor& (Tensor::*add_tensor_)(const Tensor&) = &Tensor::add_;
constexpr Tensor& (Tensor::*add_number_)(double) = &Tensor::add_;
constexpr Tensor& (Tensor::*set_number)(const std::vector<int64_t>&, float) = &Tensor::set;
constexpr Tensor& (Tensor::*set_tensor)(const std::vector<int64_t>&, const Tensor&) = &Tensor::set;

std::string backend() { return attn::kernels::active().name; }
}  // namespace

// _attn_<name>: one export per entry, run on the arguments index.js put on the wire.
#define ATTN_EXPORT(name, ...) \
    extern "C" EMSCRIPTEN_KEEPALIVE void attn_##name() { attn::wasm::run(&__VA_ARGS__::call); }

// generator
ATTN_EXPORT(manualSeed, Js<manual_seed>)
ATTN_EXPORT(initialSeed, Js<&attn::initial_seed>)
ATTN_EXPORT(setRngProfile, Js<&attn::set_rng_profile>)
ATTN_EXPORT(getRngProfile, Js<&attn::rng_profile>)
ATTN_EXPORT(rngDraws, Js<&attn::rng_draws>)
ATTN_EXPORT(kernelBackend, Js<&backend>)
ATTN_EXPORT(heapBytes, Js<&attn::wasm::heap_bytes>)
ATTN_EXPORT(allocatedBytes, Js<&attn::wasm::allocated_bytes>)

// creation
ATTN_EXPORT(fromValues, Js<&Tensor::from_vector>)
ATTN_EXPORT(rand, Js<&attn::rand>)
ATTN_EXPORT(randn, Js<&attn::randn>)
ATTN_EXPORT(zeros, Js<&attn::zeros>)
ATTN_EXPORT(ones, Js<&attn::ones>)
ATTN_EXPORT(empty, Js<&attn::empty>)
ATTN_EXPORT(stack, Js<&attn::stack>)
ATTN_EXPORT(cat, Js<&attn::cat>)

// ops
ATTN_EXPORT(add, Js<add_tensor>)
ATTN_EXPORT(sub, Js<sub_tensor>)
ATTN_EXPORT(mul, Js<mul_tensor>)
ATTN_EXPORT(div, Js<div_tensor>)
ATTN_EXPORT(pow, Js<pow_tensor>)
ATTN_EXPORT(addNumber, Js<add_number>)
ATTN_EXPORT(subNumber, Js<sub_number>)
ATTN_EXPORT(mulNumber, Js<mul_number>)
ATTN_EXPORT(divNumber, Js<div_number>)
ATTN_EXPORT(powNumber, Js<pow_number>)
ATTN_EXPORT(exp, Js<&attn::exp>)
ATTN_EXPORT(sumAll, Js<sum_all>)
ATTN_EXPORT(sumDim, Js<sum_dim>)
ATTN_EXPORT(softmax, Js<&attn::softmax>)
ATTN_EXPORT(dot, Js<&attn::dot>)
ATTN_EXPORT(matmul, Js<&attn::matmul>)
ATTN_EXPORT(triu, Js<&attn::triu>)
ATTN_EXPORT(tril, Js<&attn::tril>)
ATTN_EXPORT(maskedFill, Js<&attn::masked_fill>)
ATTN_EXPORT(allclose, Js<&attn::allclose>)

// tensor methods: the receiver comes first
ATTN_EXPORT(item, Js<&Tensor::item>)
ATTN_EXPORT(size, Js<&Tensor::size>)
ATTN_EXPORT(select, Js<&Tensor::select>)
ATTN_EXPORT(slice, Js<&Tensor::slice>)
ATTN_EXPORT(transpose, Js<&Tensor::transpose>)
ATTN_EXPORT(T, Js<&Tensor::T>)
ATTN_EXPORT(view, Js<&Tensor::view>)
ATTN_EXPORT(reshape, Js<&Tensor::reshape>)
ATTN_EXPORT(flatten, Js<&Tensor::flatten>)
ATTN_EXPORT(contiguous, Js<&Tensor::contiguous>)
ATTN_EXPORT(clone, Js<&Tensor::clone>)
ATTN_EXPORT(toBool, Js<&Tensor::to_bool>)
ATTN_EXPORT(zero_, Js<&Tensor::zero_>)
ATTN_EXPORT(fill_, Js<&Tensor::fill_>)
ATTN_EXPORT(add_, Js<add_tensor_>)
ATTN_EXPORT(addNumber_, Js<add_number_>)
ATTN_EXPORT(maskedFill_, Js<&Tensor::masked_fill_>)
ATTN_EXPORT(setNumber, Js<set_number>)
ATTN_EXPORT(setTensor, Js<set_tensor>)

// printing
ATTN_EXPORT(toString, Js<to_string>)
ATTN_EXPORT(setPrintOptions, Js<&attn::set_printoptions>)

// modules: the module's id comes first; JS frees each one (attn_module_free) when it is garbage-collected
ATTN_EXPORT(moduleForward, Js<&nn::Module::forward>)
ATTN_EXPORT(moduleTrain, Js<&nn::Module::train>)
ATTN_EXPORT(moduleIsTraining, Js<&nn::Module::is_training>)
ATTN_EXPORT(moduleParameterNames, Js<&nn::Module::parameter_names>)
ATTN_EXPORT(moduleModuleNames, Js<&nn::Module::module_names>)
ATTN_EXPORT(moduleForwardSubmodule, Js<&nn::Module::forward_submodule>)
ATTN_EXPORT(moduleParameter, Js<&nn::Module::parameter>)
ATTN_EXPORT(moduleLoadParameter, Js<&nn::Module::load_parameter>)
ATTN_EXPORT(moduleSetAttentionPath, Js<&nn::Module::set_attention_path>)
ATTN_EXPORT(moduleAttentionWeights, Js<&nn::MultiHeadAttention::attention_weights>)

ATTN_EXPORT(newLinear, JsNew<nn::Linear, int64_t, int64_t, bool>)
ATTN_EXPORT(newDropout, JsNew<nn::Dropout, double>)
ATTN_EXPORT(newSelfAttention_v1, JsNew<nn::SelfAttention_v1, int64_t, int64_t>)
ATTN_EXPORT(newSelfAttention_v2, JsNew<nn::SelfAttention_v2, int64_t, int64_t, bool>)
ATTN_EXPORT(newCausalAttention, JsNew<nn::CausalAttention, int64_t, int64_t, int64_t, double, bool>)
ATTN_EXPORT(newMultiHeadAttentionWrapper,
            JsNew<nn::MultiHeadAttentionWrapper, int64_t, int64_t, int64_t, double, int64_t, bool>)
ATTN_EXPORT(newMultiHeadAttention, JsNew<nn::MultiHeadAttention, int64_t, int64_t, int64_t, double, int64_t, bool>)
