#pragma once
// The tensor operations chapter 3 uses, with PyTorch's semantics and PyTorch's float32 bits
// (shared/docs/torch-numerics.md gives the order of every sum, exp, softmax and matmul).
#include <initializer_list>
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
Tensor zeros(const Shape& shape);
Tensor ones(const Shape& shape);
Tensor empty(const Shape& shape);
Tensor rand(const Shape& shape, Generator& gen = default_generator());
Tensor randn(const Shape& shape, Generator& gen = default_generator());

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
Tensor exp(const Tensor& t);
Tensor neg(const Tensor& t);
Tensor rsub(const Tensor& t, double b);  // b - t (Python's `b - t`, PyTorch's rsub)
Tensor reciprocal(const Tensor& t);      // 1 / t (PyTorch's `b / t` is reciprocal(t) * b)

// ---- comparisons: bool results that never require grad (a number is rounded to float32 first)
enum class Compare { Eq, Ne, Lt, Le, Gt, Ge };
Tensor compare(const Tensor& a, const Tensor& b, Compare op);
Tensor compare(const Tensor& a, double b, Compare op);

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

// ---- products (running sum over k from +0, no FMA: netlib BLAS order)
Tensor dot(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);  // 1-D/2-D/batched, batch dims broadcast

// ---- masks and structure
Tensor triu(const Tensor& t, int64_t diagonal = 0);
Tensor tril(const Tensor& t, int64_t diagonal = 0);
Tensor masked_fill(const Tensor& t, const Tensor& mask, float value);  // mask: nonzero = fill
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim = 0);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim = 0);

// True when every |a - b| <= atol + rtol * |b| (torch.allclose).
bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-5, double atol = 1e-8);

}  // namespace attn
