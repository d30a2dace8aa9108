// Creation, elementwise ops, products and structure ops. Reductions (sum, softmax) are in reductions.cpp.
#include "attn/ops.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include "attn/error.hpp"
#include "kernels/kernels.hpp"
#include "strided.hpp"

namespace attn {

// ---------------------------------------------------------------- broadcasting

namespace detail {

Shape broadcast_strides(const Tensor& t, const Shape& shape) {
    Shape strides(shape.size(), 0);
    const size_t lead = shape.size() - t.shape().size();
    for (size_t i = 0; i < t.shape().size(); ++i)
        strides[lead + i] = t.shape()[i] == 1 ? 0 : t.strides()[i];
    return strides;
}

std::vector<float> broadcast_values(const Tensor& t, const Shape& shape) {
    std::vector<float> out;
    out.reserve(static_cast<size_t>(shape_numel(shape)));
    const float* base = TensorAccess::base(t);
    for_each_offset(shape, broadcast_strides(t, shape), TensorAccess::offset(t),
                    [&](int64_t off) { out.push_back(base[off]); });
    return out;
}

std::vector<double> broadcast_doubles(const Tensor& t, const Shape& shape) {
    std::vector<double> out;
    out.reserve(static_cast<size_t>(shape_numel(shape)));
    const float* base = TensorAccess::raw(t);
    const Shape strides = broadcast_strides(t, shape);
    if (is_wide(t.dtype()))
        for_each_offset(shape, strides, TensorAccess::offset(t), [&](int64_t off) { out.push_back(load_wide(base, off)); });
    else
        for_each_offset(shape, strides, TensorAccess::offset(t), [&](int64_t off) { out.push_back(base[off]); });
    return out;
}

}  // namespace detail

Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op) {
    (void)op;  // PyTorch's message names no operation
    const size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)  // PyTorch's words, which name no operation
            throw Error("The size of tensor a (" + std::to_string(da) + ") must match the size of tensor b (" +
                        std::to_string(db) + ") at non-singleton dimension " + std::to_string(i));
        out[i] = da == 1 ? db : da;
    }
    return out;
}

// A row-major copy of t's values, broadcast to `shape`.
static std::vector<float> values_as(const Tensor& t, const Shape& shape) {
    return detail::broadcast_values(t, shape);
}

// ---------------------------------------------------------------- creation

// A number as Python prints it in messages ("1", "0.5", "inf").
static std::string number_text(double v) {
    std::ostringstream text;
    text << v;
    return text.str();
}

Tensor scalar_tensor(double value) { return Tensor::from_vector({}, {static_cast<float>(value)}); }

Tensor tensor(std::initializer_list<double> values) {
    std::vector<float> v;
    for (double x : values) v.push_back(static_cast<float>(x));
    return Tensor::from_vector({static_cast<int64_t>(values.size())}, std::move(v));
}

namespace {
// Flattens nested initializer lists, checking that every row has the same length.
template <class List>
void flatten_nested(const List& list, Shape& shape, size_t depth, std::vector<float>& out);

void flatten_nested(const std::initializer_list<double>& list, Shape& shape, size_t depth, std::vector<float>& out) {
    if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(list.size()));
    else if (shape[depth] != static_cast<int64_t>(list.size()))
        throw Error("tensor: nested lists are ragged: expected length " + std::to_string(shape[depth]) + " at depth " +
                    std::to_string(depth) + ", got " + std::to_string(list.size()));
    for (double x : list) out.push_back(static_cast<float>(x));
}

template <class List>
void flatten_nested(const List& list, Shape& shape, size_t depth, std::vector<float>& out) {
    if (shape.size() <= depth) shape.push_back(static_cast<int64_t>(list.size()));
    else if (shape[depth] != static_cast<int64_t>(list.size()))
        throw Error("tensor: nested lists are ragged: expected length " + std::to_string(shape[depth]) + " at depth " +
                    std::to_string(depth) + ", got " + std::to_string(list.size()));
    for (const auto& sub : list) flatten_nested(sub, shape, depth + 1, out);
}

template <class List>
Tensor from_nested(const List& list) {
    Shape shape;
    std::vector<float> values;
    flatten_nested(list, shape, 0, values);
    // An empty outer list leaves the inner sizes unknown: PyTorch gives them as 0.
    return Tensor::from_vector(shape, std::move(values));
}
}  // namespace

Tensor tensor(std::initializer_list<std::initializer_list<double>> values) { return from_nested(values); }
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<double>>> values) {
    return from_nested(values);
}
Tensor tensor(
    std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<double>>>> values) {
    return from_nested(values);
}

Tensor zeros(const Shape& shape, DType dtype) {
    check_shape(shape, "zeros");
    return Tensor::full(shape, 0.0f, dtype);
}
Tensor ones(const Shape& shape, DType dtype) {
    check_shape(shape, "ones");
    return Tensor::full(shape, 1.0f, dtype);
}
Tensor empty(const Shape& shape, DType dtype) {
    check_shape(shape, "empty");
    return Tensor::empty(shape, dtype);
}
Tensor full(const Shape& shape, double value, DType dtype) {
    check_shape(shape, "full");
    return Tensor::empty(shape, dtype).fill_(value);
}

// PyTorch's CPU fill loop for arange and linspace (AVX2 build): while 16 or more values remain, two vectors of
// 8 float32 (4 float64) values each, every vector from its first value `base` as base + k * step; then one value
// at a time. `first(i)` is the value at index i computed alone; `lane(base, k)` the k-th value of a vector.
template <class First, class Lane>
std::vector<double> fill_like_torch(int64_t n, int64_t width, First&& first, Lane&& lane) {
    std::vector<double> out(static_cast<size_t>(n));
    int64_t i = 0;
    for (; n - i >= 2 * width; i += 2 * width)
        for (int64_t v = i; v < i + 2 * width; v += width) {
            const double base = first(v);
            for (int64_t k = 0; k < width; ++k) out[static_cast<size_t>(v + k)] = k == 0 ? base : lane(base, k);
        }
    for (; i < n; ++i) out[static_cast<size_t>(i)] = first(i);
    return out;
}

Tensor arange(double start, double end, double step, DType dtype) {
    if (dtype == DType::Bool) throw Error("\"arange_cpu\" not implemented for 'Bool'");
    if (is_integral(dtype)) {  // the arguments become integers first, as PyTorch's to<int64_t>()
        start = std::trunc(start), end = std::trunc(end), step = std::trunc(step);
    }
    if (step == 0) throw Error("step must be nonzero");
    if (!std::isfinite(start) || !std::isfinite(end))
        throw Error("unsupported range: " + number_text(start) + " -> " + number_text(end));
    if ((step > 0 && end < start) || (step < 0 && end > start))
        throw Error("upper bound and larger bound inconsistent with step sign");
    const double count = std::ceil((end - start) / step);
    if (!(count <= static_cast<double>(kMaxTensorElements)))
        throw Error("arange: " + number_text(count) + " values is too many: one tensor may hold at most " +
                    std::to_string(kMaxTensorElements));
    const auto n = static_cast<int64_t>(count);
    // Each value is start + i * step in double (PyTorch's accumulate type), then stored in the dtype.
    const auto first = [&](int64_t i) {
        const double v = start + step * static_cast<double>(i);
        return dtype == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v;
    };
    const auto lane = [&](double base, int64_t k) {
        const double v = base + static_cast<double>(k) * step;
        return dtype == DType::Float32 ? static_cast<double>(static_cast<float>(v)) : v;
    };
    return Tensor::from_doubles({n}, fill_like_torch(n, dtype == DType::Float32 ? 8 : 4, first, lane), dtype, "arange");
}

Tensor linspace(double start, double end, int64_t steps, DType dtype) {
    if (steps < 0) throw Error("number of steps must be non-negative");
    check_shape({steps}, "linspace");
    const int64_t half = steps / 2;
    std::vector<double> values;
    if (steps == 1) {
        values = {start};  // PyTorch fills the one value with start
    } else if (dtype == DType::Float32) {
        // In float32, each value alone with one fused multiply-add (as PyTorch's compiled loop), a vector's lanes
        // as base + k * step with two roundings.
        const auto s = static_cast<float>(start), e = static_cast<float>(end);
        const float step = steps > 1 ? (e - s) / static_cast<float>(steps - 1) : 0.0f;
        const auto first = [&](int64_t i) -> double {
            return i < half ? std::fma(step, static_cast<float>(i), s)
                            : std::fma(-step, static_cast<float>(steps - i - 1), e);
        };
        const auto lane = [&](double base, int64_t k) -> double {
            return static_cast<float>(base) + static_cast<float>(k) * step;
        };
        values = fill_like_torch(steps, 8, first, lane);
    } else {
        // float64 as above in double; integer dtypes compute in double and truncate.
        const double s = is_integral(dtype) ? std::trunc(start) : start;
        const double e = is_integral(dtype) ? std::trunc(end) : end;
        const double step = steps > 1 ? (e - s) / static_cast<double>(steps - 1) : 0.0;
        const auto stored = [&](double v) { return is_integral(dtype) ? std::trunc(v) : v; };
        const auto first = [&](int64_t i) {
            return stored(i < half ? std::fma(step, static_cast<double>(i), s)
                                   : std::fma(-step, static_cast<double>(steps - i - 1), e));
        };
        const auto lane = [&](double base, int64_t k) { return stored(base + static_cast<double>(k) * step); };
        values = fill_like_torch(steps, 4, first, lane);
    }
    return Tensor::from_doubles({steps}, values, dtype, "linspace");
}

Tensor eye(int64_t n, int64_t m, DType dtype) {
    if (n < 0) throw Error("eye: n must be greater or equal to 0, got " + std::to_string(n));
    if (m < 0) throw Error("eye: m must be greater or equal to 0, got " + std::to_string(m));
    Tensor t = zeros({n, m}, dtype);
    for (int64_t i = 0; i < std::min(n, m); ++i) t.set({i, i}, 1.0);
    return t;
}

Tensor rand(const Shape& shape, Generator& gen) {
    check_shape(shape, "rand");
    Tensor t = Tensor::empty(shape);
    fill_rand(t, gen);
    return t;
}

Tensor randn(const Shape& shape, Generator& gen) {
    check_shape(shape, "randn");
    Tensor t = Tensor::empty(shape);
    fill_randn(t, gen);
    return t;
}

// ---------------------------------------------------------------- elementwise

namespace {

const char* binary_name(kernels::Binary op) {
    switch (op) {
        case kernels::Binary::Add: return "add";
        case kernels::Binary::Sub: return "sub";
        case kernels::Binary::Mul: return "mul";
        case kernels::Binary::Div: return "div";
    }
    return "?";
}

const char* binary_grad_fn(kernels::Binary op) {
    switch (op) {
        case kernels::Binary::Add: return "AddBackward0";
        case kernels::Binary::Sub: return "SubBackward0";
        case kernels::Binary::Mul: return "MulBackward0";
        case kernels::Binary::Div: return "DivBackward0";
    }
    return "";
}

// ---- type promotion

DType scalar_dtype(ScalarKind kind) {
    return kind == ScalarKind::Bool ? DType::Bool : kind == ScalarKind::Int ? DType::Int64 : DType::Float32;
}

// torch's combine_categories(higher, lower), for these four dtypes.
std::optional<DType> combine(std::optional<DType> higher, std::optional<DType> lower) {
    if (!higher) return lower;
    if (!lower) return higher;
    if (is_floating(*higher)) return higher;
    if (*higher == DType::Bool || is_floating(*lower)) return promote_types(*higher, *lower);
    return higher;
}

struct ResultState {
    std::optional<DType> dims, zero_dim, wrapped;
    void add(const Tensor& t) {
        auto& slot = t.dim() > 0 ? dims : zero_dim;
        slot = slot ? promote_types(*slot, t.dtype()) : t.dtype();
    }
    void add(const Scalar& s) {
        const DType d = scalar_dtype(s.kind);
        wrapped = wrapped ? promote_types(*wrapped, d) : d;
    }
    DType result() const { return *combine(dims, combine(zero_dim, wrapped)); }
};

// A float32 or bool tensor as is (the kernels read it), anything else converted to float32.
Tensor as_float_storage(const Tensor& t) { return is_wide(t.dtype()) ? t.to(DType::Float32) : t; }

// The dtype an op computes in, with true division making integers float32 (PyTorch's default dtype).
DType compute_dtype(kernels::Binary op, DType common) {
    return op == kernels::Binary::Div && !is_floating(common) ? DType::Float32 : common;
}

// One element of a bool, int64 or float64 binary op, in double (exact for int64 within 2^53).
double apply(kernels::Binary op, double x, double y, DType dtype) {
    if (dtype == DType::Bool) {
        switch (op) {
            case kernels::Binary::Add: return (x != 0 || y != 0) ? 1 : 0;
            case kernels::Binary::Mul: return (x != 0 && y != 0) ? 1 : 0;
            default: break;
        }
        throw Error("Subtraction, the `-` operator, with two bool tensors is not supported. "
                    "Use the `^` or `logical_xor()` operator instead.");
    }
    switch (op) {
        case kernels::Binary::Add: return x + y;
        case kernels::Binary::Sub: return x - y;
        case kernels::Binary::Mul: return x * y;
        case kernels::Binary::Div: return x / y;
    }
    return 0;
}

// PyTorch refuses `-` with a bool operand, with one message for two bools and another for one.
void check_sub(bool a_bool, bool b_bool) {
    if (a_bool && b_bool)
        throw Error("Subtraction, the `-` operator, with two bool tensors is not supported. "
                    "Use the `^` or `logical_xor()` operator instead.");
    if (a_bool || b_bool)
        throw Error("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
                    "a mask, use the `~` or `logical_not()` operator instead.");
}

// The bool/int64/float64 path: every value as a double, the result narrowed to `dtype`.
template <class F>
Tensor elementwise_wide(const Tensor& a, const Tensor& b, DType dtype, const char* op, F&& f) {
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), op);
    check_shape(shape, op);
    std::vector<double> va = detail::broadcast_doubles(a, shape);
    const std::vector<double> vb = detail::broadcast_doubles(b, shape);
    for (size_t i = 0; i < va.size(); ++i) va[i] = f(va[i], vb[i]);
    return Tensor::from_doubles(shape, va, dtype, op);
}

// A number as a 0-d tensor of the dtype an op computes it in (its value rounded there, as PyTorch does).
Tensor scalar_as(const Scalar& s, DType dtype) { return Tensor::from_doubles({}, {s.value}, dtype); }

Tensor binary(kernels::Binary op, const Tensor& a, const Tensor& b) {
    if (op == kernels::Binary::Sub) check_sub(a.dtype() == DType::Bool, b.dtype() == DType::Bool);
    const DType dtype = compute_dtype(op, result_type(a, b));
    if (dtype != DType::Float32) {
        return elementwise_wide(a, b, dtype, binary_name(op), [&](double x, double y) { return apply(op, x, y, dtype); })
            .record(binary_grad_fn(op), {&a, &b});
    }
    const Tensor fa = as_float_storage(a), fb = as_float_storage(b);
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), binary_name(op));
    check_shape(shape, binary_name(op));
    Tensor out = Tensor::empty(shape);
    const std::vector<float> va = values_as(fa, shape), vb = values_as(fb, shape);
    kernels::active().binary(op, va.data(), vb.data(), out.data(), out.numel());
    return out.record(binary_grad_fn(op), {&a, &b});
}

Tensor binary_scalar(kernels::Binary op, const Tensor& a, const Scalar& s) {
    if (op == kernels::Binary::Sub) check_sub(a.dtype() == DType::Bool, s.kind == ScalarKind::Bool);
    const DType dtype = compute_dtype(op, result_type(a, s));
    if (dtype != DType::Float32)
        return elementwise_wide(a, scalar_as(s, dtype), dtype, binary_name(op),
                                [&](double x, double y) { return apply(op, x, y, dtype); })
            .record(binary_grad_fn(op), {&a});
    Tensor in = as_float_storage(a).contiguous();
    Tensor out = Tensor::empty(a.shape());
    kernels::active().binary_scalar(op, in.data(), static_cast<float>(s.value), out.data(), out.numel());
    return out.record(binary_grad_fn(op), {&a});
}

// Elementwise with a scalar function, on the row-major values.
template <class F>
Tensor map(const Tensor& t, F&& f) {
    std::vector<float> v = as_float_storage(t).to_vector();
    for (float& x : v) x = f(x);
    return Tensor::from_vector(t.shape(), std::move(v));
}

// x ** e the way ATen's pow kernel special-cases common exponents.
float pow_scalar(float x, float e) {
    if (e == 2.0f) return x * x;
    if (e == 3.0f) return x * x * x;
    if (e == 0.5f) return std::sqrt(x);
    if (e == -0.5f) return 1.0f / std::sqrt(x);
    if (e == -1.0f) return 1.0f / x;
    if (e == -2.0f) return 1.0f / (x * x);
    return std::pow(x, e);
}

// pow in int64 (by squaring, exact within 2^53) or float64.
double pow_wide(double x, double e, DType dtype) {
    if (!is_integral(dtype)) return e == 2.0 ? x * x : std::pow(x, e);
    if (e < 0) {  // only 1 and -1 have integer reciprocals; PyTorch gives 0 for the others' (and 0's)
        if (x == 1) return 1;
        if (x == -1) return std::fmod(e, 2) == 0 ? 1 : -1;
        return 0;
    }
    double result = 1;
    for (auto n = static_cast<int64_t>(e); n > 0; n >>= 1, x *= x)
        if (n & 1) result *= x;
    return result;
}

Tensor pow_tensors(const Tensor& a, const Tensor& b, DType dtype) {
    if (dtype == DType::Bool) throw Error("\"pow\" not implemented for 'Bool'");
    return elementwise_wide(a, b, dtype, "pow", [&](double x, double y) { return pow_wide(x, y, dtype); });
}

}  // namespace

DType promote_types(DType a, DType b) {
    // For these five, promotion is the larger in bool < int32 < int64 < float32 < float64.
    auto rank = [](DType d) {
        switch (d) {
            case DType::Bool: return 0;
            case DType::Int32: return 1;
            case DType::Int64: return 2;
            case DType::Float32: return 3;
            case DType::Float64: return 4;
        }
        return 0;
    };
    return rank(a) >= rank(b) ? a : b;
}

DType result_type(const Tensor& a, const Tensor& b) {
    ResultState state;
    state.add(a);
    state.add(b);
    return state.result();
}

DType result_type(const Tensor& a, const Scalar& b) {
    ResultState state;
    state.add(a);
    state.add(b);
    return state.result();
}

Tensor add(const Tensor& a, const Tensor& b) { return binary(kernels::Binary::Add, a, b); }
Tensor sub(const Tensor& a, const Tensor& b) { return binary(kernels::Binary::Sub, a, b); }
Tensor mul(const Tensor& a, const Tensor& b) { return binary(kernels::Binary::Mul, a, b); }
Tensor div(const Tensor& a, const Tensor& b) { return binary(kernels::Binary::Div, a, b); }
Tensor add(const Tensor& a, const Scalar& b) { return binary_scalar(kernels::Binary::Add, a, b); }
Tensor sub(const Tensor& a, const Scalar& b) { return binary_scalar(kernels::Binary::Sub, a, b); }
Tensor mul(const Tensor& a, const Scalar& b) { return binary_scalar(kernels::Binary::Mul, a, b); }
Tensor div(const Tensor& a, const Scalar& b) { return binary_scalar(kernels::Binary::Div, a, b); }
Tensor add(const Tensor& a, double b) { return add(a, Scalar{b}); }
Tensor sub(const Tensor& a, double b) { return sub(a, Scalar{b}); }
Tensor mul(const Tensor& a, double b) { return mul(a, Scalar{b}); }
Tensor div(const Tensor& a, double b) { return div(a, Scalar{b}); }

Tensor pow(const Tensor& a, const Tensor& b) {
    const DType dtype = result_type(a, b);
    if (dtype != DType::Float32) return pow_tensors(a, b, dtype).record("PowBackward1", {&a, &b});
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), "pow");
    check_shape(shape, "pow");
    std::vector<float> va = values_as(as_float_storage(a), shape);
    const std::vector<float> vb = values_as(as_float_storage(b), shape);
    for (size_t i = 0; i < va.size(); ++i) va[i] = std::pow(va[i], vb[i]);
    return Tensor::from_vector(shape, std::move(va)).record("PowBackward1", {&a, &b});
}

Tensor pow(const Tensor& a, const Scalar& b) {
    const DType dtype = result_type(a, b);
    if (is_integral(dtype) && b.value < 0) throw Error("Integers to negative integer powers are not allowed.");
    if (dtype != DType::Float32) return pow_tensors(a, scalar_as(b, dtype), dtype)
        .record("PowBackward0", {&a});
    const float e = static_cast<float>(b.value);
    return map(a, [e](float x) { return pow_scalar(x, e); }).record("PowBackward0", {&a});
}

Tensor pow(const Tensor& a, double b) { return pow(a, Scalar{b}); }

Tensor exp(const Tensor& t) {
    if (t.dtype() == DType::Float64)
        return Tensor::from_doubles(t.shape(), [&] {
            std::vector<double> v = t.to_doubles();
            for (double& x : v) x = std::exp(x);
            return v;
        }(), DType::Float64).record("ExpBackward0", {&t});
    Tensor in = as_float_storage(t).contiguous();
    Tensor out = Tensor::empty(t.shape());
    kernels::active().exp(in.data(), out.data(), out.numel());
    return out.record("ExpBackward0", {&t});
}

Tensor neg(const Tensor& t) {
    if (t.dtype() == DType::Bool)
        throw Error("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
                    "mask, use the `~` or `logical_not()` operator instead.");
    if (is_wide(t.dtype())) return mul(t, Scalar{-1, ScalarKind::Int}).record("NegBackward0", {&t});
    return map(t, [](float x) { return -x; }).record("NegBackward0", {&t});
}

Tensor rsub(const Tensor& t, const Scalar& b) {
    check_sub(b.kind == ScalarKind::Bool, t.dtype() == DType::Bool);
    const DType dtype = result_type(t, b);
    if (dtype != DType::Float32)
        return elementwise_wide(scalar_as(b, dtype), t, dtype, "rsub",
                                [&](double x, double y) { return apply(kernels::Binary::Sub, x, y, dtype); })
            .record("RsubBackward1", {&t});
    const float s = static_cast<float>(b.value);
    return map(t, [s](float x) { return s - x; }).record("RsubBackward1", {&t});
}

Tensor rsub(const Tensor& t, double b) { return rsub(t, Scalar{b}); }

Tensor reciprocal(const Tensor& t) {
    if (t.dtype() == DType::Float64) return div(Tensor::from_doubles({}, {1.0}, DType::Float64), t).record("ReciprocalBackward0", {&t});
    return map(t, [](float x) { return 1.0f / x; }).record("ReciprocalBackward0", {&t});
}

// ---------------------------------------------------------------- comparisons

namespace {

template <class T>
bool compared(Compare op, T a, T b) {
    switch (op) {
        case Compare::Eq: return a == b;
        case Compare::Ne: return a != b;
        case Compare::Lt: return a < b;
        case Compare::Le: return a <= b;
        case Compare::Gt: return a > b;
        case Compare::Ge: return a >= b;
    }
    return false;
}

Tensor compare_wide(const Tensor& a, const Tensor& b, Compare op) {
    return elementwise_wide(a, b, DType::Bool, "compare",
                            [op](double x, double y) { return compared(op, x, y) ? 1.0 : 0.0; });
}

}  // namespace

// Both sides are compared in their common dtype (an int64 against a float32 as float32, as PyTorch).
Tensor compare(const Tensor& a, const Tensor& b, Compare op) {
    const DType common = result_type(a, b);
    if (is_wide(common)) return compare_wide(a, b, op);
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), "compare");
    check_shape(shape, "compare");
    std::vector<float> va = values_as(as_float_storage(a), shape);
    const std::vector<float> vb = values_as(as_float_storage(b), shape);
    for (size_t i = 0; i < va.size(); ++i) va[i] = compared(op, va[i], vb[i]) ? 1.0f : 0.0f;
    return Tensor::from_vector(shape, std::move(va), DType::Bool);
}

Tensor compare(const Tensor& a, const Scalar& b, Compare op) {
    const DType common = result_type(a, b);
    if (is_wide(common)) return compare_wide(a, scalar_as(b, common), op);
    const float s = static_cast<float>(b.value);
    return map(a, [op, s](float x) { return compared(op, x, s) ? 1.0f : 0.0f; }).to_bool();
}

Tensor compare(const Tensor& a, double b, Compare op) { return compare(a, Scalar{b}, op); }

// ---------------------------------------------------------------- logical and bitwise

namespace {

const char* bitwise_name(Bitwise op) {
    switch (op) {
        case Bitwise::And: return "bitwise_and";
        case Bitwise::Or: return "bitwise_or";
        case Bitwise::Xor: return "bitwise_xor";
    }
    return "?";
}

Tensor bitwise_in(const Tensor& a, const Tensor& b, DType dtype, Bitwise op) {
    if (is_floating(dtype))
        throw Error(std::string("\"") + bitwise_name(op) + "_cpu\" not implemented for '" +
                    (dtype == DType::Float32 ? "Float" : "Double") + "'");
    return elementwise_wide(a, b, dtype, bitwise_name(op), [op](double x, double y) {
        const auto i = static_cast<int64_t>(x), j = static_cast<int64_t>(y);
        return static_cast<double>(op == Bitwise::And ? (i & j) : op == Bitwise::Or ? (i | j) : (i ^ j));
    });
}

}  // namespace

Tensor bitwise(const Tensor& a, const Tensor& b, Bitwise op) { return bitwise_in(a, b, result_type(a, b), op); }

Tensor bitwise(const Tensor& a, const Scalar& b, Bitwise op) {
    const DType dtype = result_type(a, b);
    return bitwise_in(a, scalar_as(b, dtype), dtype, op);
}

Tensor bitwise_not(const Tensor& t) {
    if (is_floating(t.dtype()))
        throw Error(std::string("\"bitwise_not_cpu\" not implemented for '") +
                    (t.dtype() == DType::Float32 ? "Float" : "Double") + "'");
    std::vector<double> v = t.to_doubles();
    for (double& x : v) x = t.dtype() == DType::Bool ? (x != 0 ? 0 : 1) : static_cast<double>(~static_cast<int64_t>(x));
    return Tensor::from_doubles(t.shape(), v, t.dtype(), "bitwise_not");
}

// ---------------------------------------------------------------- products

// PyTorch's message for 1-D operands of different lengths (dot, and matmul of two vectors).
static std::string inconsistent_sizes(const Tensor& a, const Tensor& b) {
    return "inconsistent tensor size, expected tensor [" + std::to_string(a.numel()) + "] and src [" +
           std::to_string(b.numel()) + "] to have the same number of elements, but got " +
           std::to_string(a.numel()) + " and " + std::to_string(b.numel()) + " elements respectively";
}

// What PyTorch 1.13 says when matmul's inner sizes differ, in the words of the kernel its matmul reaches for
// these ranks: mm over folded rows (mat1 and mat2), mv (size mismatch) or bmm (batch2's first two dims).
static std::string matmul_mismatch(const Tensor& a, const Tensor& b, const Shape& batch_a, const Shape& batch_b,
                                   int64_t M, int64_t K, int64_t K2, int64_t N) {
    const auto mm = [](int64_t r1, int64_t c1, int64_t r2, int64_t c2) {
        return "mat1 and mat2 shapes cannot be multiplied (" + std::to_string(r1) + "x" + std::to_string(c1) +
               " and " + std::to_string(r2) + "x" + std::to_string(c2) + ")";
    };
    const auto mv = [](int64_t rows, int64_t cols, int64_t length) {
        return "size mismatch, got " + std::to_string(rows) + ", " + std::to_string(rows) + "x" +
               std::to_string(cols) + "," + std::to_string(length);
    };
    const int64_t rows_a = shape_numel(batch_a) * M, cols_b = shape_numel(batch_b) * N;
    if (b.dim() == 1) return mv(rows_a, K, K2);             // [..., M, K] @ [K2]
    if (a.dim() == 1 && b.dim() == 2) return mm(1, K, K2, N);
    if (a.dim() == 1) return mv(cols_b, K2, K);             // folded as b^T @ a
    if (b.dim() == 2) return mm(rows_a, K, K2, N);          // [..., M, K] @ [K2, N], rows folded
    if (a.dim() == 2) return mm(cols_b, K2, K, M);         // folded as b^T @ a^T
    const Shape batch = broadcast_shapes(batch_a, batch_b, "matmul");
    const std::string n = std::to_string(shape_numel(batch));
    return "Expected size for first two dimensions of batch2 tensor to be: [" + n + ", " + std::to_string(K) +
           "] but got: [" + n + ", " + std::to_string(K2) + "].";
}

Tensor dot(const Tensor& a, const Tensor& b) {
    check_float_storage(a, "dot");
    check_float_storage(b, "dot");
    if (a.dim() != 1 || b.dim() != 1)
        throw Error("1D tensors expected, but got " + std::to_string(a.dim()) + "D and " + std::to_string(b.dim()) +
                    "D tensors");
    if (a.numel() != b.numel()) throw Error(inconsistent_sizes(a, b));
    // A 1×K by K×1 product keeps sdot's left-to-right running sum.
    Tensor ca = a.contiguous(), cb = b.contiguous();
    Tensor out = Tensor::empty({});
    kernels::active().matmul(ca.data(), a.numel(), cb.data(), 1, out.data(), 1, 1, 1, a.numel());
    return out.record("DotBackward0", {&a, &b});
}

Tensor matmul(const Tensor& a, const Tensor& b) {
    check_float_storage(a, "matmul");
    check_float_storage(b, "matmul");
    if (a.dim() == 0 || b.dim() == 0)
        throw Error("both arguments to matmul need to be at least 1D, but they are " + std::to_string(a.dim()) +
                    "D and " + std::to_string(b.dim()) + "D");
    if (a.dim() == 1 && b.dim() == 1) return dot(a, b);
    // Treat a 1-D operand as a one-row (left) or one-column (right) matrix, dropped from the result.
    const Tensor A = a.dim() == 1 ? a.view({1, a.numel()}) : a;
    const Tensor B = b.dim() == 1 ? b.view({b.numel(), 1}) : b;
    const int64_t M = A.size(-2), K = A.size(-1), K2 = B.size(-2), N = B.size(-1);
    const Shape batch_a(A.shape().begin(), A.shape().end() - 2), batch_b(B.shape().begin(), B.shape().end() - 2);
    if (K != K2) throw Error(matmul_mismatch(a, b, batch_a, batch_b, M, K, K2, N));
    const auto& kernel = kernels::active();
    if (b.dim() == 2) {
        // [..., M, K] @ [K, N]: every row meets the same matrix, so fold the batch into the rows; B is read
        // through its strides (a transposed weight needs no copy).
        const Tensor ca = A.contiguous();
        Shape out_shape = A.shape();
        out_shape.back() = N;
        check_shape(out_shape, "matmul");
        Tensor out = Tensor::empty(out_shape);
        const float* pb = B.storage().data() + B.storage_offset();
        kernel.gemm(ca.data(), K, pb, B.strides()[0], B.strides()[1], nullptr, out.data(), N, shape_numel(batch_a) * M,
                    N, K);
        if (a.dim() == 1) out = out.view({N});
        const char* grad_fn = a.dim() > 2 ? "UnsafeViewBackward0" : a.dim() == 1 ? "SqueezeBackward3" : "MmBackward0";
        return out.record(grad_fn, {&a, &b});
    }
    const Shape batch = broadcast_shapes(batch_a, batch_b, "matmul");
    Shape out_shape = batch;
    out_shape.push_back(M);
    out_shape.push_back(N);
    check_shape(out_shape, "matmul");
    Tensor out = Tensor::empty(out_shape);

    // Each operand broadcast to the batch, made contiguous so that every matrix has unit inner stride.
    auto expand = [&](const Tensor& t, int64_t rows, int64_t cols) {
        Shape s = batch;
        s.push_back(rows);
        s.push_back(cols);
        return Tensor::from_vector(s, values_as(t, s));
    };
    const bool a_ready = batch_a == batch && A.is_contiguous(), b_ready = batch_b == batch && B.is_contiguous();
    const Tensor ca = a_ready ? A : expand(A, M, K), cb = b_ready ? B : expand(B, K, N);
    const int64_t batches = shape_numel(batch);
    for (int64_t i = 0; i < batches; ++i)
        kernel.gemm(ca.data() + i * M * K, K, cb.data() + i * K * N, N, 1, nullptr, out.data() + i * M * N, N, M, N, K);

    if (a.dim() == 1) {
        Shape s = out_shape;
        s.erase(s.end() - 2);
        out = out.view(s);
    } else if (b.dim() == 1) {
        out = out.view(Shape(out_shape.begin(), out_shape.end() - 1));
    }
    const char* grad_fn = a.dim() > 2 || b.dim() > 2 ? "UnsafeViewBackward0"
                          : a.dim() == 1             ? "SqueezeBackward3"
                          : b.dim() == 1             ? "MvBackward0"
                                                     : "MmBackward0";
    return out.record(grad_fn, {&a, &b});
}

// ---------------------------------------------------------------- masks and structure

static Tensor triangle(const Tensor& t, int64_t diagonal, bool upper, const char* op, const char* grad_fn) {
    if (t.dim() < 2)
        throw Error(std::string(op) + ": expected a tensor with at least 2 dims, got shape " + shape_str(t.shape()));
    check_float_storage(t, op);
    std::vector<float> v = t.to_vector();
    const int64_t rows = t.size(-2), cols = t.size(-1), mats = rows * cols == 0 ? 0 : t.numel() / (rows * cols);
    for (int64_t m = 0; m < mats; ++m)
        for (int64_t i = 0; i < rows; ++i)
            for (int64_t j = 0; j < cols; ++j) {
                const bool keep = upper ? j - i >= diagonal : j - i <= diagonal;
                if (!keep) v[static_cast<size_t>((m * rows + i) * cols + j)] = 0.0f;
            }
    return Tensor::from_vector(t.shape(), std::move(v), t.dtype()).record(grad_fn, {&t});
}

Tensor triu(const Tensor& t, int64_t diagonal) { return triangle(t, diagonal, true, "triu", "TriuBackward0"); }
Tensor tril(const Tensor& t, int64_t diagonal) { return triangle(t, diagonal, false, "tril", "TrilBackward0"); }

Tensor masked_fill(const Tensor& t, const Tensor& mask, double value) {
    // PyTorch's official builds refuse a float mask (a triu of ones not yet made .bool()) in these words.
    if (mask.dtype() != DType::Bool)
        throw Error("masked_fill_ only supports boolean masks, but got mask with dtype float");
    const Shape shape = broadcast_shapes(mask.shape(), t.shape(), "masked_fill");  // PyTorch names the mask a
    if (shape != t.shape())
        throw Error("masked_fill_: the mask of shape " + sizes_text(mask.shape()) +
                    " cannot be broadcast to the tensor's shape " + sizes_text(t.shape()));
    if (is_wide(t.dtype())) {
        std::vector<double> x = t.to_doubles();
        const std::vector<double> m = detail::broadcast_doubles(mask, shape);
        for (size_t i = 0; i < x.size(); ++i)
            if (m[i] != 0) x[i] = value;
        return Tensor::from_doubles(shape, x, t.dtype(), "masked_fill").record("MaskedFillBackward0", {&t});
    }
    const std::vector<float> x = t.to_vector(), m = values_as(mask, shape);
    Tensor out = Tensor::empty(shape, t.dtype());
    kernels::active().masked_fill(x.data(), m.data(), static_cast<float>(value), out.data(), out.numel());
    if (t.dtype() == DType::Bool) out = out.to_bool();
    return out.record("MaskedFillBackward0", {&t});
}

Tensor cat(const std::vector<Tensor>& tensors, int64_t dim) {
    if (tensors.empty()) throw Error("torch.cat(): expected a non-empty list of Tensors");
    for (size_t i = 0; i < tensors.size(); ++i)
        if (tensors[i].dim() == 0)
            throw Error("zero-dimensional tensor (at position " + std::to_string(i) + ") cannot be concatenated");
    const int64_t d = wrap_dim(dim, tensors[0].dim());
    for (size_t i = 1; i < tensors.size(); ++i) {
        const Shape &first = tensors[0].shape(), &s = tensors[i].shape();
        if (s.size() != first.size())
            throw Error("Tensors must have same number of dimensions: got " + std::to_string(first.size()) + " and " +
                        std::to_string(s.size()));
        for (size_t k = 0; k < s.size(); ++k)
            if (static_cast<int64_t>(k) != d && s[k] != first[k])
                throw Error("Sizes of tensors must match except in dimension " + std::to_string(d) +
                            ". Expected size " + std::to_string(first[k]) + " but got size " + std::to_string(s[k]) +
                            " for tensor number " + std::to_string(i) + " in the list.");
    }
    Shape shape = tensors[0].shape();
    shape[static_cast<size_t>(d)] = 0;
    bool any_grad = false;
    DType dtype = tensors[0].dtype();  // the tensors' promoted dtype, as PyTorch's cat
    for (const Tensor& t : tensors) {
        shape[static_cast<size_t>(d)] += t.size(d);
        any_grad = any_grad || t.requires_grad();
        dtype = promote_types(dtype, t.dtype());
    }
    check_shape(shape, "cat");
    Tensor out = Tensor::empty(shape, dtype);
    int64_t start = 0;
    for (const Tensor& t : tensors) {
        out.slice(d, start, start + t.size(d)).copy_(t);
        start += t.size(d);
    }
    return out.record("CatBackward0", any_grad);
}

Tensor stack(const std::vector<Tensor>& tensors, int64_t dim) {
    if (tensors.empty()) throw Error("stack expects a non-empty TensorList");
    for (size_t i = 1; i < tensors.size(); ++i)
        if (tensors[i].shape() != tensors[0].shape())
            throw Error("stack expects each tensor to be equal size, but got " + sizes_text(tensors[0].shape()) +
                        " at entry 0 and " + sizes_text(tensors[i].shape()) + " at entry " + std::to_string(i));
    check_rank(tensors[0].dim() + 1, "stack");
    const int64_t d = wrap_dim(dim, tensors[0].dim() + 1);
    std::vector<Tensor> expanded;
    bool any_grad = false;
    for (const Tensor& t : tensors) {
        expanded.push_back(t.unsqueeze(d));
        any_grad = any_grad || t.requires_grad();
    }
    return cat(expanded, d).record("StackBackward0", any_grad);
}

// A tolerance as PyTorch's messages print it ("nan", "-1", "0.5").
static std::string tolerance_text(double value) {
    std::ostringstream text;
    text << value;
    return text.str();
}

// torch.isclose's steps, in float32 as PyTorch computes them: equal values (infinities of the same sign
// included) are close; otherwise |a - b| must be finite and at most atol + |rtol * b|.
bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol) {
    const auto check = [](double tolerance, const char* name) {  // NaN fails too, as in PyTorch
        if (!(tolerance >= 0))
            throw Error(std::string("allclose: ") + name + " must be greater than or equal to zero, but got " +
                        tolerance_text(tolerance));
    };
    check(rtol, "rtol");
    check(atol, "atol");
    check_float_storage(a, "allclose");
    check_float_storage(b, "allclose");
    const Shape shape = broadcast_shapes(a.shape(), b.shape(), "allclose");
    const std::vector<float> va = values_as(a, shape), vb = values_as(b, shape);
    const bool equality_only = rtol == 0 && atol == 0;  // as PyTorch: no tolerance, no arithmetic
    const auto rtol_f = static_cast<float>(rtol), atol_f = static_cast<float>(atol);
    for (size_t i = 0; i < va.size(); ++i) {
        const float x = va[i], y = vb[i];
        if (x == y) continue;
        if (equality_only) return false;
        const float actual = std::fabs(x - y), allowed = atol_f + std::fabs(rtol_f * y);
        if (!(std::isfinite(actual) && actual <= allowed)) return false;
    }
    return true;
}

}  // namespace attn
