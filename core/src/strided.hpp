#pragma once
// Walking strided tensors in row-major order, and broadcasting: the plumbing under every op that takes
// views (transposes, slices, selects) without copying them first.
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "attn/tensor.hpp"

namespace attn {

// The few internals the core's own code needs from a Tensor.
class TensorAccess {
public:
    // The float storage of a float32 or bool tensor (an int64/float64 one is refused).
    static const float* base(const Tensor& t) {
        check_float_storage(t, "this operation");
        return t.storage_->data();
    }
    static float* base_mut(Tensor& t) {
        check_float_storage(t, "this operation");
        return t.storage_->data();
    }
    // The raw storage of any tensor (wide ones: two floats per element; detail::load_wide reads them).
    static const float* raw(const Tensor& t) { return t.storage_->data(); }
    static int64_t offset(const Tensor& t) { return t.offset_; }
    // A view of t's storage with its own shape, strides and offset (expand, step slices).
    static Tensor view(const Tensor& t, Shape shape, Shape strides, int64_t offset) {
        return t.view_of(std::move(shape), std::move(strides), offset);
    }
};

namespace detail {

// An int64/float64 element: the double in floats [2 * index, 2 * index + 1] (memcpy: any alignment).
inline double load_wide(const float* base, int64_t index) {
    double v;
    std::memcpy(&v, base + 2 * index, sizeof v);
    return v;
}
inline void store_wide(float* base, int64_t index, double v) { std::memcpy(base + 2 * index, &v, sizeof v); }

// Calls f(storage offset) for every element of (shape, strides, offset) in row-major order.
template <class F>
void for_each_offset(const Shape& shape, const Shape& strides, int64_t offset, F&& f) {
    const size_t rank = shape.size();
    for (int64_t s : shape)
        if (s == 0) return;
    if (rank == 0) {
        f(offset);
        return;
    }
    std::vector<int64_t> index(rank, 0);
    const int64_t inner = shape[rank - 1], inner_stride = strides[rank - 1];
    int64_t base = offset;
    while (true) {
        for (int64_t i = 0; i < inner; ++i) f(base + i * inner_stride);
        // advance the outer index like an odometer
        size_t d = rank - 1;
        while (true) {
            if (d == 0) return;
            --d;
            base += strides[d];
            if (++index[d] < shape[d]) break;
            base -= strides[d] * shape[d];
            index[d] = 0;
        }
    }
}

// Strides that read `t` as if it had `shape` (broadcast: size-1 and missing dims get stride 0).
Shape broadcast_strides(const Tensor& t, const Shape& shape);

// The values of t broadcast to `shape`, row-major (float32 and bool tensors).
std::vector<float> broadcast_values(const Tensor& t, const Shape& shape);
// The same for any dtype, as doubles.
std::vector<double> broadcast_doubles(const Tensor& t, const Shape& shape);

}  // namespace detail
}  // namespace attn
