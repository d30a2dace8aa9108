// Embind declarations only: every entry adapts a core function or method with Js<...> (convert.hpp).
// The JavaScript wrapper (index.js) gives these their PyTorch-shaped names and argument handling.
#include <emscripten/bind.h>

#include "attn/generator.hpp"
#include "attn/nn.hpp"
#include "attn/ops.hpp"
#include "attn/print.hpp"
#include "convert.hpp"
#include "kernels/kernels.hpp"

using namespace emscripten;
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

EMSCRIPTEN_BINDINGS(attention) {
    // generator
    function("manualSeed", &Js<manual_seed>::call);
    function("initialSeed", &Js<&attn::initial_seed>::call);
    function("setRngProfile", &Js<&attn::set_rng_profile>::call);
    function("getRngProfile", &Js<&attn::rng_profile>::call);
    function("rngDraws", &Js<&attn::rng_draws>::call);
    function("kernelBackend", &Js<&backend>::call);
    function("heapBytes", &Js<&attn::wasm::heap_bytes>::call);
    function("allocatedBytes", &Js<&attn::wasm::allocated_bytes>::call);

    // creation
    function("fromValues", &Js<&Tensor::from_vector>::call);
    function("rand", &Js<&attn::rand>::call);
    function("randn", &Js<&attn::randn>::call);
    function("zeros", &Js<&attn::zeros>::call);
    function("ones", &Js<&attn::ones>::call);
    function("empty", &Js<&attn::empty>::call);
    function("stack", &Js<&attn::stack>::call);
    function("cat", &Js<&attn::cat>::call);

    // ops
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
    function("sumAll", &Js<sum_all>::call);
    function("sumDim", &Js<sum_dim>::call);
    function("softmax", &Js<&attn::softmax>::call);
    function("dot", &Js<&attn::dot>::call);
    function("matmul", &Js<&attn::matmul>::call);
    function("triu", &Js<&attn::triu>::call);
    function("tril", &Js<&attn::tril>::call);
    function("maskedFill", &Js<&attn::masked_fill>::call);
    function("allclose", &Js<&attn::allclose>::call);

    // tensor methods: the receiver comes first
    function("toVector", &Js<&Tensor::to_vector>::call);
    function("item", &Js<&Tensor::item>::call);
    function("size", &Js<&Tensor::size>::call);
    function("select", &Js<&Tensor::select>::call);
    function("slice", &Js<&Tensor::slice>::call);
    function("transpose", &Js<&Tensor::transpose>::call);
    function("T", &Js<&Tensor::T>::call);
    function("view", &Js<&Tensor::view>::call);
    function("reshape", &Js<&Tensor::reshape>::call);
    function("flatten", &Js<&Tensor::flatten>::call);
    function("contiguous", &Js<&Tensor::contiguous>::call);
    function("clone", &Js<&Tensor::clone>::call);
    function("toBool", &Js<&Tensor::to_bool>::call);
    function("zero_", &Js<&Tensor::zero_>::call);
    function("fill_", &Js<&Tensor::fill_>::call);
    function("add_", &Js<add_tensor_>::call);
    function("addNumber_", &Js<add_number_>::call);
    function("maskedFill_", &Js<&Tensor::masked_fill_>::call);
    function("setNumber", &Js<set_number>::call);
    function("setTensor", &Js<set_tensor>::call);

    // printing
    function("toString", &Js<to_string>::call);
    function("setPrintOptions", &Js<&attn::set_printoptions>::call);

    // modules: embind owns them; the JS wrapper frees each one when it is garbage-collected
    class_<nn::Module>("Module")
        .smart_ptr<std::shared_ptr<nn::Module>>("ModulePtr")
        .function("forward", &Js<&nn::Module::forward>::call)
        .function("train", &Js<&nn::Module::train>::call)
        .function("isTraining", &Js<&nn::Module::is_training>::call)
        .function("parameterNames", &Js<&nn::Module::parameter_names>::call)
        .function("moduleNames", &Js<&nn::Module::module_names>::call)
        .function("forwardSubmodule", &Js<&nn::Module::forward_submodule>::call)
        .function("parameter", &Js<&nn::Module::parameter>::call)
        .function("loadParameter", &Js<&nn::Module::load_parameter>::call);
    class_<nn::Linear, base<nn::Module>>("Linear").smart_ptr<std::shared_ptr<nn::Linear>>("LinearPtr");
    class_<nn::Dropout, base<nn::Module>>("Dropout").smart_ptr<std::shared_ptr<nn::Dropout>>("DropoutPtr");
    class_<nn::SelfAttention_v1, base<nn::Module>>("SelfAttention_v1")
        .smart_ptr<std::shared_ptr<nn::SelfAttention_v1>>("SelfAttention_v1Ptr");
    class_<nn::SelfAttention_v2, base<nn::Module>>("SelfAttention_v2")
        .smart_ptr<std::shared_ptr<nn::SelfAttention_v2>>("SelfAttention_v2Ptr");
    class_<nn::CausalAttention, base<nn::Module>>("CausalAttention")
        .smart_ptr<std::shared_ptr<nn::CausalAttention>>("CausalAttentionPtr");
    class_<nn::MultiHeadAttentionWrapper, base<nn::Module>>("MultiHeadAttentionWrapper")
        .smart_ptr<std::shared_ptr<nn::MultiHeadAttentionWrapper>>("MultiHeadAttentionWrapperPtr");
    class_<nn::MultiHeadAttention, base<nn::Module>>("MultiHeadAttention")
        .smart_ptr<std::shared_ptr<nn::MultiHeadAttention>>("MultiHeadAttentionPtr");

    function("newLinear", &JsNew<nn::Linear, int64_t, int64_t, bool>::call);
    function("newDropout", &JsNew<nn::Dropout, double>::call);
    function("newSelfAttention_v1", &JsNew<nn::SelfAttention_v1, int64_t, int64_t>::call);
    function("newSelfAttention_v2", &JsNew<nn::SelfAttention_v2, int64_t, int64_t, bool>::call);
    function("newCausalAttention", &JsNew<nn::CausalAttention, int64_t, int64_t, int64_t, double, bool>::call);
    function("newMultiHeadAttentionWrapper",
             &JsNew<nn::MultiHeadAttentionWrapper, int64_t, int64_t, int64_t, double, int64_t, bool>::call);
    function("newMultiHeadAttention",
             &JsNew<nn::MultiHeadAttention, int64_t, int64_t, int64_t, double, int64_t, bool>::call);
}
