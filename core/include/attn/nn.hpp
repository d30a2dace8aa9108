#pragma once
// The chapter's modules, with the book's constructor arguments and PyTorch's draw order: each module
// draws its weights from the generator at construction, in the order its attributes are created.
// Modules start in training mode, like torch.nn.Module.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "attn/generator.hpp"
#include "attn/tensor.hpp"

namespace attn::nn {

// How CausalAttention and MultiHeadAttention compute attention.
//   Exact: PyTorch's steps, the T×T weights materialised: PyTorch's bits.
//   Fast:  per head, causal attention in tiles with an online softmax (kernels' attention_causal), never
//          computing the masked half nor storing the T×T weights. The projections keep PyTorch's order, each
//          multiply-add fused where the CPU has FMA (gemm_fused: native AVX2/AVX-512; never in wasm, whose
//          fast path keeps PyTorch's bits in them). The result agrees with Exact to a few float ulps times
//          the size (tests/native/test_fast.cpp). It needs dropout inactive (eval mode or p == 0): with
//          dropout on, the exact path runs.
//   Auto:  Fast when dropout is inactive and num_tokens >= kFastAttentionMinTokens, else Exact. No figure
//          of the book reaches that size (its attention has 6 tokens, the golden data at most 40), so
//          every number the chapter prints comes from the exact path.
enum class AttentionPath { Auto, Exact, Fast };
inline constexpr int64_t kFastAttentionMinTokens = 64;

class Module {
public:
    using NamedTensors = std::vector<std::pair<std::string, Tensor*>>;
    using NamedModules = std::vector<std::pair<std::string, Module*>>;

    virtual ~Module() = default;
    virtual Tensor forward(const Tensor& x) = 0;
    Tensor operator()(const Tensor& x) { return forward(x); }
    // Sets training mode here and in every submodule (only Dropout behaves differently).
    void train(bool mode = true);
    void eval() { train(false); }
    bool is_training() const { return training; }
    bool training = true;

    // The parameters this module holds itself, and its direct submodules, in creation order.
    virtual NamedTensors own_parameters() { return {}; }
    virtual NamedModules named_children() { return {}; }

    // Every parameter under PyTorch's state_dict name ("W_query.weight", "heads.0.W_key.weight", ...).
    NamedTensors named_parameters();
    std::vector<std::string> parameter_names();
    // Every submodule at any depth under its dotted name ("W_query", "heads.0", "heads.0.dropout", ...).
    NamedModules named_modules();
    std::vector<std::string> module_names();

    // The parameter or submodule called `name`; throws attn::Error listing the known names otherwise.
    Tensor& parameter(const std::string& name);
    Module& submodule(const std::string& name);
    // Copies `value` into the parameter after checking that the shapes are equal (Exercise 3.1).
    void load_parameter(const std::string& name, const Tensor& value);
    // submodule(name).forward(x): e.g. "W_query" of SelfAttention_v2 is the query projection.
    Tensor forward_submodule(const std::string& name, const Tensor& x) { return submodule(name).forward(x); }

    // Sets the attention path of this module and of every submodule that has one (no-op elsewhere).
    virtual void set_attention_path(AttentionPath path);
};

// nn.functional.linear: y = x W^T (+ b) with weight [out, in] (any strides) and bias [out], the bits and
// grad_fn of nn.Linear's forward (which calls it).
Tensor linear(const Tensor& x, const Tensor& weight);
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
// nn.functional.dropout: nn.Dropout's forward (which calls it), drawing from `gen` under its RNG profile.
Tensor dropout(const Tensor& x, double p, bool training, Generator& gen = default_generator());

// y = x W^T + b. weight [out_features, in_features] and bias [out_features] are drawn by
// kaiming_uniform_(a=sqrt(5)) and uniform(-1/sqrt(in), 1/sqrt(in)), weight first.
class Linear : public Module {
public:
    Linear(int64_t in_features, int64_t out_features, bool bias = true, Generator& gen = default_generator());
    Tensor forward(const Tensor& x) override;
    NamedTensors own_parameters() override;
    int64_t in_features, out_features;
    Tensor weight;
    std::optional<Tensor> bias;
};

// Training mode: zero each element with probability p and scale the rest by 1/(1-p). Eval: identity.
class Dropout : public Module {
public:
    explicit Dropout(double p = 0.5, Generator& gen = default_generator());
    Tensor forward(const Tensor& x) override;
    double p;
    Generator* generator;
};

// Section 3.4.2: three plain weight matrices [d_in, d_out] drawn with torch.rand.
class SelfAttention_v1 : public Module {
public:
    SelfAttention_v1(int64_t d_in, int64_t d_out, Generator& gen = default_generator());
    Tensor forward(const Tensor& x) override;
    NamedTensors own_parameters() override;
    int64_t d_out;
    Tensor W_query, W_key, W_value;
};

// Section 3.4.2: the same with nn.Linear projections.
class SelfAttention_v2 : public Module {
public:
    SelfAttention_v2(int64_t d_in, int64_t d_out, bool qkv_bias = false, Generator& gen = default_generator());
    Tensor forward(const Tensor& x) override;
    NamedModules named_children() override;
    int64_t d_out;
    Linear W_query, W_key, W_value;
};

// Section 3.5.3: causal mask and dropout on the attention weights; input [batch, num_tokens, d_in].
class CausalAttention : public Module {
public:
    CausalAttention(int64_t d_in, int64_t d_out, int64_t context_length, double dropout, bool qkv_bias = false,
                    Generator& gen = default_generator());
    Tensor forward(const Tensor& x) override;
    NamedModules named_children() override;
    void set_attention_path(AttentionPath path) override { attention_path = path; }
    int64_t d_out, context_length;
    Linear W_query, W_key, W_value;
    Dropout dropout;
    Tensor mask;  // triu(ones(context_length, context_length), diagonal=1)
    AttentionPath attention_path = AttentionPath::Auto;
};

// Section 3.6.1: num_heads independent CausalAttention heads, outputs concatenated on the last dim.
class MultiHeadAttentionWrapper : public Module {
public:
    MultiHeadAttentionWrapper(int64_t d_in, int64_t d_out, int64_t context_length, double dropout, int64_t num_heads,
                              bool qkv_bias = false, Generator& gen = default_generator());
    Tensor forward(const Tensor& x) override;
    NamedModules named_children() override;
    std::vector<CausalAttention> heads;
};

// Section 3.6.2: one projection per Q/K/V split into heads, then an output projection.
class MultiHeadAttention : public Module {
public:
    MultiHeadAttention(int64_t d_in, int64_t d_out, int64_t context_length, double dropout, int64_t num_heads,
                       bool qkv_bias = false, Generator& gen = default_generator());
    Tensor forward(const Tensor& x) override;
    NamedModules named_children() override;
    void set_attention_path(AttentionPath path) override { attention_path = path; }
    // One head's attention weights (before dropout) for the first `rows` queries: [b, rows, num_tokens], or
    // [rows, num_tokens] for a 2-D x. The exact path's bits, computed from only what those rows need, so
    // it is cheap at any size (the map a page draws while forward runs the fast path).
    Tensor attention_weights(const Tensor& x, int64_t head, int64_t rows);
    int64_t d_out, num_heads, head_dim, context_length;
    Linear W_query, W_key, W_value, out_proj;
    Dropout dropout;
    Tensor mask;
    AttentionPath attention_path = AttentionPath::Auto;
};

// True when a causal attention module with this path, dropout and number of tokens runs the fast path.
bool uses_fast_attention(AttentionPath path, const Dropout& dropout, int64_t num_tokens);
// "auto" | "exact" | "fast": the names the JS API takes (the bindings register these, and nothing else).
const char* attention_path_name(AttentionPath path);

}  // namespace attn::nn
