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
    const int64_t n = std::max<int64_t>(rank, 1);
    if (dim < -n || dim >= n) throw Error(dim_out_of_range(dim, n));
    return dim < 0 ? dim + n : dim;
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

}  // namespace

// ---------------------------------------------------------------- sum

Tensor sum(const Tensor& t) {
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
