#pragma once
// str(tensor) exactly as PyTorch 1.13 writes it (torch/_tensor_str.py; shared/docs/torch-numerics.md §5).
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "attn/tensor.hpp"

namespace attn {

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
// given (nullopt = automatic), as PyTorch does.
struct PrintOptionsUpdate {
    std::optional<int> precision;
    std::optional<double> threshold;
    std::optional<int> edgeitems;
    std::optional<int> linewidth;
    std::optional<bool> sci_mode;
    std::optional<std::string> profile;  // "default" | "short" | "full", applied first
};
void set_printoptions(const PrintOptionsUpdate& update);

// str(t) with the global options: "tensor([[0.2961, 0.5166], ...])", with the "Parameter containing:"
// prefix and the requires_grad / grad_fn suffix when the tensor carries them.
std::string to_string(const Tensor& t);
std::string to_string(const Tensor& t, const PrintOptions& options);

}  // namespace attn
