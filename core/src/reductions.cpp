// sum and softmax in ATen's exact order (torch-numerics.md §1 and §2).
#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "kernels/kernels.hpp"

namespace attn {

namespace {

// ---------------------------------------------------------------- §1.1 building blocks
// Each reads m values y[0], y[stride], y[2*stride], ...

int bit_length(uint64_t v) {
    int n = 0;
    while (v) {
        ++n;
        v >>= 1;
    }
    return n;
}

// Four-level cascade over blocks of B = 2^P values (ATen's multi-level accumulator).
float cascade(const float* y, int64_t stride, int64_t m) {
    const int L = m <= 2 ? 1 : bit_length(static_cast<uint64_t>(m - 1));
    const int64_t B = int64_t{1} << std::max(4, L / 4);
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    int64_t i = 0;
    while (m - i >= B) {
        for (int64_t k = 0; k < B; ++k) a0 += y[(i + k) * stride];
        i += B;
        a1 += a0;
        a0 = 0.0f;
        if (i % (B * B) == 0) {
            a2 += a1;
            a1 = 0.0f;
        }
        if (i % (B * B * B) == 0) {
            a3 += a2;
            a2 = 0.0f;
        }
    }
    for (; i < m; ++i) a0 += y[i * stride];
    return ((a0 + a1) + a2) + a3;
}

// Four interleaved cascades (elements k, k+4, k+8, ...), the leftovers added to the first.
float ilp4(const float* y, int64_t stride, int64_t m) {
    const int64_t q = m / 4;
    float a[4];
    for (int k = 0; k < 4; ++k) a[k] = cascade(y + k * stride, 4 * stride, q);
    for (int64_t i = 4 * q; i < m; ++i) a[0] += y[i * stride];
    return ((a[0] + a[1]) + a[2]) + a[3];
}

// A contiguous row: eight vector lanes, each an ILP4 over its strided elements; tail first, then lanes.
float inner(const float* x, int64_t n) {
    if (n < 8) return ilp4(x, 1, n);
    const int64_t V = n / 8;
    float t = 0.0f;
    for (int64_t i = 8 * V; i < n; ++i) t += x[i];
    for (int l = 0; l < 8; ++l) t += ilp4(x + l, 8, V);
    return t;
}

// Puts the dims of a strided tensor in memory order (largest stride first), so that a reduction can
// walk memory as ATen's TensorIterator does. Returns the permutation applied.
std::vector<int64_t> memory_order(const Tensor& t) {
    std::vector<int64_t> perm(static_cast<size_t>(t.dim()));
    std::iota(perm.begin(), perm.end(), 0);
    std::stable_sort(perm.begin(), perm.end(),
                     [&](int64_t a, int64_t b) { return t.strides()[size_t(a)] > t.strides()[size_t(b)]; });
    return perm;
}

int64_t wrap(int64_t dim, int64_t rank, const char* op) {
    (void)op;  // PyTorch's message names no operation
    return wrap_dim(dim, rank);
}

// Sum over dim d of a contiguous tensor, keepdim shape (§1.2).
Tensor sum_dim_contiguous(const Tensor& t, int64_t d) {
    const Shape& s = t.shape();
    int64_t outer = 1, inner_size = 1;
    for (int64_t i = 0; i < d; ++i) outer *= s[size_t(i)];
    for (size_t i = size_t(d) + 1; i < s.size(); ++i) inner_size *= s[i];
    const int64_t n = s[size_t(d)];
    Shape out_shape = s;
    out_shape[size_t(d)] = 1;
    Tensor out = Tensor::empty(out_shape);
    const float* x = t.data();
    float* y = out.data();
    for (int64_t o = 0; o < outer; ++o) {
        const float* block = x + o * n * inner_size;
        if (inner_size == 1) {
            y[o] = 0.0f + inner(block, n);
            continue;
        }
        // Columns in the vectorised part of ATen's outer reduction use one cascade; the rest use ILP4.
        const int64_t cascade_cols = inner_size >= 8 ? 32 * (inner_size / 32) : 4 * (inner_size / 4);
        for (int64_t j = 0; j < inner_size; ++j) {
            const float v = j < cascade_cols ? cascade(block + j, inner_size, n) : ilp4(block + j, inner_size, n);
            y[o * inner_size + j] = 0.0f + v;
        }
    }
    return out;
}

Shape drop_dim(Shape s, int64_t d) {
    s.erase(s.begin() + d);
    return s;
}

// The values of t as rows along dim d: [outer * inner rows][n values], with the shape left when d goes.
struct Rows {
    std::vector<double> values;  // row-major over (the other dims..., d)
    int64_t count = 1, length = 1;
    Shape kept_shape;  // t's shape with d dropped
};
Rows rows_along(const Tensor& t, int64_t d) {
    std::vector<int64_t> perm;
    for (int64_t i = 0; i < t.dim(); ++i)
        if (i != d) perm.push_back(i);
    perm.push_back(d);
    Rows rows;
    rows.values = t.permute(perm).to_doubles();
    rows.length = t.dim() == 0 ? 1 : t.shape()[size_t(d)];
    rows.kept_shape = t.dim() == 0 ? Shape{} : drop_dim(t.shape(), d);
    rows.count = shape_numel(rows.kept_shape);
    return rows;
}

// The dtype a sum gives: integers (bool included) sum to int64, as PyTorch.
DType sum_dtype(DType d) { return is_floating(d) ? d : DType::Int64; }

Shape with_dim(Shape s, int64_t d, bool keepdim) {
    if (keepdim && !s.empty()) s[size_t(d)] = 1;
    else if (!s.empty()) s.erase(s.begin() + d);
    return s;
}

// The first index of the best value of each row: larger (or smaller) than all before it, or the first NaN.
std::vector<double> best_indices(const Rows& rows, bool largest, std::vector<double>* values) {
    std::vector<double> indices(static_cast<size_t>(rows.count));
    if (values) values->resize(static_cast<size_t>(rows.count));
    for (int64_t r = 0; r < rows.count; ++r) {
        const double* row = rows.values.data() + r * rows.length;
        int64_t best = 0;
        for (int64_t i = 1; i < rows.length && !std::isnan(row[best]); ++i)
            if (std::isnan(row[i]) || (largest ? row[i] > row[best] : row[i] < row[best])) best = i;
        indices[size_t(r)] = static_cast<double>(best);
        if (values) (*values)[size_t(r)] = row[best];
    }
    return indices;
}

// argmax and argmin have no bool kernel in PyTorch.
void check_not_bool(const Tensor& t, const char* op) {
    if (t.dtype() == DType::Bool) throw Error("\"" + std::string(op) + "_cpu\" not implemented for 'Bool'");
}

Tensor arg_best(const Tensor& t, bool largest, const char* op) {
    check_not_bool(t, op);
    if (t.numel() == 0)
        throw Error(std::string(op) + "(): Expected reduction dim to be specified for input.numel() == 0.");
    const Tensor flat = t.reshape({t.numel()});
    return Tensor::from_doubles({}, best_indices(rows_along(flat, 0), largest, nullptr), DType::Int64, op);
}

Tensor arg_best(const Tensor& t, int64_t dim, bool keepdim, bool largest, const char* op) {
    check_not_bool(t, op);
    const int64_t d = wrap(dim, t.dim(), op);
    if (t.dim() > 0 && t.shape()[size_t(d)] == 0)
        throw Error(std::string(op) + "(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
    const Rows rows = rows_along(t, d);
    return Tensor::from_doubles(with_dim(t.shape(), d, keepdim), best_indices(rows, largest, nullptr), DType::Int64, op);
}

ValuesIndices best(const Tensor& t, int64_t dim, bool keepdim, bool largest, const char* op) {
    const int64_t d = wrap(dim, t.dim(), op);
    if (t.dim() > 0 && t.shape()[size_t(d)] == 0)
        throw Error(std::string(op) + "(): Expected reduction dim " + std::to_string(d) + " to have non-zero size.");
    std::vector<double> values;
    const std::vector<double> indices = best_indices(rows_along(t, d), largest, &values);
    const Shape shape = with_dim(t.shape(), d, keepdim);
    return {Tensor::from_doubles(shape, values, t.dtype(), op).record(largest ? "MaxBackward0" : "MinBackward0", {&t}),
            Tensor::from_doubles(shape, indices, DType::Int64, op)};
}

// Sums of bool, int64 and float64 tensors, in double from the first value on (exact for integers).
Tensor sum_wide(const Tensor& t, int64_t d, bool keepdim) {
    const Rows rows = rows_along(t, d);
    std::vector<double> sums(static_cast<size_t>(rows.count), 0.0);
    for (int64_t r = 0; r < rows.count; ++r)
        for (int64_t i = 0; i < rows.length; ++i) sums[size_t(r)] += rows.values[size_t(r * rows.length + i)];
    return Tensor::from_doubles(with_dim(t.shape(), d, keepdim), sums, sum_dtype(t.dtype()), "sum");
}

}  // namespace

// ---------------------------------------------------------------- argmax, argmin, max, min

Tensor argmax(const Tensor& t) { return arg_best(t, true, "argmax"); }
Tensor argmin(const Tensor& t) { return arg_best(t, false, "argmin"); }
Tensor argmax(const Tensor& t, int64_t dim, bool keepdim) { return arg_best(t, dim, keepdim, true, "argmax"); }
Tensor argmin(const Tensor& t, int64_t dim, bool keepdim) { return arg_best(t, dim, keepdim, false, "argmin"); }
ValuesIndices max(const Tensor& t, int64_t dim, bool keepdim) { return best(t, dim, keepdim, true, "max"); }
ValuesIndices min(const Tensor& t, int64_t dim, bool keepdim) { return best(t, dim, keepdim, false, "min"); }

// ---------------------------------------------------------------- sum

Tensor sum(const Tensor& t) {
    if (t.dtype() != DType::Float32)
        return sum_wide(t.reshape({t.numel()}), 0, false).record("SumBackward0", {&t});
    // Memory order, whatever the view: a permutation of the dims does not change the bits.
    Tensor c = t.permute(memory_order(t)).contiguous();
    Tensor out = Tensor::full({}, 0.0f + inner(c.data(), c.numel()));
    return out.record("SumBackward0", {&t});
}

Tensor sum(const Tensor& t, int64_t dim, bool keepdim) {
    if (t.dim() == 0) {
        wrap(dim, 0, "sum");
        return sum(t).record("SumBackward1", {&t});
    }
    const int64_t d = wrap(dim, t.dim(), "sum");
    if (t.dtype() != DType::Float32) return sum_wide(t, d, keepdim).record("SumBackward1", {&t});
    const std::vector<int64_t> perm = memory_order(t);
    const Tensor c = t.permute(perm).contiguous();
    const int64_t pd = std::find(perm.begin(), perm.end(), d) - perm.begin();
    Tensor reduced = sum_dim_contiguous(c, pd);
    // Back to the caller's dim order.
    std::vector<int64_t> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) inverse[size_t(perm[i])] = int64_t(i);
    Tensor out = reduced.permute(inverse).contiguous();
    if (!keepdim) out = out.view(drop_dim(out.shape(), d));
    return Tensor::from_vector(out.shape(), out.to_vector()).record("SumBackward1", {&t});
}

// ---------------------------------------------------------------- softmax

namespace {

// §2.3: softmax over dim of size n with `inner` positions after it, one column at a time.
// Columns in a full vector block of 8 use EXP; the one-at-a-time columns use libm expf.
void softmax_outer(const float* x, float* y, int64_t outer, int64_t n, int64_t inner_size) {
    const int64_t N = outer * inner_size;
    auto column = [&](int64_t p, bool vector_block) {
        const int64_t o = p / inner_size, j = p % inner_size;
        const float* col = x + o * n * inner_size + j;
        float* out = y + o * n * inner_size + j;
        float m = -INFINITY;
        bool nan = false;
        for (int64_t d = 0; d < n; ++d) {
            const float v = col[d * inner_size];
            if (std::isnan(v)) nan = true;
            m = std::max(m, v);
        }
        if (nan) m = NAN;
        float s = 0.0f;
        for (int64_t d = 0; d < n; ++d) {
            const float diff = col[d * inner_size] - m;
            const float e = vector_block ? kernels::exp_ref(diff) : std::exp(diff);
            out[d * inner_size] = e;
            s += e;
        }
        for (int64_t d = 0; d < n; ++d) out[d * inner_size] = out[d * inner_size] / s;
    };
    int64_t p = 0;
    while (p < N) {
        const int64_t j = p % inner_size;
        if (j + 8 <= inner_size && p + 8 <= N) {
            for (int64_t k = 0; k < 8; ++k) column(p + k, true);
            p += 8;
        } else {
            const int64_t cnt = p + 8 > N ? N - p : inner_size - j;
            for (int64_t k = 0; k < cnt; ++k) column(p + k, false);
            p += cnt;
        }
    }
}

}  // namespace

Tensor softmax(const Tensor& t, int64_t dim) {
    if (t.dtype() != DType::Float32) throw Error("softmax: expected a float32 tensor, got " + std::string(dtype_name(t.dtype())));
    if (t.dim() == 0) {
        wrap(dim, 0, "softmax");
        return Tensor::full({}, 1.0f).record("SoftmaxBackward0", {&t});
    }
    const int64_t d = wrap(dim, t.dim(), "softmax");
    const Tensor c = t.contiguous();
    Tensor out = Tensor::empty(t.shape());
    const int64_t n = t.size(d);
    int64_t outer = 1, inner_size = 1;
    for (int64_t i = 0; i < d; ++i) outer *= t.size(i);
    for (int64_t i = d + 1; i < t.dim(); ++i) inner_size *= t.size(i);
    if (out.numel() > 0) {
        if (inner_size == 1) kernels::active().softmax_rows(c.data(), out.data(), outer, n);
        else softmax_outer(c.data(), out.data(), outer, n, inner_size);
    }
    return out.record("SoftmaxBackward0", {&t});
}

}  // namespace attn
