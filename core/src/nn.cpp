// The chapter's modules. Constructors draw in the order PyTorch creates attributes; forward passes
// follow the book's code line by line, so every intermediate rounds as PyTorch's does.
#include "attn/nn.hpp"

#include <cmath>
#include <sstream>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "kernels/kernels.hpp"

namespace attn::nn {

namespace {

void require_positive(int64_t value, const char* module, const char* name) {
    if (value <= 0)
        throw Error(std::string(module) + ": " + name + " must be a positive integer, got " + std::to_string(value));
}

void require_probability(double p, const char* module) {
    if (!(p >= 0.0 && p <= 1.0)) {
        std::ostringstream got;
        got << p;
        throw Error(std::string(module) + ": dropout probability must be in [0, 1], got " + got.str());
    }
}

// x's last dim must be d_in and it must have one of the accepted ranks.
void check_input(const Tensor& x, int64_t d_in, const char* module, int64_t min_rank, int64_t max_rank) {
    if (x.dim() < min_rank || x.dim() > max_rank)
        throw Error(std::string(module) + ": expected an input with " + std::to_string(min_rank) +
                    (min_rank == max_rank ? "" : " to " + std::to_string(max_rank)) + " dims, got shape " +
                    shape_str(x.shape()));
    if (x.size(-1) != d_in)
        throw Error(std::string(module) + ": input of shape " + shape_str(x.shape()) + " has " +
                    std::to_string(x.size(-1)) + " features in its last dim, expected d_in = " + std::to_string(d_in));
}

void check_tokens(int64_t num_tokens, int64_t context_length, const char* module) {
    if (num_tokens > context_length)
        throw Error(std::string(module) + ": the input has " + std::to_string(num_tokens) +
                    " tokens, more than context_length = " + std::to_string(context_length));
}

// `keys.shape[-1]**0.5` is a Python double; dividing a float32 tensor by it rounds it to float first.
Tensor scale_scores(const Tensor& scores, int64_t d_k) {
    return div(scores, std::sqrt(static_cast<double>(d_k)));
}

// The causal mask buffer: ones above the diagonal.
Tensor causal_mask(int64_t context_length) { return triu(ones({context_length, context_length}), 1); }

// scores.masked_fill_(mask.bool()[:n, :n], -inf) for the last two dims of scores.
void mask_future(Tensor& scores, const Tensor& mask) {
    const int64_t n = scores.size(-1);
    scores.masked_fill_(mask.to_bool().slice(0, 0, n).slice(1, 0, n), -INFINITY);
}

// Checks the arguments the attention modules share before anything is drawn from the generator.
int64_t checked_d_out(const char* module, int64_t d_in, int64_t d_out) {
    require_positive(d_in, module, "d_in");
    require_positive(d_out, module, "d_out");
    return d_out;
}

int64_t checked_d_out(const char* module, int64_t d_in, int64_t d_out, int64_t context_length, double p) {
    checked_d_out(module, d_in, d_out);
    require_positive(context_length, module, "context_length");
    require_probability(p, module);
    return d_out;
}

Tensor as_parameter(Tensor t) {
    t.set_parameter(true, true);
    return t;
}

// The fast path's attention: per batch entry and head, causal attention of q, k, v, whose last dim holds
// the heads side by side ([b, T, heads·head_dim], contiguous); the result has the same layout, which is
// the exact path's context after its heads are merged back.
Tensor causal_context(const Tensor& queries, const Tensor& keys, const Tensor& values, int64_t heads) {
    const int64_t width = queries.size(-1), T = queries.size(-2), head_dim = width / heads;
    const int64_t batch = T * width == 0 ? 0 : queries.numel() / (T * width);  // no tokens: nothing to do
    const float scale = static_cast<float>(std::sqrt(static_cast<double>(head_dim)));  // as scale_scores
    Tensor context = Tensor::empty(queries.shape());
    const float *q = queries.data(), *k = keys.data(), *v = values.data();
    float* out = context.data();
    const auto& kernel = kernels::active();  // fused where the CPU has FMA, as the projections
    kernel.attention_causal_heads(q, k, v, out, batch, T, heads, head_dim, scale,
                                  kernel.attention_causal_fused != nullptr);
    return context;
}

}  // namespace

bool uses_fast_attention(AttentionPath path, const Dropout& dropout, int64_t num_tokens) {
    const bool dropout_inactive = !dropout.training || dropout.p == 0.0;
    switch (path) {
        case AttentionPath::Exact: return false;
        case AttentionPath::Fast: return dropout_inactive;
        case AttentionPath::Auto: return dropout_inactive && num_tokens >= kFastAttentionMinTokens;
    }
    return false;
}

const char* attention_path_name(AttentionPath path) {
    switch (path) {
        case AttentionPath::Auto: return "auto";
        case AttentionPath::Exact: return "exact";
        case AttentionPath::Fast: return "fast";
    }
    return "auto";
}

void Module::set_attention_path(AttentionPath path) {
    for (auto& [name, child] : named_children()) child->set_attention_path(path);
}

// ---------------------------------------------------------------- Linear

Linear::Linear(int64_t in_features_, int64_t out_features_, bool with_bias, Generator& gen)
    : in_features(in_features_), out_features(out_features_) {
    require_positive(in_features, "Linear", "in_features");
    require_positive(out_features, "Linear", "out_features");
    // kaiming_uniform_(a=sqrt(5)), all in Python doubles (torch-rng.md §4).
    const double a = std::sqrt(5.0);
    const double gain = std::sqrt(2.0 / (1.0 + a * a));
    const double bound = std::sqrt(3.0) * (gain / std::sqrt(static_cast<double>(in_features)));
    weight = Tensor::empty({out_features, in_features});
    fill_uniform(weight, -bound, bound, gen);
    weight = as_parameter(weight);
    if (with_bias) {
        const double b = 1.0 / std::sqrt(static_cast<double>(in_features));
        Tensor t = Tensor::empty({out_features});
        fill_uniform(t, -b, b, gen);
        bias = as_parameter(t);
    }
}

namespace {

// y = x W^T (+ b) over every row of x, in one kernel call that reads W^T in place: PyTorch's order (the
// running sum of the product first, the bias added after it, torch-numerics §3), or with each term fused
// (`fused`: gemm_fused, the fast path's projections where the CPU has FMA).
Tensor linear_rows(const Tensor& x, const Tensor& w, const Tensor* bias, bool fused) {
    check_float_storage(x, "linear");
    check_float_storage(w, "linear");
    if (bias) check_float_storage(*bias, "linear");
    if (w.dim() != 2)
        throw Error("linear: weight must be 2-D [out_features, in_features], got shape " + shape_str(w.shape()));
    const int64_t out_features = w.size(0), in_features = w.size(1);
    if (bias && (bias->dim() != 1 || bias->size(0) != out_features))
        throw Error("linear: bias must have shape [" + std::to_string(out_features) + "], got " +
                    shape_str(bias->shape()));
    if (x.dim() < 1)
        throw Error("both arguments to linear need to be at least 1D, but they are 0D and 2D");
    if (x.size(-1) != in_features) {  // PyTorch's words: its matmul sees the rows of x and W^T
        const int64_t rows = shape_numel(Shape(x.shape().begin(), x.shape().end() - 1));
        throw Error("mat1 and mat2 shapes cannot be multiplied (" + std::to_string(rows) + "x" +
                    std::to_string(x.size(-1)) + " and " + std::to_string(in_features) + "x" +
                    std::to_string(out_features) + ")");
    }
    const Tensor rows = x.contiguous();
    Shape shape = x.shape();
    shape.back() = out_features;
    check_shape(shape, "Linear");
    Tensor y = Tensor::empty(shape);
    const std::optional<Tensor> b = bias ? std::optional<Tensor>(bias->contiguous()) : std::nullopt;
    const int64_t M = x.numel() / std::max<int64_t>(in_features, 1);
    const auto& kernel = kernels::active();  // W[j][k] at j·stride(0) + k·stride(1)
    (fused && kernel.gemm_fused ? kernel.gemm_fused : kernel.gemm)(
        rows.data(), in_features, w.storage().data() + w.storage_offset(), w.strides()[1], w.strides()[0],
        b ? b->data() : nullptr, y.data(), out_features, M, out_features, in_features);
    const char* grad_fn;
    if (bias) grad_fn = x.dim() == 2 ? "AddmmBackward0" : x.dim() == 1 ? "AddBackward0" : "ViewBackward0";
    else grad_fn = x.dim() == 2 ? "MmBackward0" : x.dim() == 1 ? "SqueezeBackward3" : "UnsafeViewBackward0";
    return bias ? y.record(grad_fn, {&x, &w, bias}) : y.record(grad_fn, {&x, &w});
}

Tensor linear(const Linear& layer, const Tensor& x, bool fused) {
    return linear_rows(x, layer.weight, layer.bias ? &*layer.bias : nullptr, fused);
}

}  // namespace

Tensor linear(const Tensor& x, const Tensor& weight) { return linear_rows(x, weight, nullptr, false); }
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
    return linear_rows(x, weight, &bias, false);
}

Tensor Linear::forward(const Tensor& x) { return linear(*this, x, false); }

// ---------------------------------------------------------------- Dropout

Dropout::Dropout(double p_, Generator& gen) : p(p_), generator(&gen) { require_probability(p, "Dropout"); }

Tensor Dropout::forward(const Tensor& x) { return dropout(x, p, training, *generator); }

Tensor dropout(const Tensor& x, double p, bool training, Generator& gen) {
    require_probability(p, "Dropout");
    if (!training || p == 0.0 || x.numel() == 0) return x;
    if (p == 1.0) return mul(x, 0.0);
    // noise = bernoulli(1 - p) / (1 - p), then x * noise: two roundings, as ATen does.
    const float scale = 1.0f / static_cast<float>(1.0 - p);
    const std::vector<bool> keep = bernoulli_keep_mask(x.numel(), p, gen);
    std::vector<float> noise(keep.size());
    for (size_t i = 0; i < keep.size(); ++i) noise[i] = keep[i] ? scale : 0.0f;
    return mul(x, Tensor::from_vector(x.shape(), std::move(noise)));
}

// ---------------------------------------------------------------- SelfAttention_v1

SelfAttention_v1::SelfAttention_v1(int64_t d_in, int64_t d_out_, Generator& gen)
    : d_out(checked_d_out("SelfAttention_v1", d_in, d_out_)) {
    W_query = as_parameter(rand({d_in, d_out}, gen));
    W_key = as_parameter(rand({d_in, d_out}, gen));
    W_value = as_parameter(rand({d_in, d_out}, gen));
}

Tensor SelfAttention_v1::forward(const Tensor& x) {
    check_input(x, W_query.size(0), "SelfAttention_v1", 1, 3);
    const Tensor keys = matmul(x, W_key);
    const Tensor queries = matmul(x, W_query);
    const Tensor values = matmul(x, W_value);
    const Tensor scores = matmul(queries, keys.dim() == 1 ? keys : keys.transpose(-2, -1));  // omega
    const Tensor weights = softmax(scale_scores(scores, keys.size(-1)), -1);
    return matmul(weights, values);
}

// ---------------------------------------------------------------- SelfAttention_v2

SelfAttention_v2::SelfAttention_v2(int64_t d_in, int64_t d_out_, bool qkv_bias, Generator& gen)
    : d_out(checked_d_out("SelfAttention_v2", d_in, d_out_)),
      W_query(d_in, d_out_, qkv_bias, gen),
      W_key(d_in, d_out_, qkv_bias, gen),
      W_value(d_in, d_out_, qkv_bias, gen) {}

Tensor SelfAttention_v2::forward(const Tensor& x) {
    check_input(x, W_query.in_features, "SelfAttention_v2", 1, 3);
    const Tensor keys = W_key(x);
    const Tensor queries = W_query(x);
    const Tensor values = W_value(x);
    const Tensor scores = matmul(queries, keys.dim() == 1 ? keys : keys.transpose(-2, -1));
    const Tensor weights = softmax(scale_scores(scores, keys.size(-1)), -1);
    return matmul(weights, values);
}

// ---------------------------------------------------------------- CausalAttention

CausalAttention::CausalAttention(int64_t d_in, int64_t d_out_, int64_t context_length_, double p, bool qkv_bias,
                                 Generator& gen)
    : d_out(checked_d_out("CausalAttention", d_in, d_out_, context_length_, p)),
      context_length(context_length_),
      W_query(d_in, d_out_, qkv_bias, gen),
      W_key(d_in, d_out_, qkv_bias, gen),
      W_value(d_in, d_out_, qkv_bias, gen),
      dropout(p, gen),
      mask(causal_mask(context_length_)) {}

Tensor CausalAttention::forward(const Tensor& x) {
    check_input(x, W_query.in_features, "CausalAttention", 2, 3);
    check_tokens(x.size(-2), context_length, "CausalAttention");
    if (uses_fast_attention(attention_path, dropout, x.size(-2))) {
        const Tensor queries = linear(W_query, x, true), keys = linear(W_key, x, true);
        const Tensor values = linear(W_value, x, true);
        return causal_context(queries, keys, values, 1)
            .record(x.dim() > 2 ? "UnsafeViewBackward0" : "MmBackward0", {&queries, &keys, &values});
    }
    const Tensor keys = W_key(x);
    const Tensor queries = W_query(x);
    const Tensor values = W_value(x);
    Tensor scores = matmul(queries, keys.transpose(-2, -1));
    mask_future(scores, mask);
    Tensor weights = softmax(scale_scores(scores, keys.size(-1)), -1);
    weights = dropout(weights);
    return matmul(weights, values);
}

// ---------------------------------------------------------------- MultiHeadAttentionWrapper

MultiHeadAttentionWrapper::MultiHeadAttentionWrapper(int64_t d_in, int64_t d_out, int64_t context_length, double p,
                                                     int64_t num_heads, bool qkv_bias, Generator& gen) {
    checked_d_out("MultiHeadAttentionWrapper", d_in, d_out, context_length, p);
    require_positive(num_heads, "MultiHeadAttentionWrapper", "num_heads");
    // The heads' query weights stacked ([num_heads, d_out, d_in]) must make one valid tensor, as they do in
    // MultiHeadAttention's W_query; checked in 64 bits before num_heads is narrowed to WebAssembly's size_t.
    check_shape({num_heads, d_out, d_in}, "MultiHeadAttentionWrapper");
    heads.reserve(static_cast<size_t>(num_heads));
    for (int64_t h = 0; h < num_heads; ++h) heads.emplace_back(d_in, d_out, context_length, p, qkv_bias, gen);
}

Tensor MultiHeadAttentionWrapper::forward(const Tensor& x) {
    std::vector<Tensor> outputs;
    for (auto& head : heads) outputs.push_back(head(x));
    return cat(outputs, -1);
}

// ---------------------------------------------------------------- MultiHeadAttention

static int64_t checked_head_dim(int64_t d_in, int64_t d_out, int64_t context_length, double p, int64_t num_heads) {
    checked_d_out("MultiHeadAttention", d_in, d_out, context_length, p);
    require_positive(num_heads, "MultiHeadAttention", "num_heads");
    if (d_out % num_heads != 0)
        throw Error("MultiHeadAttention: d_out must be divisible by num_heads, got d_out = " + std::to_string(d_out) +
                    " and num_heads = " + std::to_string(num_heads));
    return d_out / num_heads;
}

MultiHeadAttention::MultiHeadAttention(int64_t d_in, int64_t d_out_, int64_t context_length_, double p,
                                       int64_t num_heads_, bool qkv_bias, Generator& gen)
    : d_out(d_out_),
      num_heads(num_heads_),
      head_dim(checked_head_dim(d_in, d_out_, context_length_, p, num_heads_)),
      context_length(context_length_),
      W_query(d_in, d_out_, qkv_bias, gen),
      W_key(d_in, d_out_, qkv_bias, gen),
      W_value(d_in, d_out_, qkv_bias, gen),
      out_proj(d_out_, d_out_, true, gen),
      dropout(p, gen),
      mask(causal_mask(context_length_)) {}

Tensor MultiHeadAttention::forward(const Tensor& input) {
    check_input(input, W_query.in_features, "MultiHeadAttention", 2, 3);
    const bool batched = input.dim() == 3;
    const Tensor x = batched ? input : input.view({1, input.size(0), input.size(1)});
    const int64_t b = x.size(0), num_tokens = x.size(1);
    check_tokens(num_tokens, context_length, "MultiHeadAttention");

    if (uses_fast_attention(attention_path, dropout, num_tokens)) {
        // The projections (fused where the CPU has FMA); the heads are read in place from [b, T, d_out] and
        // the context comes back merged, so the split, the transposes and the T×T weights never exist.
        const Tensor context = causal_context(linear(W_query, x, true), linear(W_key, x, true),
                                              linear(W_value, x, true), num_heads);
        const Tensor out = linear(out_proj, context, true);
        return batched ? out : out.view({num_tokens, d_out});
    }

    // Project once, then split the last dim into heads: [b, T, d_out] -> [b, heads, T, head_dim].
    const Tensor keys = W_key(x).view({b, num_tokens, num_heads, head_dim}).transpose(1, 2);
    const Tensor queries = W_query(x).view({b, num_tokens, num_heads, head_dim}).transpose(1, 2);
    const Tensor values = W_value(x).view({b, num_tokens, num_heads, head_dim}).transpose(1, 2);

    Tensor scores = matmul(queries, keys.transpose(2, 3));
    mask_future(scores, mask);
    Tensor weights = softmax(scale_scores(scores, keys.size(-1)), -1);
    weights = dropout(weights);

    // Merge the heads back: [b, heads, T, head_dim] -> [b, T, d_out].
    const Tensor context = matmul(weights, values).transpose(1, 2).contiguous().view({b, num_tokens, d_out});
    const Tensor out = out_proj(context);
    return batched ? out : out.view({num_tokens, d_out});
}

Tensor MultiHeadAttention::attention_weights(const Tensor& input, int64_t head, int64_t rows) {
    check_input(input, W_query.in_features, "attentionWeights", 2, 3);
    const bool batched = input.dim() == 3;
    const Tensor x = batched ? input : input.view({1, input.size(0), input.size(1)});
    const int64_t num_tokens = x.size(1);
    check_tokens(num_tokens, context_length, "attentionWeights");
    if (head < 0 || head >= num_heads)
        throw Error("attentionWeights: head must be in [0, " + std::to_string(num_heads - 1) + "], got " +
                    std::to_string(head));
    if (rows < 0 || rows > num_tokens)
        throw Error("attentionWeights: rows must be in [0, " + std::to_string(num_tokens) + "] (the number of tokens), got " +
                    std::to_string(rows));
    // Head h's columns of a projection: each element is the full projection's own running sum plus bias.
    auto head_of = [&](Linear& layer, const Tensor& in) {
        const Tensor w = layer.weight.slice(0, head * head_dim, (head + 1) * head_dim);
        Tensor y = matmul(in, w.T());
        return layer.bias ? add(y, layer.bias->slice(0, head * head_dim, (head + 1) * head_dim)) : y;
    };
    const Tensor queries = head_of(W_query, x.slice(1, 0, rows));  // [b, rows, head_dim]
    const Tensor keys = head_of(W_key, x);                         // [b, T, head_dim]
    Tensor scores = matmul(queries, keys.transpose(1, 2));         // [b, rows, T]
    scores.masked_fill_(mask.to_bool().slice(0, 0, rows).slice(1, 0, num_tokens), -INFINITY);
    const Tensor weights = softmax(scale_scores(scores, head_dim), -1);
    return batched ? weights : weights.view({rows, num_tokens});
}

}  // namespace attn::nn

// ---------------------------------------------------------------- parameters and submodules

namespace attn::nn {

void Module::train(bool mode) {
    training = mode;
    for (auto& [name, child] : named_children()) child->train(mode);
}

Module::NamedTensors Module::named_parameters() {
    NamedTensors out = own_parameters();
    for (auto& [prefix, child] : named_children())
        for (auto& [name, tensor] : child->named_parameters()) out.emplace_back(prefix + "." + name, tensor);
    return out;
}

Module::NamedModules Module::named_modules() {
    NamedModules out;
    for (auto& [prefix, child] : named_children()) {
        out.emplace_back(prefix, child);
        for (auto& [name, module] : child->named_modules()) out.emplace_back(prefix + "." + name, module);
    }
    return out;
}

namespace {
template <class Named>
std::vector<std::string> names_of(const Named& named) {
    std::vector<std::string> names;
    for (auto& entry : named) names.push_back(entry.first);
    return names;
}

// The entry called `name`, or an error listing what there is.
template <class Named>
auto& find_named(const Named& named, const std::string& name, const char* kind) {
    std::string known;
    for (auto& [n, item] : named) {
        if (n == name) return *item;
        known += (known.empty() ? "" : ", ") + n;
    }
    throw Error(std::string(kind) + ": no " + kind + " called '" + name + "'; this module has: " +
                (known.empty() ? std::string("none") : known));
}
}  // namespace

std::vector<std::string> Module::parameter_names() { return names_of(named_parameters()); }
std::vector<std::string> Module::module_names() { return names_of(named_modules()); }
Tensor& Module::parameter(const std::string& name) { return find_named(named_parameters(), name, "parameter"); }
Module& Module::submodule(const std::string& name) { return find_named(named_modules(), name, "submodule"); }

void Module::load_parameter(const std::string& name, const Tensor& value) {
    Tensor& target = parameter(name);
    if (value.shape() != target.shape())
        throw Error("parameter '" + name + "': expected shape " + shape_str(target.shape()) + ", got " +
                    shape_str(value.shape()));
    const bool requires_grad = target.requires_grad();
    target.copy_(value);
    target.set_parameter(true, requires_grad);  // still the same Parameter, like assigning to .data
}

Module::NamedTensors Linear::own_parameters() {
    NamedTensors out{{"weight", &weight}};
    if (bias) out.emplace_back("bias", &*bias);
    return out;
}

Module::NamedTensors SelfAttention_v1::own_parameters() {
    return {{"W_query", &W_query}, {"W_key", &W_key}, {"W_value", &W_value}};
}

Module::NamedModules SelfAttention_v2::named_children() {
    return {{"W_query", &W_query}, {"W_key", &W_key}, {"W_value", &W_value}};
}

Module::NamedModules CausalAttention::named_children() {
    return {{"W_query", &W_query}, {"W_key", &W_key}, {"W_value", &W_value}, {"dropout", &dropout}};
}

Module::NamedModules MultiHeadAttentionWrapper::named_children() {
    NamedModules out;
    for (size_t i = 0; i < heads.size(); ++i) out.emplace_back("heads." + std::to_string(i), &heads[i]);
    return out;
}

Module::NamedModules MultiHeadAttention::named_children() {
    return {{"W_query", &W_query}, {"W_key", &W_key}, {"W_value", &W_value}, {"out_proj", &out_proj},
            {"dropout", &dropout}};
}

}  // namespace attn::nn
