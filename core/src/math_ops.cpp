// Reductions, element-wise math and batched products beyond the chapter's, with PyTorch 1.13's CPU order
// where it is known (mean is sum / n, var and std accumulate in double, cumsum runs in double, bmm is
// matmul's running sum) and its messages.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <string>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "kernels/kernels.hpp"
#include "strided.hpp"

namespace attn {

namespace {

// Which dims a reduction over `dims` removes (an empty list: all of them), each checked once.
std::vector<bool> reduced_dims(const Tensor& t, const Shape& dims) {
    std::vector<bool> reduced(static_cast<size_t>(t.dim()), dims.empty());
    for (int64_t dim : dims) {
        const int64_t d = wrap_dim(dim, t.dim());
        if (t.dim() == 0) continue;
        if (reduced[static_cast<size_t>(d)])
            throw Error("dim " + std::to_string(d) + " appears multiple times in the list of dims");
        reduced[static_cast<size_t>(d)] = true;
    }
    return reduced;
}

// The result shape of a reduction: reduced dims dropped, or kept as 1.
Shape reduced_shape(const Tensor& t, const std::vector<bool>& reduced, bool keepdim) {
    Shape out;
    for (size_t i = 0; i < reduced.size(); ++i) {
        if (!reduced[i]) out.push_back(t.shape()[i]);
        else if (keepdim) out.push_back(1);
    }
    return out;
}

// t as a contiguous [kept, reduced] matrix: the kept dims first (row-major), the reduced ones after.
Tensor as_rows(const Tensor& t, const std::vector<bool>& reduced) {
    std::vector<int64_t> order;
    int64_t kept = 1, gone = 1;
    for (size_t i = 0; i < reduced.size(); ++i)
        if (!reduced[i]) order.push_back(int64_t(i)), kept *= t.shape()[i];
    for (size_t i = 0; i < reduced.size(); ++i)
        if (reduced[i]) order.push_back(int64_t(i)), gone *= t.shape()[i];
    return t.permute(order).contiguous().reshape({kept, gone});
}

// A reduction of each row of as_rows(t) by `f` (which sees the row's values and length).
template <class F>
Tensor reduce_rows(const Tensor& t, const Shape& dims, bool keepdim, F&& f) {
    const std::vector<bool> reduced = reduced_dims(t, dims);
    const Tensor rows = as_rows(t, reduced);
    const int64_t n = rows.size(1);
    std::vector<float> out(static_cast<size_t>(rows.size(0)));
    for (size_t r = 0; r < out.size(); ++r) out[r] = f(rows.data() + int64_t(r) * n, n);
    return Tensor::from_vector(reduced_shape(t, reduced, keepdim), std::move(out));
}

template <class F>
Tensor map(const Tensor& t, const char* grad_fn, F&& f) {
    std::vector<float> v = t.to_vector();
    for (float& x : v) x = f(x);
    return Tensor::from_vector(t.shape(), std::move(v)).record(grad_fn, {&t});
}

// Ops PyTorch refuses for a bool tensor, in its words; and those whose bool result would be int64, which
// the core does not have.
void refuse_bool(const Tensor& t, const std::string& message) {
    if (t.dtype() == DType::Bool) throw Error(message);
}
// PyTorch's name of a dtype in its kernels' messages ("Got: Long").
const char* scalar_type_name(DType d) {
    switch (d) {
        case DType::Bool: return "Bool";
        case DType::Int32: return "Int";
        case DType::Int64: return "Long";
        case DType::Float32: return "Float";
        case DType::Float64: return "Double";
    }
    return "?";
}
// mean, var and std take floating dtypes only.
void refuse_integral(const Tensor& t, const std::string& message) {
    if (!is_floating(t.dtype())) throw Error(message);
}
void refuse_int64_result(const Tensor& t, const char* op) {
    refuse_bool(t, std::string(op) + "() of a bool tensor is an int64 tensor in PyTorch, and this core has float32 "
                    "and bool tensors only: use .float() first");
}

}  // namespace

// ---------------------------------------------------------------- sums and means

Tensor sum_dims(const Tensor& t, const Shape& dims, bool keepdim) {
    const std::vector<bool> reduced = reduced_dims(t, dims);
    const int64_t count = std::count(reduced.begin(), reduced.end(), true);
    if (count == 1 && !dims.empty()) return sum(t, dims[0], keepdim);
    Tensor out;
    if (count == t.dim()) {
        out = sum(t);  // every dim: sum's memory-order reduction
    } else {
        // Neighbouring dims of one kind merge into one, as PyTorch's iterator merges them: when the reduced
        // dims make one run, that is sum over one dim, with its order; otherwise one row per kept position.
        Shape merged;
        std::vector<bool> merged_reduced;
        for (size_t i = 0; i < reduced.size(); ++i) {
            if (!merged.empty() && merged_reduced.back() == reduced[i]) merged.back() *= t.shape()[i];
            else merged.push_back(t.shape()[i]), merged_reduced.push_back(reduced[i]);
        }
        const int64_t runs = std::count(merged_reduced.begin(), merged_reduced.end(), true);
        const int64_t run = std::find(merged_reduced.begin(), merged_reduced.end(), true) - merged_reduced.begin();
        out = runs == 1 ? sum(t.contiguous().view(merged), run) : sum(as_rows(t, reduced), 1);
    }
    return out.reshape(reduced_shape(t, reduced, keepdim)).record("SumBackward1", {&t});
}

Tensor mean(const Tensor& t) {
    refuse_integral(t, std::string("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                       "complex dtype. Got: ") + scalar_type_name(t.dtype()));
    return div(sum(t), double(t.numel())).record("MeanBackward0", {&t});
}

Tensor mean_dims(const Tensor& t, const Shape& dims, bool keepdim) {
    refuse_integral(t, std::string("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                       "complex dtype. Got: ") + scalar_type_name(t.dtype()));
    const std::vector<bool> reduced = reduced_dims(t, dims);
    int64_t n = 1;
    for (size_t i = 0; i < reduced.size(); ++i)
        if (reduced[i]) n *= t.shape()[i];
    // As PyTorch's CPU mean: the sum, then divided by the count.
    return div(sum_dims(t, dims, keepdim), double(n)).record("MeanBackward1", {&t});
}

// ---------------------------------------------------------------- var and std

namespace {

Tensor var_or_std(const Tensor& t, const Shape& dims, double correction, bool keepdim, bool take_sqrt) {
    refuse_integral(t, "std and var only support floating point and complex dtypes");
    const std::vector<bool> reduced = reduced_dims(t, dims);
    const char* grad_fn = take_sqrt ? "StdBackward0" : "VarBackward0";
    const auto finish = [&](double m2, double n) {
        const double var = m2 / std::max(0.0, n - correction);
        return static_cast<float>(take_sqrt ? std::sqrt(var) : var);
    };
    if (std::count(reduced.begin(), reduced.end(), true) == t.dim()) {
        // Every dim: PyTorch's two passes, the float32 mean then the squared deviations summed in double.
        const double m = mean(t).item();
        double m2 = 0;
        for (float x : t.to_vector()) m2 += (double(x) - m) * (double(x) - m);
        const float value = finish(m2, double(t.numel()));
        return Tensor::full(reduced_shape(t, reduced, keepdim), value).record(grad_fn, {&t});
    }
    // Along dims: Welford's running mean and sum of squares in double, as PyTorch's WelfordOps.
    return reduce_rows(t, dims, keepdim, [&](const float* x, int64_t n) {
        double mean_acc = 0, m2 = 0;
        for (int64_t i = 0; i < n; ++i) {
            const double delta = x[i] - mean_acc;
            mean_acc += delta / double(i + 1);
            m2 += delta * (x[i] - mean_acc);
        }
        return finish(m2, double(n));
    }).record(grad_fn, {&t});
}

}  // namespace

Tensor var(const Tensor& t, const Shape& dims, double correction, bool keepdim) {
    return var_or_std(t, dims, correction, keepdim, false);
}
Tensor std_dev(const Tensor& t, const Shape& dims, double correction, bool keepdim) {
    return var_or_std(t, dims, correction, keepdim, true);
}

// ---------------------------------------------------------------- max, min, prod, cumsum

namespace {

// The larger (or smaller) of two values; NaN wins, as in PyTorch.
float pick(float a, float b, bool largest) {
    if (std::isnan(a) || std::isnan(b)) return NAN;
    return largest ? std::max(a, b) : std::min(a, b);
}

Tensor extreme(const Tensor& t, const Shape& dims, bool keepdim, bool largest, const char* op,
               const char* grad_fn) {
    const std::vector<bool> reduced = reduced_dims(t, dims);
    if (t.numel() == 0) {
        for (size_t i = 0; i < reduced.size(); ++i)
            if (reduced[i] && !dims.empty() && t.shape()[i] == 0)
                throw Error(std::string(op) + "(): Expected reduction dim " + std::to_string(i) +
                            " to have non-zero size.");
        if (dims.empty())
            throw Error(std::string(op) + "(): Expected reduction dim to be specified for input.numel() == 0. "
                        "Specify the reduction dim with the 'dim' argument.");
    }
    Tensor out = reduce_rows(t, dims, keepdim, [&](const float* x, int64_t n) {
        float m = x[0];
        for (int64_t i = 1; i < n; ++i) m = pick(m, x[i], largest);
        return m;
    });
    if (t.dtype() == DType::Bool) out = out.to_bool();
    return out.record(grad_fn, {&t});
}

}  // namespace

// int64 and float64 values go through max/min along the one dim of the flattened tensor (reductions.cpp).
Tensor max(const Tensor& t) {
    if (is_wide(t.dtype()) && t.numel() > 0) return max(t.reshape({t.numel()}), 0).values.record("MaxBackward1", {&t});
    return extreme(t, {}, false, true, "max", "MaxBackward1");
}
Tensor min(const Tensor& t) {
    if (is_wide(t.dtype()) && t.numel() > 0) return min(t.reshape({t.numel()}), 0).values.record("MinBackward1", {&t});
    return extreme(t, {}, false, false, "min", "MinBackward1");
}
Tensor amax(const Tensor& t, const Shape& dims, bool keepdim) {
    return extreme(t, dims, keepdim, true, "amax", "AmaxBackward0");
}
Tensor amin(const Tensor& t, const Shape& dims, bool keepdim) {
    return extreme(t, dims, keepdim, false, "amin", "AminBackward0");
}

Tensor prod(const Tensor& t) {
    refuse_int64_result(t, "prod");
    float p = 1.0f;
    for (float x : t.to_vector()) p *= x;
    return Tensor::full({}, p).record("ProdBackward0", {&t});
}

Tensor prod(const Tensor& t, int64_t dim, bool keepdim) {
    refuse_int64_result(t, "prod");
    return reduce_rows(t, {dim}, keepdim, [](const float* x, int64_t n) {
        float p = 1.0f;
        for (int64_t i = 0; i < n; ++i) p *= x[i];
        return p;
    }).record("ProdBackward1", {&t});
}

Tensor cumsum(const Tensor& t, int64_t dim) {
    refuse_int64_result(t, "cumsum");
    const int64_t d = wrap_dim(dim, t.dim());
    Tensor out = t.clone();
    if (t.dim() == 0) return out.record("CumsumBackward0", {&t});
    // Each line along d: a running sum in double (PyTorch's CPU accumulator for float), rounded per element.
    const Tensor moved = movedim(out, d, -1).contiguous();
    std::vector<float> v = moved.to_vector();
    const int64_t n = t.size(d);
    for (size_t start = 0; n > 0 && start < v.size(); start += size_t(n)) {
        double acc = 0;
        for (int64_t i = 0; i < n; ++i) v[start + size_t(i)] = static_cast<float>(acc += v[start + size_t(i)]);
    }
    Tensor result = movedim(Tensor::from_vector(moved.shape(), std::move(v)), -1, d).contiguous();
    return Tensor::from_vector(t.shape(), result.to_vector()).record("CumsumBackward0", {&t});
}

// ---------------------------------------------------------------- element-wise

Tensor abs(const Tensor& t) {
    refuse_bool(t, "\"abs_cpu\" not implemented for 'Bool'");
    return map(t, "AbsBackward0", [](float x) { return std::fabs(x); });
}
Tensor log(const Tensor& t) { return map(t, "LogBackward0", [](float x) { return std::log(x); }); }
Tensor sqrt(const Tensor& t) { return map(t, "SqrtBackward0", [](float x) { return std::sqrt(x); }); }
Tensor rsqrt(const Tensor& t) { return map(t, "RsqrtBackward0", [](float x) { return 1.0f / std::sqrt(x); }); }

Tensor clamp(const Tensor& t, double min, double max) {
    if (std::isnan(min) && std::isnan(max)) throw Error("torch.clamp: At least one of 'min' or 'max' must not be None");
    refuse_int64_result(t, "clamp");
    const float lo = static_cast<float>(min), hi = static_cast<float>(max);
    const bool has_lo = !std::isnan(min), has_hi = !std::isnan(max);
    return map(t, "ClampBackward1", [=](float x) {
        if (std::isnan(x)) return x;
        if (has_lo) x = std::max(x, lo);
        if (has_hi) x = std::min(x, hi);  // as PyTorch: min > max gives max
        return x;
    });
}

Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
    if (condition.dtype() != DType::Bool)
        throw Error("where expected condition to be a boolean tensor, but got a tensor with dtype Float");
    const Shape ab = broadcast_shapes(a.shape(), b.shape(), "where");
    const Shape shape = broadcast_shapes(condition.shape(), ab, "where");
    check_shape(shape, "where");
    const std::vector<float> c = detail::broadcast_values(condition, shape), va = detail::broadcast_values(a, shape),
                             vb = detail::broadcast_values(b, shape);
    std::vector<float> out(c.size());
    for (size_t i = 0; i < c.size(); ++i) out[i] = c[i] != 0.0f ? va[i] : vb[i];
    const DType dtype = a.dtype() == DType::Bool && b.dtype() == DType::Bool ? DType::Bool : DType::Float32;
    return Tensor::from_vector(shape, std::move(out), dtype).record("WhereBackward0", {&a, &b});
}

Tensor isclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), "isclose");
    const std::vector<float> va = detail::broadcast_values(a, shape), vb = detail::broadcast_values(b, shape);
    std::vector<float> out(va.size());
    for (size_t i = 0; i < va.size(); ++i)
        out[i] = allclose(Tensor::full({}, va[i]), Tensor::full({}, vb[i]), rtol, atol) ? 1.0f : 0.0f;
    return Tensor::from_vector(shape, std::move(out), DType::Bool);
}

bool equal(const Tensor& a, const Tensor& b) { return a.shape() == b.shape() && a.to_vector() == b.to_vector(); }

namespace {

// The sum of exp(x - m) over a contiguous row, in ATen's order for the last dim: fewer than 8 values left to
// right; else 8 lanes (lane l sums x[l], x[l + 8], ..., the tail's values added to the first lanes), then the
// lanes pairwise as AVX2's reduction does: (l + l+4), then (+2), then (+1).
float lastdim_exp_sum(const float* x, int64_t n, float m) {
    if (n < 8) {
        float s = 0.0f;
        for (int64_t i = 0; i < n; ++i) s += kernels::exp_ref(x[i] - m);
        return s;
    }
    float lane[8];
    for (int l = 0; l < 8; ++l) lane[l] = kernels::exp_ref(x[l] - m);
    for (int64_t i = 8; i < n; ++i) lane[i % 8] += kernels::exp_ref(x[i] - m);
    for (int l = 0; l < 4; ++l) lane[l] += lane[l + 4];
    for (int l = 0; l < 2; ++l) lane[l] += lane[l + 2];
    return lane[0] + lane[1];
}

// The same sum down a column (stride `inner`), left to right; ATen's vector blocks use its exp, the rest libm's.
float column_exp_sum(const float* x, int64_t n, int64_t inner, float m, bool vectorised) {
    float s = 0.0f;
    for (int64_t i = 0; i < n; ++i) {
        const float diff = x[i * inner] - m;
        s += vectorised ? kernels::exp_ref(diff) : std::exp(diff);
    }
    return s;
}

}  // namespace

Tensor log_softmax(const Tensor& t, int64_t dim) {
    refuse_bool(t, "\"softmax_kernel_impl\" not implemented for 'Bool'");
    const int64_t d = wrap_dim(dim, t.dim());
    if (t.dim() == 0) return Tensor::full({}, 0.0f).record("LogSoftmaxBackward0", {&t});
    // x - max - log(sum of exp(x - max)) along d, as ATen's kernels: along the last dim every exp is its
    // vectorised one (exp_ref's bits), summed in lanes; along another, the inner positions go in chunks, and
    // those past the last full vector of 8 in a chunk use libm's expf.
    const Tensor c = t.contiguous();
    std::vector<float> v = c.to_vector();
    const int64_t n = t.size(d);
    int64_t outer = 1, inner = 1;
    for (int64_t i = 0; i < d; ++i) outer *= t.size(i);
    for (int64_t i = d + 1; i < t.dim(); ++i) inner *= t.size(i);
    const int64_t chunk = n == 0 ? 8 : std::max<int64_t>(128 * 1024 / n / 4, 8) / 8 * 8;
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t j = 0; j < inner; ++j) {
            const int64_t start = j / chunk * chunk, loop = std::min(chunk, inner - start);
            const bool vectorised = j - start < loop - loop % 8;
            float* x = v.data() + o * n * inner + j;
            float m = -INFINITY;
            for (int64_t i = 0; i < n; ++i) m = pick(m, x[i * inner], true);
            const float sum = inner == 1 ? lastdim_exp_sum(x, n, m) : column_exp_sum(x, n, inner, m, vectorised);
            const float log_sum = std::log(sum);
            for (int64_t i = 0; i < n; ++i) x[i * inner] = x[i * inner] - m - log_sum;
        }
    return Tensor::from_vector(t.shape(), std::move(v)).record("LogSoftmaxBackward0", {&t});
}

// ---------------------------------------------------------------- batched products

namespace {

void check_bmm(const Tensor& a, const Tensor& b) {
    refuse_bool(a, "\"bmm\" not implemented for 'Bool'");
    if (a.dim() != 3) throw Error("batch1 must be a 3D tensor");
    if (b.dim() != 3) throw Error("batch2 must be a 3D tensor");
    if (b.size(0) != a.size(0) || b.size(1) != a.size(2))
        throw Error("Expected size for first two dimensions of batch2 tensor to be: [" + std::to_string(a.size(0)) +
                    ", " + std::to_string(a.size(2)) + "] but got: [" + std::to_string(b.size(0)) + ", " +
                    std::to_string(b.size(1)) + "].");
}

}  // namespace

Tensor bmm(const Tensor& a, const Tensor& b) {
    check_bmm(a, b);
    return matmul(a, b).record("BmmBackward0", {&a, &b});  // each entry: matmul's running sum from +0
}

Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta, double alpha) {
    check_bmm(a, b);
    const int64_t batches = a.size(0), M = a.size(1), K = a.size(2), N = b.size(2);
    const Shape shape{batches, M, N};
    std::vector<float> c = expand(input, shape).contiguous().to_vector();
    std::vector<float> va = a.contiguous().to_vector();
    const std::vector<float> vb = b.contiguous().to_vector();
    // PyTorch's CPU baddbmm is netlib sgemm on the transposed problem (C^T = B^T·A^T), whose loop scales its
    // B, our batch1: C = beta * C (0 when beta is 0, input unread; 1 leaves it), then for k = 0, 1, …
    // C += (alpha * a_ik) * b_kj, each product and sum rounded to float32: the GEMM kernel's running sums
    // carried on from C (gemm_accumulate; reference.cpp has the scalar loop).
    const float be = static_cast<float>(beta), al = static_cast<float>(alpha);
    if (be != 1.0f)
        for (float& v : c) v = be == 0.0f ? 0.0f : be * v;
    if (al != 1.0f)
        for (float& v : va) v = al * v;
    const auto& kernel = kernels::active();
    for (int64_t n = 0; n < batches; ++n)
        kernel.gemm_accumulate(va.data() + n * M * K, K, vb.data() + n * K * N, N, 1, c.data() + n * M * N, N, M, N, K);
    return Tensor::from_vector(shape, std::move(c)).record("BaddbmmBackward0", {&input, &a, &b});
}

// ---------------------------------------------------------------- einsum

namespace {

// One operand's subscripts, checked against its dims.
std::string subscripts_of(const std::string& text, const Tensor& t, size_t index) {
    for (char c : text)
        if (!std::isalpha(static_cast<unsigned char>(c)))
            throw Error(c == '.' ? "einsum(): ellipsis (...) is not available in this core"
                                 : std::string("einsum(): invalid subscript given at index ") +
                                       std::to_string(index) + " in the equation string, subscripts must be in "
                                       "[a-zA-Z]");
    if (static_cast<int64_t>(text.size()) != t.dim())
        throw Error("einsum(): the number of subscripts in the equation (" + std::to_string(text.size()) +
                    ") does not match the number of dimensions (" + std::to_string(t.dim()) + ") for operand " +
                    std::to_string(index) + " and no ellipsis was given");
    for (size_t i = 0; i < text.size(); ++i)
        if (text.find(text[i], i + 1) != std::string::npos)
            throw Error(std::string("einsum(): subscript ") + text[i] + " repeats in operand " +
                        std::to_string(index) + ": diagonals are not available in this core");
    return text;
}

// Sums t over the letters of `have` that are not in `keep`; returns the remaining letters.
Tensor sum_out(const Tensor& t, std::string& have, const std::string& keep) {
    Shape dims;
    std::string left;
    for (size_t i = 0; i < have.size(); ++i) {
        if (keep.find(have[i]) == std::string::npos) dims.push_back(int64_t(i));
        else left += have[i];
    }
    have = left;
    return dims.empty() ? t : sum_dims(t, dims, false);
}

// t's dims in the order of `order` (a permutation of `have`).
Tensor arrange(const Tensor& t, const std::string& have, const std::string& order) {
    std::vector<int64_t> perm;
    for (char c : order) perm.push_back(int64_t(have.find(c)));
    return t.permute(perm);
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
    std::string eq;
    for (char c : equation)
        if (c != ' ') eq += c;
    const size_t arrow = eq.find("->");
    const std::string lhs = eq.substr(0, arrow);
    std::vector<std::string> inputs;
    for (size_t start = 0;;) {
        const size_t comma = lhs.find(',', start);
        inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (inputs.size() > operands.size())
        throw Error("einsum(): fewer operands were provided than specified in the equation");
    if (inputs.size() < operands.size())
        throw Error("einsum(): more operands were provided than specified in the equation");
    if (operands.size() > 2) throw Error("einsum(): more than two operands are not available in this core");
    std::map<char, int64_t> size_of, count;
    for (size_t k = 0; k < inputs.size(); ++k) {
        subscripts_of(inputs[k], operands[k], k);
        for (size_t i = 0; i < inputs[k].size(); ++i) {
            const char c = inputs[k][i];
            const int64_t s = operands[k].size(int64_t(i));
            if (size_of.count(c) && size_of[c] != s && size_of[c] != 1 && s != 1)
                throw Error(std::string("einsum(): subscript ") + c + " has size " + std::to_string(s) +
                            " for operand " + std::to_string(k) +
                            " which does not broadcast with previously seen size " + std::to_string(size_of[c]));
            if (!size_of.count(c) || size_of[c] == 1) size_of[c] = s;
            ++count[c];
        }
    }
    std::string out;
    if (arrow == std::string::npos) {  // implicit output: the letters seen once, in alphabetical order
        for (const auto& [c, n] : count)
            if (n == 1) out += c;
    } else {
        out = eq.substr(arrow + 2);
        for (size_t i = 0; i < out.size(); ++i) {
            if (!std::isalpha(static_cast<unsigned char>(out[i])))
                throw Error("einsum(): invalid subscript given at index " + std::to_string(lhs.size() + 2 + i) +
                            " in the equation string, subscripts must be in [a-zA-Z]");
            if (!count.count(out[i]))
                throw Error(std::string("einsum(): output subscript ") + out[i] +
                            " does not appear in the equation for any input operand");
            if (out.find(out[i], i + 1) != std::string::npos)
                throw Error(std::string("einsum(): output subscript ") + out[i] + " appears more than once in the output");
        }
    }

    if (operands.size() == 1) {
        std::string have = inputs[0];
        const Tensor summed = sum_out(operands[0], have, out);
        return arrange(summed, have, out);
    }

    // Two operands, as PyTorch lowers them: letters only one side has and the output lacks are summed first;
    // then batch letters (both sides, kept), the left's and the right's own, and the contracted ones (both
    // sides, summed, in alphabetical order) make one bmm of [batch, left, sum] and [batch, sum, right].
    std::string a_have = inputs[0], b_have = inputs[1];
    const Tensor a = sum_out(operands[0], a_have, out + b_have);
    const Tensor b = sum_out(operands[1], b_have, out + a_have);
    std::string batch, left, right, contracted;
    for (const auto& [c, n] : count) {
        const bool in_a = a_have.find(c) != std::string::npos, in_b = b_have.find(c) != std::string::npos;
        const bool kept = out.find(c) != std::string::npos;
        if (in_a && in_b) (kept ? batch : contracted) += c;
        else if (in_a) left += c;
        else if (in_b) right += c;
    }
    // Output letters in the output's order within each group, so the final permute is as small as can be.
    auto ordered = [&](const std::string& group) {
        std::string s;
        for (char c : out)
            if (group.find(c) != std::string::npos) s += c;
        return s;
    };
    batch = ordered(batch), left = ordered(left), right = ordered(right);
    auto sizes = [&](const std::string& letters) {
        int64_t n = 1;
        for (char c : letters) n *= size_of[c];
        return n;
    };
    auto expanded = [&](const Tensor& t, const std::string& have, const std::string& order) {
        Shape shape;
        for (char c : order) shape.push_back(size_of[c]);
        return expand(arrange(t, have, order), shape);
    };
    const Tensor A = expanded(a, a_have, batch + left + contracted)
                         .reshape({sizes(batch), sizes(left), sizes(contracted)});
    const Tensor B = expanded(b, b_have, batch + contracted + right)
                         .reshape({sizes(batch), sizes(contracted), sizes(right)});
    Shape result_shape;
    for (char c : batch + left + right) result_shape.push_back(size_of[c]);
    const Tensor product = bmm(A, B).view(result_shape);
    return arrange(product, batch + left + right, out);
}

}  // namespace attn
