#pragma once
// A float32 (or bool) tensor with PyTorch's view semantics: several tensors may share one storage
// (views from indexing, slicing, transpose, view), and in-place ops write through to every view.
// Bool tensors keep 0/1 in the same float storage; only their dtype tag differs.
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

enum class DType { Float32, Bool };

const char* dtype_name(DType dtype);  // "float32" | "bool"
std::string shape_str(const Shape& shape);  // "[6,3]", as the core's own error messages print shapes
std::string sizes_text(const Shape& shape);  // "[6, 3]", as PyTorch's messages print them
// PyTorch's message for a dim outside [-n, n - 1].
std::string dim_out_of_range(int64_t dim, int64_t n);

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
    static Tensor from_strided(std::vector<float> storage, const Shape& shape, const Shape& strides, int64_t offset,
                               DType dtype = DType::Float32);

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
    std::vector<float> to_vector() const;  // row-major copy of the values
    float item() const;                     // the only value of a one-element tensor
    float at(const std::vector<int64_t>& index) const;  // one element, full index, negatives allowed
    // Pointer to the first element; valid for contiguous tensors only (throws otherwise).
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
    Tensor to_bool() const;   // nonzero -> true, like .bool()
    Tensor to_float() const;  // like .float()

    // ---- in place (write through to shared storage; return *this)
    Tensor& fill_(float value);
    Tensor& zero_();
    Tensor& copy_(const Tensor& source);  // source broadcast to this shape
    Tensor& add_(const Tensor& other);
    Tensor& add_(double other);
    Tensor& masked_fill_(const Tensor& mask, float value);
    // t[index] = value: index is a prefix of the dims (like t[i] or t[i, j]); a tensor value broadcasts.
    Tensor& set(const std::vector<int64_t>& index, float value);
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

// Row-major strides of a contiguous tensor of this shape.
Shape contiguous_strides(const Shape& shape);
int64_t shape_numel(const Shape& shape);
// Throws attn::Error, naming `op`, for more than kMaxDims dims, a negative size, or sizes whose product
// exceeds kMaxTensorElements. Sizes of 0 do not exempt the others: they set the strides, which must stay small too.
void check_shape(const Shape& shape, const char* op);
// Throws attn::Error, naming `op`, for more than kMaxDims dims (check_shape's first rule).
void check_rank(int64_t rank, const char* op);

}  // namespace attn
