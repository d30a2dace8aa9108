#pragma once
// str(tensor) exactly as PyTorch 1.13 writes it (torch/_tensor_str.py; shared/docs/torch-numerics.md §5).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "attn/tensor.hpp"

namespace attn {

// Beyond 149 digits after the point every float32 is printed exactly (2^-149 is the smallest one), so a
// larger precision could only add zeros; refusing it keeps a print's text bounded.
inline constexpr int kMaxPrintPrecision = 149;

struct PrintOptions {
    int precision = 4;
    double threshold = 1000;  // summarise above this many elements (may be +inf, like profile='full')
    int edgeitems = 3;
    int linewidth = 80;
    std::optional<bool> sci_mode;  // nullopt: chosen automatically from the values
};

// The options every to_string call uses, like torch's global print options.
PrintOptions& print_options();

// Like torch.set_printoptions: only the arguments given change; sci_mode is always reset to what is
// given (nullopt = automatic), as PyTorch does. Unlike PyTorch, the values are checked here, when set, so
// that a bad one is refused at once (the options stay as they were) instead of breaking every later print:
// precision in [0, kMaxPrintPrecision], edgeitems >= 0, and the integers within int's range.
struct PrintOptionsUpdate {
    std::optional<int64_t> precision;
    std::optional<double> threshold;  // any number, as PyTorch (NaN never summarises, a negative one always)
    std::optional<int64_t> edgeitems;
    std::optional<int64_t> linewidth;  // may be 0 or negative, as PyTorch: then one element per line
    std::optional<bool> sci_mode;
    std::optional<std::string> profile;  // "default" | "short" | "full", applied first
};
void set_printoptions(const PrintOptionsUpdate& update);

// str(t) with the global options: "tensor([[0.2961, 0.5166], ...])", with the "Parameter containing:"
// prefix and the requires_grad / grad_fn suffix when the tensor carries them.
std::string to_string(const Tensor& t);
std::string to_string(const Tensor& t, const PrintOptions& options);

}  // namespace attn
