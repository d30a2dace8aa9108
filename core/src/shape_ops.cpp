// Shape operations beyond the chapter's: splitting, flattening, squeezing, expanding, repeating, moving dims,
// step slices and the indexing with masks and index lists. Views share storage exactly where PyTorch's do;
// every message is PyTorch 1.13's.
#include <algorithm>
#include <string>

#include "attn/error.hpp"
#include "attn/ops.hpp"
#include "strided.hpp"

namespace attn {

// ---------------------------------------------------------------- splitting

std::vector<Tensor> unbind(const Tensor& t, int64_t dim) {
    if (t.dim() == 0) throw Error("Dimension specified as 0 but tensor has no dimensions");
    const int64_t d = wrap_dim(dim, t.dim());
    std::vector<Tensor> out;
    for (int64_t i = 0; i < t.size(d); ++i) out.push_back(t.select(d, i).record("UnbindBackward0", {&t}));
    return out;
}

// The pieces [start, start + size) along d, each recorded as `grad_fn`.
static std::vector<Tensor> pieces(const Tensor& t, int64_t d, const Shape& sizes, const char* grad_fn) {
    std::vector<Tensor> out;
    int64_t start = 0;
    for (int64_t s : sizes) {
        out.push_back(t.slice(d, start, start + s).record(grad_fn, {&t}));
        start += s;
    }
    return out;
}

std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim) {
    if (t.dim() == 0) throw Error("split expects at least a 1-dimensional tensor");
    if (split_size < 0)
        throw Error("split expects split_size be non-negative, but got split_size=" + std::to_string(split_size));
    const int64_t d = wrap_dim(dim, t.dim()), n = t.size(d);
    if (split_size == 0 && n != 0)
        throw Error("split_size can only be 0 if dimension size is 0, but got dimension size of " +
                    std::to_string(n));
    Shape sizes;
    if (split_size == 0) sizes.push_back(0);
    for (int64_t start = 0; start < n; start += split_size) sizes.push_back(std::min(split_size, n - start));
    if (n == 0 && sizes.empty()) sizes.push_back(0);
    return pieces(t, d, sizes, "SplitBackward0");
}

std::vector<Tensor> split_with_sizes(const Tensor& t, const Shape& sizes, int64_t dim) {
    if (t.dim() == 0) throw Error("split expects at least a 1-dimensional tensor");
    const int64_t d = wrap_dim(dim, t.dim()), n = t.size(d);
    int64_t total = 0;
    for (int64_t s : sizes) {
        if (s < 0)
            throw Error("split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=" +
                        sizes_text(sizes));
        total += s;
    }
    if (total != n)
        throw Error("split_with_sizes expects split_sizes to sum exactly to " + std::to_string(n) +
                    " (input tensor's size at dimension " + std::to_string(d) + "), but got split_sizes=" +
                    sizes_text(sizes));
    return pieces(t, d, sizes, "SplitWithSizesBackward0");
}

std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim) {
    if (t.dim() == 0) throw Error("chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0) throw Error("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
    const int64_t d = wrap_dim(dim, t.dim()), n = t.size(d);
    const int64_t split_size = (n + chunks - 1) / chunks;  // as PyTorch: fewer chunks when they come out even
    if (split_size == 0 && n == 0) {  // as PyTorch: `chunks` empty pieces, within reason
        constexpr int64_t kMaxPieces = int64_t{1} << 16;
        if (chunks > kMaxPieces)
            throw Error("chunk: " + std::to_string(chunks) + " empty chunks asked for; at most " +
                        std::to_string(kMaxPieces));
        return pieces(t, d, Shape(static_cast<size_t>(chunks), 0), "SplitWithSizesBackward0");
    }
    return split(t, split_size, d);
}

// ---------------------------------------------------------------- reshaping views

Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim) {
    const int64_t start = wrap_dim(start_dim, t.dim()), end = wrap_dim(end_dim, t.dim());
    if (start > end) throw Error("flatten() has invalid args: start_dim cannot come after end_dim");
    if (t.dim() == 0) return t.reshape({1});
    if (start == end) return t;
    Shape shape(t.shape().begin(), t.shape().begin() + start);
    int64_t merged = 1;
    for (int64_t i = start; i <= end; ++i) merged *= t.size(i);
    shape.push_back(merged);
    shape.insert(shape.end(), t.shape().begin() + end + 1, t.shape().end());
    Tensor out = t.reshape(shape);
    // PyTorch names a view reshape ReshapeAlias, a copying one UnsafeView.
    return out.record(out.shares_storage_with(t) ? "ReshapeAliasBackward0" : "UnsafeViewBackward0", {&t});
}

Tensor squeeze(const Tensor& t) {
    Shape shape;
    for (int64_t s : t.shape())
        if (s != 1) shape.push_back(s);
    return t.reshape(shape).record("SqueezeBackward0", {&t});  // dropping size-1 dims is always a view
}

Tensor squeeze(const Tensor& t, int64_t dim) {
    const int64_t d = wrap_dim(dim, t.dim());
    if (t.dim() == 0 || t.size(d) != 1) return t.reshape(t.shape()).record("SqueezeBackward1", {&t});
    Shape shape = t.shape();
    shape.erase(shape.begin() + d);
    return t.reshape(shape).record("SqueezeBackward1", {&t});
}

Tensor expand(const Tensor& t, const Shape& sizes) {
    const int64_t rank = static_cast<int64_t>(sizes.size()), lead = rank - t.dim();
    if (lead < 0)
        throw Error("expand(torch.FloatTensor{" + sizes_text(t.shape()) + "}, size=" + sizes_text(sizes) +
                    "): the number of sizes provided (" + std::to_string(rank) +
                    ") must be greater or equal to the number of dimensions in the tensor (" +
                    std::to_string(t.dim()) + ")");
    check_rank(rank, "expand");
    Shape shape(sizes.size()), strides(sizes.size());
    for (int64_t i = rank - 1; i >= 0; --i) {
        const auto k = static_cast<size_t>(i);
        int64_t size = sizes[k];
        if (i < lead) {
            if (size < 0)
                throw Error("The expanded size of the tensor (" + std::to_string(size) +
                            ") isn't allowed in a leading, non-existing dimension " + std::to_string(i));
            shape[k] = size;
            strides[k] = 0;
            continue;
        }
        const int64_t have = t.size(i - lead), stride = t.stride(i - lead);
        if (size == -1) size = have;
        if (have != size && have != 1)
            throw Error("The expanded size of the tensor (" + std::to_string(size) +
                        ") must match the existing size (" + std::to_string(have) + ") at non-singleton dimension " +
                        std::to_string(i) + ".  Target sizes: " + sizes_text(sizes) +
                        ".  Tensor sizes: " + sizes_text(t.shape()));
        shape[k] = size;
        strides[k] = have == size ? stride : 0;
    }
    check_shape(shape, "expand");
    return TensorAccess::view(t, shape, strides, t.storage_offset()).record("ExpandBackward0", {&t});
}

Tensor repeat(const Tensor& t, const Shape& repeats) {
    if (static_cast<int64_t>(repeats.size()) < t.dim())
        throw Error("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    const size_t lead = repeats.size() - static_cast<size_t>(t.dim());
    Shape padded(lead, 1), target(repeats.size());
    padded.insert(padded.end(), t.shape().begin(), t.shape().end());
    for (size_t i = 0; i < repeats.size(); ++i) {
        if (repeats[i] > 0 && padded[i] > kMaxTensorElements / repeats[i])  // before the product can overflow
            throw Error("repeat: " + std::to_string(repeats[i]) + " repeats of a dim of size " +
                        std::to_string(padded[i]) + " are more than one tensor may hold");
        if (__builtin_mul_overflow(padded[i], repeats[i], &target[i])) target[i] = INT64_MIN;  // a huge negative
    }
    for (size_t i = 0; i < repeats.size(); ++i)
        if (repeats[i] < 0)
            throw Error("Trying to create tensor with negative dimension " + std::to_string(target[i]) + ": " +
                        sizes_text(target));
    check_shape(target, "repeat");
    // As PyTorch: view the input as [1, s0, 1, s1, ...], expand to [r0, s0, r1, s1, ...], copy.
    Shape tiled_view, tiled;
    for (size_t i = 0; i < repeats.size(); ++i) {
        tiled_view.insert(tiled_view.end(), {1, padded[i]});
        tiled.insert(tiled.end(), {repeats[i], padded[i]});
    }
    Tensor out = expand(t.reshape(tiled_view), tiled).contiguous().reshape(target);
    return Tensor::from_vector(target, out.to_vector(), t.dtype()).record("RepeatBackward0", {&t});
}

Tensor movedim(const Tensor& t, int64_t source, int64_t destination) {
    const int64_t s = wrap_dim(source, t.dim()), d = wrap_dim(destination, t.dim());
    std::vector<int64_t> order;
    for (int64_t i = 0; i < t.dim(); ++i)
        if (i != s) order.push_back(i);
    if (t.dim() > 0) order.insert(order.begin() + d, s);
    return t.permute(order);
}

Tensor slice_step(const Tensor& t, int64_t dim, int64_t start, int64_t end, int64_t step) {
    if (step <= 0) throw Error(step == 0 ? "slice step cannot be zero" : "step must be greater than zero");
    const Tensor range = t.slice(dim, start, end);
    const int64_t d = wrap_dim(dim, t.dim());
    Shape shape = range.shape(), strides = range.strides();
    const int64_t n = shape[static_cast<size_t>(d)];
    shape[static_cast<size_t>(d)] = n == 0 ? 0 : (n - 1) / step + 1;  // no overflow for a huge step
    if (shape[static_cast<size_t>(d)] > 1) strides[static_cast<size_t>(d)] *= step;  // else unused (and may be huge)
    return TensorAccess::view(t, shape, strides, range.storage_offset()).record("SliceBackward0", {&t});
}

// ---------------------------------------------------------------- indexing with masks and lists

// The mask's dims must match t's leading dims one by one (PyTorch does not broadcast a mask index).
static void check_mask(const Tensor& t, const Tensor& mask) {
    if (mask.dtype() != DType::Bool) throw Error("tensors used as indices must be long, byte or bool tensors");
    if (mask.dim() > t.dim())
        throw Error("too many indices for tensor of dimension " + std::to_string(t.dim()));
    for (int64_t i = 0; i < mask.dim(); ++i)
        if (mask.size(i) != t.size(i))
            throw Error("The shape of the mask " + sizes_text(mask.shape()) + " at index " + std::to_string(i) +
                        " does not match the shape of the indexed tensor " + sizes_text(t.shape()) + " at index " +
                        std::to_string(i));
}

// The rows of t (its leading mask.dim() dims flattened) that the mask selects, in row-major order.
static std::vector<int64_t> selected_rows(const Tensor& mask) {
    const std::vector<float> m = mask.to_vector();
    std::vector<int64_t> rows;
    for (size_t i = 0; i < m.size(); ++i)
        if (m[i] != 0.0f) rows.push_back(static_cast<int64_t>(i));
    return rows;
}

Tensor index_mask(const Tensor& t, const Tensor& mask) {
    check_mask(t, mask);
    const Shape lead(t.shape().begin(), t.shape().begin() + mask.dim());
    Shape rest(t.shape().begin() + mask.dim(), t.shape().end());
    Shape rows_shape{shape_numel(lead)};
    rows_shape.insert(rows_shape.end(), rest.begin(), rest.end());
    const std::vector<int64_t> rows = selected_rows(mask);
    return index_select(t.reshape(rows_shape), 0, rows).record("IndexBackward0", {&t});
}

Tensor index_select(const Tensor& t, int64_t dim, const Shape& index) {
    if (t.dim() == 0) throw Error("index_select(): a 0-d tensor cannot be indexed with a list");
    const int64_t d = wrap_dim(dim, t.dim()), n = t.size(d);
    std::vector<Tensor> rows;
    for (int64_t i : index) {
        if (i < -n || i >= n)
            throw Error("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(d) +
                        " with size " + std::to_string(n));
        rows.push_back(t.select(d, i).unsqueeze(d));
    }
    Shape shape = t.shape();
    shape[static_cast<size_t>(d)] = static_cast<int64_t>(index.size());
    Tensor out = Tensor::empty(shape, t.dtype());
    for (size_t k = 0; k < rows.size(); ++k) out.slice(d, int64_t(k), int64_t(k) + 1).copy_(rows[k]);
    return out.record("IndexBackward0", {&t});
}

// An assigned value must broadcast to what the index selects (PyTorch's message when it does not).
static void check_put(const Tensor& value, const Shape& selected) {
    bool fits = value.dim() <= static_cast<int64_t>(selected.size());
    for (int64_t i = 1; fits && i <= value.dim(); ++i) {
        const int64_t v = value.shape()[size_t(value.dim() - i)], s = selected[selected.size() - size_t(i)];
        fits = v == s || v == 1;
    }
    if (!fits)
        throw Error("shape mismatch: value tensor of shape " + sizes_text(value.shape()) +
                    " cannot be broadcast to indexing result of shape " + sizes_text(selected));
}

Tensor& index_put_mask(Tensor& t, const Tensor& mask, const Tensor& value) {
    check_mask(t, mask);
    const std::vector<int64_t> rows = selected_rows(mask);
    Shape result_shape{static_cast<int64_t>(rows.size())};
    result_shape.insert(result_shape.end(), t.shape().begin() + mask.dim(), t.shape().end());
    check_put(value, result_shape);
    const Tensor values = expand(value, result_shape).contiguous();  // read before any write
    for (size_t k = 0; k < rows.size(); ++k) {
        // The selected position as an index into the mask's dims, selected one dim at a time (t may be a view).
        Tensor target = t;
        int64_t rest = rows[k], span = mask.numel();
        for (int64_t d = 0; d < mask.dim(); ++d) {
            span /= mask.size(d);
            target = target.select(0, rest / span);
            rest %= span;
        }
        target.copy_(values.select(0, static_cast<int64_t>(k)));
    }
    if (value.requires_grad() && !t.is_parameter()) t.record("IndexPutBackward0", true);
    return t;
}

Tensor& index_put_rows(Tensor& t, int64_t dim, const Shape& index, const Tensor& value) {
    const int64_t d = wrap_dim(dim, t.dim()), n = t.size(d);
    Shape result_shape = t.shape();
    result_shape[static_cast<size_t>(d)] = static_cast<int64_t>(index.size());
    check_put(value, result_shape);
    for (int64_t i : index)
        if (i < -n || i >= n)
            throw Error("index " + std::to_string(i) + " is out of bounds for dimension " + std::to_string(d) +
                        " with size " + std::to_string(n));
    const Tensor values = expand(value, result_shape).contiguous();  // read before any write
    for (size_t k = 0; k < index.size(); ++k) {
        const int64_t i = index[k] < 0 ? index[k] + n : index[k];
        t.select(d, i).copy_(values.select(d, static_cast<int64_t>(k)));
    }
    if (value.requires_grad() && !t.is_parameter()) t.record("IndexPutBackward0", true);
    return t;
}

}  // namespace attn
