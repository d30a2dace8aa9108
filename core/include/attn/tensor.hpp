#pragma once
// A tensor with PyTorch's view semantics: several tensors may share one storage (views from indexing,
// slicing, transpose, view), and in-place ops write through to every view.
// The storage is always a vector of floats, so that every float32 kernel reads it as before. Bool tensors
// keep 0/1 there; int64 and float64 ("wide") tensors keep each element as one double in two consecutive
// floats (element i at floats 2i, 2i+1); int32 ones too. Int64 values are held exactly up to 2^53 - 1, and
// refused beyond; int32 values wrap around as PyTorch's do.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attn {

using Shape = std::vector<int64_t>;

// The most elements one tensor may hold (1 GiB of float32): larger requests fail with a clear error
// instead of exhausting memory (a WebAssembly heap is at most a few GiB).
inline constexpr int64_t kMaxTensorElements = int64_t{1} << 28;
// The most dims one tensor may have. Printing and the walks over dims recurse once per dim, and 64 is far
// beyond any model's needs while keeping that recursion shallow.
inline constexpr int64_t kMaxDims = 64;

enum class DType { Float32, Bool, Int64, Float64, Int32 };

const char* dtype_name(DType dtype);  // "float32" | "bool" | "int64" | "float64" | "int32"
// int64, int32 and float64: elements stored as doubles, two floats each.
inline bool is_wide(DType dtype) { return dtype == DType::Int64 || dtype == DType::Float64 || dtype == DType::Int32; }
inline bool is_integral(DType dtype) { return dtype == DType::Int64 || dtype == DType::Int32; }
inline bool is_floating(DType dtype) { return dtype == DType::Float32 || dtype == DType::Float64; }
// The largest integer an int64 tensor holds here: 2^53 - 1, so that every result of integer arithmetic that
// goes beyond it is still seen as beyond it once rounded to a double.
inline constexpr double kMaxExactInteger = 9007199254740991.0;
std::string shape_str(const Shape& shape);  // "[6,3]", as the core's own error messages print shapes
std::string sizes_text(const Shape& shape);  // "[6, 3]", as PyTorch's messages print them
// PyTorch's message for a dim outside [-n, n - 1].
std::string dim_out_of_range(int64_t dim, int64_t n);
// A dim in [-rank, rank) made non-negative (a 0-d tensor takes -1 and 0), as PyTorch's maybe_wrap_dim;
// out of range throws PyTorch's message.
int64_t wrap_dim(int64_t dim, int64_t rank);

class Tensor {
public:
    // A 0-d float tensor holding 0, so that a default-constructed Tensor is usable.
    Tensor();

    // A contiguous tensor over `values` (row-major). Throws if the counts disagree.
    static Tensor from_vector(const Shape& shape, std::vector<float> values, DType dtype = DType::Float32);
    // Uninitialised in PyTorch; here zero-filled so that results never depend on garbage.
    static Tensor empty(const Shape& shape, DType dtype = DType::Float32);
    static Tensor full(const Shape& shape, float value, DType dtype = DType::Float32);
    // A view (shape, strides, offset) over its own copy of `storage`, as PyTorch's as_strided; checks
    // that every element lies inside the storage.
    // `storage` is the raw float storage: for int64/float64, two floats per element.
    static Tensor from_strided(std::vector<float> storage, const Shape& shape, const Shape& strides, int64_t offset,
                               DType dtype = DType::Float32);
    // Any dtype from doubles: rounded to float32, 0/1 for bool, as is for float64; int64 needs integers within
    // +-2^53 (`op` names the caller in that error).
    static Tensor from_doubles(const Shape& shape, const std::vector<double>& values, DType dtype,
                               const char* op = "tensor");

    // ---- shape and metadata
    const Shape& shape() const { return shape_; }
    const Shape& strides() const { return strides_; }
    int64_t dim() const { return static_cast<int64_t>(shape_.size()); }
    int64_t numel() const;
    int64_t size(int64_t dim) const;    // negative dims count from the end, like shape[-1]
    int64_t stride(int64_t dim) const;  // the same dims, as PyTorch's t.stride(dim)
    DType dtype() const { return dtype_; }
    bool is_contiguous() const;
    // The whole storage this tensor views, and where in it the first element sits.
    const std::vector<float>& storage() const { return *storage_; }
    int64_t storage_offset() const { return offset_; }

    // ---- element access
    // Row-major copy of the values of a float32 or bool tensor (an int64/float64 one is refused: to_doubles).
    std::vector<float> to_vector() const;
    std::vector<double> to_doubles() const;  // row-major copy of the values, any dtype
    // The only value of a one-element tensor: item() for float32 and bool tensors (float arithmetic stays
    // float), value() for any dtype (an int64 or float64 one exactly, as a double).
    float item() const;
    double value() const;
    // One element, full index, negatives allowed: at() for float32 and bool, value_at() for any dtype.
    float at(const std::vector<int64_t>& index) const;
    double value_at(const std::vector<int64_t>& index) const;
    // Pointer to the first element of a float32 or bool tensor; valid for contiguous tensors only (throws
    // otherwise, and for int64/float64 tensors).
    const float* data() const;
    float* data();

    // ---- views (share storage)
    Tensor operator[](int64_t index) const { return select(0, index); }
    Tensor select(int64_t dim, int64_t index) const;
    Tensor slice(int64_t dim, int64_t start, int64_t end) const;  // [start, end), clamped like Python
    Tensor transpose(int64_t dim0, int64_t dim1) const;
    Tensor T() const;  // reverses all dims, like PyTorch's .T
    Tensor permute(const std::vector<int64_t>& dims) const;
    Tensor view(Shape shape) const;  // needs compatible strides; one -1 is inferred
    Tensor reshape(Shape shape) const;  // a view when possible, else a copy
    Tensor flatten() const;
    Tensor unsqueeze(int64_t dim) const;  // a new dim of size 1 at dim, in [-(dim()+1), dim()]
    Tensor contiguous() const;  // itself when already contiguous, else a copy
    Tensor clone() const;

    // ---- conversions
    Tensor to(DType dtype) const;  // itself when already of that dtype, else a converted copy (like .to)
    Tensor to_bool() const;   // nonzero -> true, like .bool()
    Tensor to_float() const;  // like .float()

    // ---- in place (write through to shared storage; return *this)
    Tensor& fill_(double value);
    Tensor& zero_();
    Tensor& copy_(const Tensor& source);  // source broadcast to this shape
    Tensor& add_(const Tensor& other);
    Tensor& add_(double other);
    Tensor& masked_fill_(const Tensor& mask, double value);
    // t[index] = value: index is a prefix of the dims (like t[i] or t[i, j]); a tensor value broadcasts.
    Tensor& set(const std::vector<int64_t>& index, double value);
    Tensor& set(const std::vector<int64_t>& index, const Tensor& value);

    // ---- autograd bookkeeping, kept only so that printing matches PyTorch's text
    bool requires_grad() const { return requires_grad_; }
    const std::string& grad_fn() const { return grad_fn_; }
    bool is_parameter() const { return is_parameter_; }
    Tensor& set_requires_grad(bool value);
    Tensor& set_parameter(bool value, bool requires_grad = true);
    // Marks this tensor as made by the op whose backward is `grad_fn` ("MmBackward0"): it requires grad when
    // any input did.
    Tensor& record(const char* grad_fn, std::initializer_list<const Tensor*> inputs);
    Tensor& record(const char* grad_fn, bool any_input_requires_grad);

    // True when both tensors view the very same storage.
    bool shares_storage_with(const Tensor& other) const { return storage_ == other.storage_; }

private:
    Tensor(std::shared_ptr<std::vector<float>> storage, Shape shape, Shape strides, int64_t offset, DType dtype);
    Tensor view_of(Shape shape, Shape strides, int64_t offset) const;
    int64_t normalize_dim(int64_t dim, const char* op) const;
    template <class F> void for_each_offset(F&& f) const;
    friend class TensorAccess;

    std::shared_ptr<std::vector<float>> storage_;
    Shape shape_;
    Shape strides_;
    int64_t offset_ = 0;
    DType dtype_ = DType::Float32;
    bool requires_grad_ = false;
    bool is_parameter_ = false;
    std::string grad_fn_;
};

// Throws attn::Error naming `op` unless `t` is float32 or bool (the kernels' storage), saying how to convert.
void check_float_storage(const Tensor& t, const char* op);

// Row-major strides of a contiguous tensor of this shape.
Shape contiguous_strides(const Shape& shape);
int64_t shape_numel(const Shape& shape);
// Throws attn::Error, naming `op`, for more than kMaxDims dims, a negative size, or sizes whose product
// exceeds kMaxTensorElements. Sizes of 0 do not exempt the others: they set the strides, which must stay small too.
void check_shape(const Shape& shape, const char* op);
// Throws attn::Error, naming `op`, for more than kMaxDims dims (check_shape's first rule).
void check_rank(int64_t rank, const char* op);

}  // namespace attn
