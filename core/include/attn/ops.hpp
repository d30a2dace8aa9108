#pragma once
// The tensor operations chapter 3 uses, with PyTorch's semantics and PyTorch's float32 bits
// (shared/docs/torch-numerics.md gives the order of every sum, exp, softmax and matmul).
#include <initializer_list>
#include <string>
#include <vector>

#include "attn/generator.hpp"
#include "attn/tensor.hpp"

namespace attn {

// ---- creation (values are Python doubles rounded to float32, like torch.tensor)
Tensor scalar_tensor(double value);
Tensor tensor(std::initializer_list<double> values);
Tensor tensor(std::initializer_list<std::initializer_list<double>> values);
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<double>>> values);
Tensor tensor(std::initializer_list<std::initializer_list<std::initializer_list<std::initializer_list<double>>>> values);
Tensor zeros(const Shape& shape, DType dtype = DType::Float32);
Tensor ones(const Shape& shape, DType dtype = DType::Float32);
Tensor empty(const Shape& shape, DType dtype = DType::Float32);
Tensor full(const Shape& shape, double value, DType dtype);
Tensor rand(const Shape& shape, Generator& gen = default_generator());
Tensor randn(const Shape& shape, Generator& gen = default_generator());
// torch.arange(start, end, step, dtype=): ceil((end - start) / step) values start + i * step, computed in
// the dtype (int64: exact; float32: the step and start as float32, as PyTorch's CPU kernel).
Tensor arange(double start, double end, double step, DType dtype);
// torch.linspace: `steps` values, the first half start + i * step and the second half end - (steps-1-i) * step,
// as PyTorch's CPU kernel computes them in the dtype.
Tensor linspace(double start, double end, int64_t steps, DType dtype = DType::Float32);
Tensor eye(int64_t n, int64_t m, DType dtype = DType::Float32);

// ---- dtypes: PyTorch's type promotion (torch.result_type)
// A Python number given to an op: its kind (not its value) decides the result's dtype, as for PyTorch's
// wrapped numbers: a float makes an integer tensor float32, an int makes a bool tensor int64.
enum class ScalarKind { Bool, Int, Float };
struct Scalar {
    double value;
    ScalarKind kind = ScalarKind::Float;
};
// The dtype PyTorch computes a binary op in: tensors with dims outrank 0-d tensors, which outrank
// numbers, unless the lower-ranked one is of a higher category (bool < integer < floating).
DType result_type(const Tensor& a, const Tensor& b);
DType result_type(const Tensor& a, const Scalar& b);
DType promote_types(DType a, DType b);

// ---- elementwise, with broadcasting; a double operand is first rounded to float32
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor pow(const Tensor& a, const Tensor& b);
Tensor add(const Tensor& a, double b);
Tensor sub(const Tensor& a, double b);
Tensor mul(const Tensor& a, double b);
Tensor div(const Tensor& a, double b);
Tensor pow(const Tensor& a, double b);
Tensor add(const Tensor& a, const Scalar& b);
Tensor sub(const Tensor& a, const Scalar& b);
Tensor mul(const Tensor& a, const Scalar& b);
Tensor div(const Tensor& a, const Scalar& b);
Tensor pow(const Tensor& a, const Scalar& b);
Tensor exp(const Tensor& t);
Tensor neg(const Tensor& t);
Tensor rsub(const Tensor& t, double b);  // b - t (Python's `b - t`, PyTorch's rsub)
Tensor rsub(const Tensor& t, const Scalar& b);
Tensor reciprocal(const Tensor& t);      // 1 / t (PyTorch's `b / t` is reciprocal(t) * b)

// ---- comparisons: bool results that never require grad (a number is rounded to float32 first)
enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };
Tensor compare(const Tensor& a, const Tensor& b, Compare op);
Tensor compare(const Tensor& a, double b, Compare op);
Tensor compare(const Tensor& a, const Scalar& b, Compare op);

// ---- logical and bitwise (bool: logical; int64: bitwise), PyTorch's ~ & | ^
enum class Bitwise { And, Or, Xor };
Tensor bitwise(const Tensor& a, const Tensor& b, Bitwise op);
Tensor bitwise(const Tensor& a, const Scalar& b, Bitwise op);
Tensor bitwise_not(const Tensor& t);

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator+(const Tensor& a, double b) { return add(a, b); }
inline Tensor operator-(const Tensor& a, double b) { return sub(a, b); }
inline Tensor operator*(const Tensor& a, double b) { return mul(a, b); }
inline Tensor operator/(const Tensor& a, double b) { return div(a, b); }
inline Tensor operator*(double a, const Tensor& b) { return mul(b, a); }
inline Tensor operator-(const Tensor& t) { return neg(t); }
inline Tensor& operator+=(Tensor& a, const Tensor& b) { return a.add_(b); }

// Broadcast shape of two shapes, PyTorch's rules; `op` names the operation in the error message.
Shape broadcast_shapes(const Shape& a, const Shape& b, const char* op);

// ---- reductions
Tensor sum(const Tensor& t);                                    // all elements, 0-d result
Tensor sum(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor softmax(const Tensor& t, int64_t dim);
// The first index of the largest (smallest) value, over all elements (flattened) or along a dim; NaN counts
// as the largest, as in PyTorch. int64 results.
Tensor argmax(const Tensor& t);
Tensor argmin(const Tensor& t);
Tensor argmax(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor argmin(const Tensor& t, int64_t dim, bool keepdim = false);
// max/min along a dim as (values, indices) (of all elements: below, math ops).
struct ValuesIndices {
    Tensor values, indices;
};
ValuesIndices max(const Tensor& t, int64_t dim, bool keepdim = false);
ValuesIndices min(const Tensor& t, int64_t dim, bool keepdim = false);

// ---- products (running sum over k from +0, no FMA: netlib BLAS order)
Tensor dot(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);  // 1-D/2-D/batched, batch dims broadcast

// ---- masks and structure
Tensor triu(const Tensor& t, int64_t diagonal = 0);
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor masked_fill(const Tensor& t, const Tensor& mask, double value);  // mask: nonzero = fill
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);

// True when every |a - b| <= atol + rtol * |b| (torch.allclose).
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

// ================================================================ shape ops (shape_ops.cpp)
// Views wherever PyTorch's are views: they share the input's storage.
std::vector<Tensor> unbind(const Tensor& t, int64_t dim = 0);                  // the slices along dim
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim = 0);  // pieces of split_size (last smaller)
std::vector<Tensor> split_with_sizes(const Tensor& t, const Shape& sizes, int64_t dim = 0);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim = 0);   // ceil(size / chunks) each
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim = -1);
Tensor squeeze(const Tensor& t);               // drops every dim of size 1
Tensor squeeze(const Tensor& t, int64_t dim);  // drops dim if its size is 1
Tensor expand(const Tensor& t, const Shape& sizes);  // -1 keeps a size; new leading dims allowed
Tensor repeat(const Tensor& t, const Shape& repeats);  // a copy, tiled
Tensor movedim(const Tensor& t, int64_t source, int64_t destination);
Tensor slice_step(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step);  // t[start:end:step]
// t[mask]: a bool mask over t's leading dims selects those rows (every element, 1-D, for a mask of t's shape).
Tensor index_mask(const Tensor& t, const Tensor& mask);
Tensor index_select(const Tensor& t, int64_t dim, const Shape& index);  // t[[i, j, ...]] along dim: a copy
// t[mask] = value and t[[i, j, ...]] = value (along dim): in place through t's storage; value broadcasts
// to what the index selects.
Tensor& index_put_mask(Tensor& t, const Tensor& mask, const Tensor& value);
Tensor& index_put_rows(Tensor& t, int64_t dim, const Shape& index, const Tensor& value);

// ================================================================ math ops (math_ops.cpp)
// Reductions over several dims at once (an empty list: every dim).
Tensor sum_dims(const Tensor& t, const Shape& dims, bool keepdim = false);
Tensor mean(const Tensor& t);  // sum / numel, PyTorch's CPU order
Tensor mean_dims(const Tensor& t, const Shape& dims, bool keepdim = false);
// Variance and standard deviation with Bessel's correction (1: unbiased, PyTorch's default), in double.
Tensor var(const Tensor& t, const Shape& dims, double correction = 1, bool keepdim = false);
Tensor std_dev(const Tensor& t, const Shape& dims, double correction = 1, bool keepdim = false);  // torch.std
Tensor max(const Tensor& t);  // the largest value (NaN if any), 0-d
Tensor min(const Tensor& t);
Tensor amax(const Tensor& t, const Shape& dims, bool keepdim = false);
Tensor amin(const Tensor& t, const Shape& dims, bool keepdim = false);
Tensor prod(const Tensor& t);
Tensor prod(const Tensor& t, int64_t dim, bool keepdim = false);
Tensor cumsum(const Tensor& t, int64_t dim);  // a running sum in double, as PyTorch's CPU kernel
Tensor abs(const Tensor& t);
Tensor log(const Tensor& t);
Tensor sqrt(const Tensor& t);
Tensor rsqrt(const Tensor& t);  // 1 / sqrt(x)
Tensor clamp(const Tensor& t, double min, double max);  // NaN for min or max: no bound on that side
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b);
Tensor isclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);
bool equal(const Tensor& a, const Tensor& b);  // same shape and values
Tensor log_softmax(const Tensor& t, int64_t dim);
Tensor bmm(const Tensor& a, const Tensor& b);  // [B,n,m] @ [B,m,p]
Tensor baddbmm(const Tensor& input, const Tensor& a, const Tensor& b, double beta = 1, double alpha = 1);
// Two operands (or one): "bij,bkj->bik"; lowered to permute, sum, reshape and bmm as PyTorch lowers it.
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);

}  // namespace attn
