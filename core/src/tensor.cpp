#include "attn/tensor.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <sstream>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "strided.hpp"

namespace attn {

const char* dtype_name(DType dtype) {
    switch (dtype) {
        case DType::Float32: return "float32";
        case DType::Bool: return "bool";
        case DType::Int64: return "int64";
        case DType::Float64: return "float64";
        case DType::Int32: return "int32";
    }
    return "?";
}

void check_float_storage(const Tensor& t, const char* op) {
    if (!is_wide(t.dtype())) return;
    throw Error(std::string(op) + ": expected a float32 or bool tensor, got " + dtype_name(t.dtype()) +
                " (this operation has no " + dtype_name(t.dtype()) + " version here; convert with .float())");
}

// An integral double as Python prints an int ("10000000000000000"), or "inf".
static std::string integer_text(double v) {
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    std::ostringstream text;
    text.precision(0);
    text << std::fixed << v;
    return text.str();
}

// A value as `dtype` holds it; int64 refuses what is not an integer within +-2^53.
static double narrowed(double v, DType dtype, const char* op) {
    switch (dtype) {
        case DType::Float32: return static_cast<float>(v);
        case DType::Bool: return v != 0.0 ? 1.0 : 0.0;
        case DType::Float64: return v;
        case DType::Int64:
        case DType::Int32:
            if (std::isnan(v))
                throw Error(std::string(op) + ": cannot convert NaN to an " + dtype_name(dtype) + " value");
            v = std::trunc(v) + 0.0;  // as a C++ cast, like PyTorch's float -> int64 conversion (and no -0)
            if (std::fabs(v) > kMaxExactInteger)
                throw Error(std::string(op) + ": int64 values beyond +-(2^53 - 1) = +-9007199254740991 are not "
                            "supported here, got " +
                            integer_text(v));
            if (dtype == DType::Int32 && (v < INT32_MIN || v > INT32_MAX))
                throw Error("value cannot be converted to type int32 without overflow");
            return v;
    }
    return v;
}

std::string sizes_text(const Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string dim_out_of_range(int64_t dim, int64_t n) {
    return "Dimension out of range (expected to be in range of [" + std::to_string(-n) + ", " +
           std::to_string(n - 1) + "], but got " + std::to_string(dim) + ")";
}

int64_t wrap_dim(int64_t dim, int64_t rank) {
    const int64_t n = std::max<int64_t>(rank, 1);
    if (dim < -n || dim >= n) throw Error(dim_out_of_range(dim, n));
    return dim < 0 ? dim + n : dim;
}

std::string shape_str(const Shape& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
    return s + "]";
}

int64_t shape_numel(const Shape& shape) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

Shape contiguous_strides(const Shape& shape) {
    Shape strides(shape.size());
    int64_t stride = 1;
    for (size_t i = shape.size(); i-- > 0;) {
        strides[i] = stride;
        stride *= std::max<int64_t>(shape[i], 1);
    }
    return strides;
}

void check_rank(int64_t rank, const char* op) {
    if (rank > kMaxDims)
        throw Error(std::string(op) + ": a tensor may have at most " + std::to_string(kMaxDims) + " dims, got " +
                    std::to_string(rank));
}

// check_shape, with messages that show `shown` (the shape as given, before a -1 was set aside).
// Checked without overflowing: the product of the nonzero sizes, which bounds the numel and every
// contiguous stride, stops growing once it passes the limit.
static void check_shape_as(const Shape& shape, const Shape& shown, const char* op) {
    check_rank(static_cast<int64_t>(shape.size()), op);
    int64_t nonzero_product = 1;
    bool any_zero = false, too_big = false;
    for (int64_t s : shape) {
        if (s < 0) throw Error(std::string(op) + ": sizes must be non-negative, got " + shape_str(shown));
        if (s == 0) any_zero = true;
        else if (nonzero_product > kMaxTensorElements / s) too_big = true;
        else nonzero_product *= s;
    }
    if (!too_big) return;
    const std::string limit = std::to_string(kMaxTensorElements);
    if (any_zero)
        throw Error(std::string(op) + ": shape " + shape_str(shown) + " is too large: even beside a size of 0, " +
                    "the other sizes may multiply to at most " + limit + " (the most elements one tensor may hold)");
    throw Error(std::string(op) + ": shape " + shape_str(shown) + " is too large: one tensor may hold at most " +
                limit + " elements (" + std::to_string(kMaxTensorElements * 4 / (1 << 20)) + " MiB)");
}

void check_shape(const Shape& shape, const char* op) { check_shape_as(shape, shape, op); }

// ---------------------------------------------------------------- construction

Tensor::Tensor() : Tensor(std::make_shared<std::vector<float>>(1, 0.0f), {}, {}, 0, DType::Float32) {}

Tensor::Tensor(std::shared_ptr<std::vector<float>> storage, Shape shape, Shape strides, int64_t offset, DType dtype)
    : storage_(std::move(storage)), shape_(std::move(shape)), strides_(std::move(strides)), offset_(offset),
      dtype_(dtype) {}

Tensor Tensor::from_vector(const Shape& shape, std::vector<float> values, DType dtype) {
    check_shape(shape, "tensor");
    if (static_cast<int64_t>(values.size()) != shape_numel(shape))
        throw Error("tensor: shape " + shape_str(shape) + " needs " + std::to_string(shape_numel(shape)) +
                    " values, got " + std::to_string(values.size()));
    if (dtype == DType::Bool)
        for (float& v : values) v = v != 0.0f ? 1.0f : 0.0f;
    return Tensor(std::make_shared<std::vector<float>>(std::move(values)), shape, contiguous_strides(shape), 0, dtype);
}

Tensor Tensor::from_doubles(const Shape& shape, const std::vector<double>& values, DType dtype, const char* op) {
    check_shape(shape, op);
    if (static_cast<int64_t>(values.size()) != shape_numel(shape))
        throw Error(std::string(op) + ": shape " + shape_str(shape) + " needs " + std::to_string(shape_numel(shape)) +
                    " values, got " + std::to_string(values.size()));
    if (!is_wide(dtype)) {
        std::vector<float> narrow(values.size());
        for (size_t i = 0; i < values.size(); ++i) narrow[i] = static_cast<float>(narrowed(values[i], dtype, op));
        return from_vector(shape, std::move(narrow), dtype);
    }
    std::vector<float> storage(2 * values.size());
    for (size_t i = 0; i < values.size(); ++i) detail::store_wide(storage.data(), static_cast<int64_t>(i),
                                                                  narrowed(values[i], dtype, op));
    return Tensor(std::make_shared<std::vector<float>>(std::move(storage)), shape, contiguous_strides(shape), 0, dtype);
}

Tensor Tensor::from_strided(std::vector<float> storage, const Shape& shape, const Shape& strides, int64_t offset,
                            DType dtype) {
    check_shape(shape, "tensor");
    if (strides.size() != shape.size())
        throw Error("tensor: " + std::to_string(strides.size()) + " strides given for shape " + shape_str(shape));
    if (is_wide(dtype) && storage.size() % 2 != 0)
        throw Error(std::string("tensor: a ") + dtype_name(dtype) + " storage holds two floats per value, got " +
                    std::to_string(storage.size()) + " floats");
    const int64_t size = static_cast<int64_t>(is_wide(dtype) ? storage.size() / 2 : storage.size());
    // The last element's position, each step bounded by the storage so that the sum cannot overflow.
    int64_t last = offset;
    bool outside = offset < 0 || offset >= size;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (strides[i] < 0) throw Error("tensor: strides must be non-negative, got " + shape_str(strides));
        if (shape[i] <= 1 || outside) continue;
        if (strides[i] > size / (shape[i] - 1)) outside = true;
        else last += (shape[i] - 1) * strides[i];
    }
    if (shape_numel(shape) > 0 && (outside || last >= size))
        throw Error("tensor: shape " + shape_str(shape) + " with strides " + shape_str(strides) + " and offset " +
                    std::to_string(offset) + " reaches outside a storage of " + std::to_string(size) + " values");
    if (dtype == DType::Bool)
        for (float& v : storage) v = v != 0.0f ? 1.0f : 0.0f;
    return Tensor(std::make_shared<std::vector<float>>(std::move(storage)), shape, strides, offset, dtype);
}

Tensor Tensor::empty(const Shape& shape, DType dtype) { return full(shape, 0.0f, dtype); }

Tensor Tensor::full(const Shape& shape, float value, DType dtype) {
    check_shape(shape, "tensor");
    if (is_wide(dtype)) return from_doubles(shape, std::vector<double>(static_cast<size_t>(shape_numel(shape)), value), dtype);
    return from_vector(shape, std::vector<float>(static_cast<size_t>(shape_numel(shape)), value), dtype);
}

Tensor Tensor::view_of(Shape shape, Shape strides, int64_t offset) const {
    Tensor t(storage_, std::move(shape), std::move(strides), offset, dtype_);
    t.requires_grad_ = requires_grad_;
    return t;
}

// ---------------------------------------------------------------- metadata

int64_t Tensor::numel() const { return shape_numel(shape_); }

int64_t Tensor::normalize_dim(int64_t dim, const char* op) const {
    (void)op;  // PyTorch's message names no operation
    return wrap_dim(dim, this->dim());
}

int64_t Tensor::size(int64_t dim) const {
    if (shape_.empty()) throw Error("Dimension specified as 0 but tensor has no dimensions");
    return shape_[static_cast<size_t>(normalize_dim(dim, "size"))];
}

int64_t Tensor::stride(int64_t dim) const {
    if (strides_.empty()) throw Error("Dimension specified as 0 but tensor has no dimensions");
    return strides_[static_cast<size_t>(normalize_dim(dim, "stride"))];
}

bool Tensor::is_contiguous() const {
    if (numel() == 0) return true;  // as PyTorch: no element is out of place (matmul of [2,0,k] views needs it)
    int64_t expected = 1;
    for (size_t i = shape_.size(); i-- > 0;) {
        if (shape_[i] == 1) continue;
        if (strides_[i] != expected) return false;
        expected *= shape_[i];
    }
    return true;
}

template <class F>
void Tensor::for_each_offset(F&& f) const {
    detail::for_each_offset(shape_, strides_, offset_, f);
}

// ---------------------------------------------------------------- element access

std::vector<float> Tensor::to_vector() const {
    check_float_storage(*this, "this operation");
    std::vector<float> out;
    out.reserve(static_cast<size_t>(numel()));
    const float* base = storage_->data();
    for_each_offset([&](int64_t off) { out.push_back(base[off]); });
    return out;
}

std::vector<double> Tensor::to_doubles() const {
    std::vector<double> out;
    out.reserve(static_cast<size_t>(numel()));
    const float* base = storage_->data();
    if (is_wide(dtype_)) for_each_offset([&](int64_t off) { out.push_back(detail::load_wide(base, off)); });
    else for_each_offset([&](int64_t off) { out.push_back(base[off]); });
    return out;
}

double Tensor::value() const {
    if (numel() != 1)
        throw Error("item: only a tensor with one element can be converted to a number, got shape " +
                    shape_str(shape_));
    return is_wide(dtype_) ? detail::load_wide(storage_->data(), offset_) : (*storage_)[static_cast<size_t>(offset_)];
}

float Tensor::item() const {
    check_float_storage(*this, "item (value() gives any dtype's)");
    return static_cast<float>(value());
}

double Tensor::value_at(const std::vector<int64_t>& index) const {
    if (static_cast<int64_t>(index.size()) != dim())
        throw Error("at: expected " + std::to_string(dim()) + " indices for shape " + shape_str(shape_) + ", got " +
                    std::to_string(index.size()));
    Tensor t = *this;
    for (int64_t i : index) t = t.select(0, i);
    return t.value();
}

float Tensor::at(const std::vector<int64_t>& index) const {
    check_float_storage(*this, "at (value_at() gives any dtype's)");
    return static_cast<float>(value_at(index));
}

const float* Tensor::data() const {
    check_float_storage(*this, "this operation");
    if (!is_contiguous()) throw Error("data: the tensor is not contiguous; call contiguous() first");
    return storage_->data() + offset_;
}

float* Tensor::data() {
    check_float_storage(*this, "this operation");
    if (!is_contiguous()) throw Error("data: the tensor is not contiguous; call contiguous() first");
    return storage_->data() + offset_;
}

// ---------------------------------------------------------------- views

Tensor Tensor::select(int64_t dim, int64_t index) const {
    if (shape_.empty()) throw Error("select() cannot be applied to a 0-dim tensor.");
    const int64_t d = normalize_dim(dim, "select");
    const int64_t n = shape_[static_cast<size_t>(d)];
    if (index < -n || index >= n)
        throw Error("select(): index " + std::to_string(index) + " out of range for tensor of size " +
                    sizes_text(shape_) + " at dimension " + std::to_string(d));
    if (index < 0) index += n;
    Shape shape = shape_, strides = strides_;
    const int64_t offset = offset_ + index * strides_[static_cast<size_t>(d)];
    shape.erase(shape.begin() + d);
    strides.erase(strides.begin() + d);
    return view_of(shape, strides, offset).record("SelectBackward0", requires_grad_);
}

Tensor Tensor::slice(int64_t dim, int64_t start, int64_t end) const {
    if (shape_.empty()) throw Error("slice: a 0-d tensor cannot be sliced");
    const int64_t d = normalize_dim(dim, "slice");
    const int64_t n = shape_[static_cast<size_t>(d)];
    // Python slice clamping: negatives count from the end, then clamp to [0, n].
    auto clamp = [n](int64_t i) { return std::clamp<int64_t>(i < 0 ? i + n : i, 0, n); };
    start = clamp(start);
    end = std::max(clamp(end), start);
    Shape shape = shape_;
    shape[static_cast<size_t>(d)] = end - start;
    return view_of(shape, strides_, offset_ + start * strides_[static_cast<size_t>(d)])
        .record("SliceBackward0", requires_grad_);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
    if (shape_.empty()) return *this;
    const int64_t a = normalize_dim(dim0, "transpose"), b = normalize_dim(dim1, "transpose");
    Shape shape = shape_, strides = strides_;
    std::swap(shape[static_cast<size_t>(a)], shape[static_cast<size_t>(b)]);
    std::swap(strides[static_cast<size_t>(a)], strides[static_cast<size_t>(b)]);
    return view_of(shape, strides, offset_).record("TransposeBackward0", requires_grad_);
}

Tensor Tensor::unsqueeze(int64_t dim) const {
    const int64_t n = this->dim() + 1;  // the new dim may also go last
    check_rank(n, "unsqueeze");
    if (dim < -n || dim >= n) throw Error(dim_out_of_range(dim, n));
    const auto d = static_cast<size_t>(dim < 0 ? dim + n : dim);
    Shape shape = shape_, strides = strides_;
    // Its stride makes the view contiguous where this tensor is (any value would do for a size-1 dim).
    const int64_t stride = d < shape_.size() ? shape_[d] * strides_[d] : 1;
    shape.insert(shape.begin() + static_cast<std::ptrdiff_t>(d), 1);
    strides.insert(strides.begin() + static_cast<std::ptrdiff_t>(d), stride);
    return view_of(shape, strides, offset_).record("UnsqueezeBackward0", requires_grad_);
}

Tensor Tensor::T() const {
    if (dim() < 2) return *this;
    Shape shape(shape_.rbegin(), shape_.rend()), strides(strides_.rbegin(), strides_.rend());
    return view_of(shape, strides, offset_).record("PermuteBackward0", requires_grad_);
}

Tensor Tensor::permute(const std::vector<int64_t>& dims) const {
    if (static_cast<int64_t>(dims.size()) != dim())
        throw Error("permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
                    "the desired ordering of dimensions i.e. input.dim() = " + std::to_string(dim()) +
                    " is not equal to len(dims) = " + std::to_string(dims.size()));
    Shape shape, strides;
    std::vector<bool> seen(dims.size(), false);
    for (int64_t d : dims) {
        const int64_t k = normalize_dim(d, "permute");
        if (seen[static_cast<size_t>(k)]) throw Error("permute(): duplicate dims are not allowed.");
        seen[static_cast<size_t>(k)] = true;
        shape.push_back(shape_[static_cast<size_t>(k)]);
        strides.push_back(strides_[static_cast<size_t>(k)]);
    }
    return view_of(shape, strides, offset_).record("PermuteBackward0", requires_grad_);
}

// Replaces one -1 by the size that keeps numel; checks the total.
static Shape infer_shape(Shape shape, int64_t numel, const char* op) {
    int64_t known = 1, infer_at = -1;
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == -1) {
            if (infer_at >= 0) throw Error("only one dimension can be inferred");
            infer_at = static_cast<int64_t>(i);
        } else if (shape[i] < 0) {
            throw Error("invalid shape dimension " + std::to_string(shape[i]));
        }
    }
    // The sizes given are checked before they are multiplied (the one to infer counts as 1 here).
    Shape given = shape;
    if (infer_at >= 0) given[static_cast<size_t>(infer_at)] = 1;
    check_shape_as(given, shape, op);
    for (int64_t s : given) known *= s;
    if (infer_at >= 0) {
        if (known == 0 || numel % known != 0)
            throw Error("shape '" + sizes_text(shape) + "' is invalid for input of size " + std::to_string(numel));
        shape[static_cast<size_t>(infer_at)] = numel / known;
    } else if (known != numel) {
        throw Error("shape '" + sizes_text(shape) + "' is invalid for input of size " + std::to_string(numel));
    }
    return shape;
}

// Strides for viewing this tensor with a new shape without copying, if its layout allows it
// (the same rule as PyTorch's computeStride: each run of merged dims must be contiguous in itself).
static bool view_strides(const Shape& old_shape, const Shape& old_strides, const Shape& new_shape, Shape& out) {
    const int64_t numel = shape_numel(old_shape);
    out.assign(new_shape.size(), 1);
    if (old_shape.empty()) return true;  // a 0-d tensor's one element fits any shape of one element
    if (numel == 0) {
        out = contiguous_strides(new_shape);
        return true;
    }
    int64_t view_d = static_cast<int64_t>(new_shape.size()) - 1;
    int64_t chunk_base_stride = old_strides.empty() ? 1 : old_strides.back();
    int64_t tensor_numel = 1, view_numel = 1;
    for (int64_t d = static_cast<int64_t>(old_shape.size()) - 1; d >= 0; --d) {
        tensor_numel *= old_shape[static_cast<size_t>(d)];
        if (d == 0 || (old_shape[static_cast<size_t>(d - 1)] != 1 &&
                       old_strides[static_cast<size_t>(d - 1)] != tensor_numel * chunk_base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || new_shape[static_cast<size_t>(view_d)] == 1)) {
                out[static_cast<size_t>(view_d)] = view_numel * chunk_base_stride;
                view_numel *= new_shape[static_cast<size_t>(view_d)];
                --view_d;
            }
            if (view_numel != tensor_numel) return false;
            if (d > 0) {
                chunk_base_stride = old_strides[static_cast<size_t>(d - 1)];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

Tensor Tensor::view(Shape shape) const {
    shape = infer_shape(std::move(shape), numel(), "view");
    Shape strides;
    if (!view_strides(shape_, strides_, shape, strides))
        throw Error("view size is not compatible with input tensor's size and stride (at least one dimension spans "
                    "across two contiguous subspaces). Use .reshape(...) instead.");
    return view_of(shape, strides, offset_).record("ViewBackward0", requires_grad_);
}

Tensor Tensor::reshape(Shape shape) const {
    shape = infer_shape(std::move(shape), numel(), "reshape");
    Shape strides;
    if (view_strides(shape_, strides_, shape, strides))
        return view_of(shape, strides, offset_).record("ViewBackward0", requires_grad_);
    Tensor copy = contiguous();
    return copy.view_of(shape, contiguous_strides(shape), copy.offset_).record("UnsafeViewBackward0", requires_grad_);
}

Tensor Tensor::flatten() const {
    if (dim() == 1) return *this;
    return reshape({numel()});
}

Tensor Tensor::contiguous() const {
    if (is_contiguous()) return *this;
    return clone();
}

Tensor Tensor::clone() const {
    Tensor t = is_wide(dtype_) ? from_doubles(shape_, to_doubles(), dtype_) : from_vector(shape_, to_vector(), dtype_);
    return t.record("CloneBackward0", requires_grad_);
}

// ---------------------------------------------------------------- conversions

Tensor Tensor::to(DType dtype) const {
    if (dtype_ == dtype) return *this;
    if (!is_wide(dtype_) && !is_wide(dtype)) return from_vector(shape_, to_vector(), dtype);
    std::vector<double> values = to_doubles();
    if (dtype == DType::Int32)  // a conversion keeps the low 32 bits, as PyTorch's does
        for (double& v : values) v = static_cast<int32_t>(static_cast<int64_t>(narrowed(v, DType::Int64, "to")));
    return from_doubles(shape_, values, dtype, "to");
}

Tensor Tensor::to_bool() const { return to(DType::Bool); }

Tensor Tensor::to_float() const { return to(DType::Float32); }

// ---------------------------------------------------------------- in place

Tensor& Tensor::fill_(double value) {
    float* base = storage_->data();
    if (is_wide(dtype_)) {
        const double v = narrowed(value, dtype_, "fill_");
        for_each_offset([&](int64_t off) { detail::store_wide(base, off, v); });
        return *this;
    }
    const auto v = static_cast<float>(narrowed(value, dtype_, "fill_"));
    for_each_offset([&](int64_t off) { base[off] = v; });
    return *this;
}

Tensor& Tensor::zero_() { return fill_(0.0f); }

Tensor& Tensor::copy_(const Tensor& source) {
    const Shape b = broadcast_shapes(shape_, source.shape_, "copy_");
    if (b != shape_)
        throw Error("copy_: a tensor of shape " + shape_str(source.shape_) + " cannot be written into shape " +
                    shape_str(shape_));
    // Read everything first: source may overlap this tensor.
    float* base = storage_->data();
    size_t i = 0;
    if (is_wide(dtype_) || is_wide(source.dtype_)) {
        std::vector<double> values = detail::broadcast_doubles(source, shape_);
        for (double& v : values) v = narrowed(v, dtype_, "copy_");
        if (is_wide(dtype_)) for_each_offset([&](int64_t off) { detail::store_wide(base, off, values[i++]); });
        else for_each_offset([&](int64_t off) { base[off] = static_cast<float>(values[i++]); });
    } else {
        std::vector<float> values = detail::broadcast_values(source, shape_);
        if (dtype_ == DType::Bool)
            for (float& v : values) v = v != 0.0f ? 1.0f : 0.0f;
        for_each_offset([&](int64_t off) { base[off] = values[i++]; });
    }
    if (source.requires_grad_ && !is_parameter_) record("CopySlices", true);
    return *this;
}

Tensor& Tensor::add_(const Tensor& other) {
    Tensor sum = add(*this, other);
    if (sum.shape_ != shape_)
        throw Error("output with shape " + sizes_text(shape_) + " doesn't match the broadcast shape " +
                    sizes_text(sum.shape_));
    copy_(sum);
    if (is_parameter_) return *this;  // a parameter changed in place stays a parameter, as through .data
    return record("AddBackward0", requires_grad_ || other.requires_grad_);
}

Tensor& Tensor::add_(double other) { return add_(scalar_tensor(other)); }

Tensor& Tensor::masked_fill_(const Tensor& mask, double value) {
    copy_(masked_fill(*this, mask, value));
    if (is_parameter_) return *this;
    return record("MaskedFillBackward0", requires_grad_);
}

// The view that `index` names: t[i], t[i, j], ... (a prefix of the dims).
static Tensor index_view(const Tensor& t, const std::vector<int64_t>& index) {
    if (static_cast<int64_t>(index.size()) > t.dim())
        throw Error("too many indices for tensor of dimension " + std::to_string(t.dim()));
    Tensor v = t;
    for (size_t d = 0; d < index.size(); ++d) {
        const int64_t n = t.shape()[d], i = index[d];
        if (i < -n || i >= n)
            throw Error("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(d) +
                        " with size " + std::to_string(n));
        v = v.select(0, i);
    }
    return v;
}

Tensor& Tensor::set(const std::vector<int64_t>& index, double value) {
    Tensor v = index_view(*this, index);
    v.fill_(value);
    return *this;
}

Tensor& Tensor::set(const std::vector<int64_t>& index, const Tensor& value) {
    Tensor v = index_view(*this, index);
    v.copy_(value);
    if (value.requires_grad_ && !is_parameter_) record("CopySlices", true);
    return *this;
}

// ---------------------------------------------------------------- autograd bookkeeping

Tensor& Tensor::set_requires_grad(bool value) {
    requires_grad_ = value;
    if (!value) grad_fn_.clear();
    return *this;
}

Tensor& Tensor::set_parameter(bool value, bool requires_grad) {
    is_parameter_ = value;
    grad_fn_.clear();
    requires_grad_ = requires_grad;
    return *this;
}

Tensor& Tensor::record(const char* grad_fn, bool any_input_requires_grad) {
    is_parameter_ = false;
    requires_grad_ = any_input_requires_grad;
    if (any_input_requires_grad) grad_fn_ = grad_fn;
    else grad_fn_.clear();
    return *this;
}

Tensor& Tensor::record(const char* grad_fn, std::initializer_list<const Tensor*> inputs) {
    bool any = false;
    for (const Tensor* t : inputs) any = any || t->requires_grad_;
    return record(grad_fn, any);
}

}  // namespace attn
