// str(tensor) as PyTorch 1.13 writes it: torch/_tensor_str.py, restated in shared/docs/torch-numerics.md §5.
// The steps are the ones Python takes: pick the values shown (edge items when summarised), build one
// formatter from them, lay the elements out in nested brackets, then add the suffixes and the prefix.
#include "attn/print.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace attn {

PrintOptions& print_options() {
    static PrintOptions options;
    return options;
}

namespace {

// An integer option, checked before it is narrowed to int.
int checked_option(const char* name, int64_t value, int64_t min, int64_t max) {
    if (value < min || value > max)
        throw std::invalid_argument(std::string("set_printoptions: ") + name + " must be an integer in [" +
                                    std::to_string(min) + ", " + std::to_string(max) + "], got " +
                                    std::to_string(value));
    return static_cast<int>(value);
}

constexpr int64_t kIntMin = std::numeric_limits<int>::min(), kIntMax = std::numeric_limits<int>::max();

}  // namespace

void set_printoptions(const PrintOptionsUpdate& update) {
    // Built on a copy and stored only once every value passed, so that an error changes nothing.
    PrintOptions options = print_options();
    // Like torch, an unknown profile name is ignored rather than rejected.
    if (update.profile == "default") {
        options.precision = 4, options.threshold = 1000, options.edgeitems = 3, options.linewidth = 80;
    } else if (update.profile == "short") {
        options.precision = 2, options.threshold = 1000, options.edgeitems = 2, options.linewidth = 80;
    } else if (update.profile == "full") {
        options.precision = 4, options.threshold = std::numeric_limits<double>::infinity();
        options.edgeitems = 3, options.linewidth = 80;
    }
    if (update.precision) options.precision = checked_option("precision", *update.precision, 0, kMaxPrintPrecision);
    if (update.threshold) options.threshold = *update.threshold;
    if (update.edgeitems) options.edgeitems = checked_option("edgeitems", *update.edgeitems, 0, kIntMax);
    if (update.linewidth) options.linewidth = checked_option("linewidth", *update.linewidth, kIntMin, kIntMax);
    options.sci_mode = update.sci_mode;  // reset to automatic when not given, as torch does
    print_options() = options;
}

namespace {

// printf on the float widened to double. glibc and musl both print the exact binary value rounded
// ties-to-even, which is what Python's format() does, so "%.4f" of 0.03125 gives "0.0312" in all three.
// NaN is spelled "nan" whatever its sign bit, because printf writes "-nan" for x86's default NaN.
std::string c_format(char conversion, int precision, double value) {
    if (std::isnan(value)) return "nan";
    const char format[] = {'%', '.', '*', conversion, '\0'};
    int length = std::snprintf(nullptr, 0, format, precision, value);
    std::string text(static_cast<size_t>(length) + 1, '\0');
    std::snprintf(text.data(), text.size(), format, precision, value);
    text.resize(static_cast<size_t>(length));
    return text;
}

// One per tensor, built from the values shown (torch's _Formatter).
class Formatter {
public:
    Formatter(const std::vector<double>& shown, DType dtype, const PrintOptions& options)
        : dtype_(dtype), precision_(options.precision) {
        if (!is_floating(dtype_)) {
            for (double v : shown) width_ = std::max(width_, static_cast<int>(exact_text(v).size()));
            return;
        }
        // Only finite nonzero values decide the mode and the width.
        std::vector<double> kept;
        for (double v : shown)
            if (std::isfinite(v) && v != 0.0) kept.push_back(v);
        if (kept.empty()) return;  // int mode, width 1, and the sci_mode option is not even consulted

        double amax = 0, amin = std::numeric_limits<double>::infinity();
        for (double v : kept) {
            amax = std::max(amax, std::fabs(v));
            amin = std::min(amin, std::fabs(v));
            if (v != std::ceil(v)) int_mode_ = false;
        }
        sci_ = amax / amin > 1000.0 || amax > 1.0e8 || (!int_mode_ && amin < 1.0e-4);
        for (double v : kept) {
            int length;
            if (sci_) length = static_cast<int>(c_format('e', precision_, v).size());
            else if (int_mode_) length = static_cast<int>(c_format('f', 0, v).size()) + 1;  // the "."
            else length = static_cast<int>(c_format('f', precision_, v).size());
            width_ = std::max(width_, length);
        }
        // A forced mode keeps the width measured for the automatic one.
        if (options.sci_mode) sci_ = *options.sci_mode;
    }

    int width() const { return width_; }

    // The element's text, right-justified to the width and never cut.
    std::string format(double value) const {
        std::string text;
        if (!is_floating(dtype_)) {
            text = exact_text(value);
        } else if (sci_) {
            text = c_format('e', precision_, value);
        } else if (int_mode_) {
            text = c_format('f', 0, value);
            if (std::isfinite(value)) text += '.';
        } else {
            text = c_format('f', precision_, value);
        }
        if (static_cast<int>(text.size()) < width_) text.insert(0, static_cast<size_t>(width_) - text.size(), ' ');
        return text;
    }

private:
    // A bool as "True"/"False", an int64 as its digits.
    std::string exact_text(double v) const {
        if (dtype_ == DType::Bool) return v != 0.0 ? "True" : "False";
        return c_format('f', 0, v);
    }

    DType dtype_;
    int precision_;
    bool int_mode_ = true;
    bool sci_ = false;
    int width_ = 1;
};

// The nested-bracket layout over a row-major copy of the values.
class Layout {
public:
    Layout(const std::vector<double>& values, const Shape& shape, const PrintOptions& options, bool summarize)
        : values_(values), shape_(shape), strides_(contiguous_strides(shape)), options_(options),
          summarize_(summarize) {}

    // The values a summarised print shows (torch's get_summarized_data), in any order.
    void collect_shown(size_t d, int64_t offset, std::vector<double>& out) const {
        if (d == shape_.size()) {
            out.push_back(values_[static_cast<size_t>(offset)]);
            return;
        }
        for (const auto& range : index_ranges(d))
            for (int64_t i = range.first; i < range.second; ++i) collect_shown(d + 1, offset + i * strides_[d], out);
    }

    std::string text(size_t d, int64_t offset, int indent, const Formatter& formatter) const {
        const size_t dims_left = shape_.size() - d;
        if (dims_left == 0) return formatter.format(values_[static_cast<size_t>(offset)]);
        const auto ranges = index_ranges(d);

        std::vector<std::string> items;  // elements of a row, or sub-tensors; "" marks the gap
        for (size_t r = 0; r < ranges.size(); ++r) {
            if (r > 0) items.emplace_back();
            for (int64_t i = ranges[r].first; i < ranges[r].second; ++i)
                items.push_back(dims_left == 1 ? formatter.format(values_[static_cast<size_t>(offset + i * strides_[d])])
                                               : text(d + 1, offset + i * strides_[d], indent + 1, formatter));
        }

        std::string out = "[";
        if (dims_left == 1) {
            // Rows wrap at per_line elements; the " ..." gap counts as one of them.
            const int element_length = formatter.width() + 2;
            const int per_line = std::max(
                1, static_cast<int>(std::floor((static_cast<double>(options_.linewidth) - indent) / element_length)));
            const std::string line_break = ",\n" + std::string(static_cast<size_t>(indent) + 1, ' ');
            for (size_t k = 0; k < items.size(); ++k) {
                if (k > 0) out += k % static_cast<size_t>(per_line) == 0 ? line_break : ", ";
                out += items[k].empty() ? " ..." : items[k];
            }
        } else {
            // Sub-tensors are separated by dims_left - 1 newlines: a blank line between matrices.
            const std::string separator =
                "," + std::string(dims_left - 1, '\n') + std::string(static_cast<size_t>(indent) + 1, ' ');
            for (size_t k = 0; k < items.size(); ++k) {
                if (k > 0) out += separator;
                out += items[k].empty() ? "..." : items[k];
            }
        }
        return out + "]";
    }

private:
    // The index ranges shown along dim d: all of it, or the first and last edgeitems.
    std::vector<std::pair<int64_t, int64_t>> index_ranges(size_t d) const {
        const int64_t n = shape_[d];
        const int64_t edge = options_.edgeitems;
        if (!summarize_ || n <= 2 * edge) return {{0, n}};
        // Python's self[-0:] is the whole dim, so edgeitems = 0 shows " ..." and then every element.
        return {{0, edge}, {edge == 0 ? 0 : n - edge, n}};
    }

    const std::vector<double>& values_;
    const Shape& shape_;
    Shape strides_;
    const PrintOptions& options_;
    bool summarize_;
};

std::string tuple_str(const Shape& shape) {
    std::string out = "(";
    for (size_t i = 0; i < shape.size(); ++i) out += (i > 0 ? ", " : "") + std::to_string(shape[i]);
    return out + (shape.size() == 1 ? ",)" : ")");
}

// Suffixes go on the last line while it stays within linewidth, else on a new line under the "(".
std::string add_suffixes(std::string text, const std::vector<std::string>& suffixes, int indent, int linewidth) {
    const size_t newline = text.rfind('\n');
    // torch's len(s) - s.rfind("\n") + 1: the last line's length plus 2.
    int64_t last_line = static_cast<int64_t>(newline == std::string::npos ? text.size() + 2 : text.size() - newline + 1);
    for (const std::string& suffix : suffixes) {
        const auto length = static_cast<int64_t>(suffix.size());
        if (last_line + length + 2 > linewidth) {
            text += ",\n" + std::string(static_cast<size_t>(indent), ' ') + suffix;
            last_line = indent + length;
        } else {
            text += ", " + suffix;
            last_line += length + 2;
        }
    }
    return text + ")";
}

}  // namespace

std::string to_string(const Tensor& t) { return to_string(t, print_options()); }

std::string to_string(const Tensor& t, const PrintOptions& options) {
    // Options given here directly (not through set_printoptions) follow the same rules.
    if (options.precision < 0 || options.precision > kMaxPrintPrecision)
        throw std::invalid_argument("print: precision must be in [0, " + std::to_string(kMaxPrintPrecision) + "]");
    if (options.edgeitems < 0) throw std::invalid_argument("print: edgeitems must be >= 0");

    const std::string prefix = "tensor(";
    const int indent = static_cast<int>(prefix.size());
    const Shape& shape = t.shape();
    std::vector<std::string> suffixes;
    std::string body;

    if (t.numel() == 0) {
        // Empty: the size unless 1-D, and the dtype since no element shows it.
        body = "[]";
        if (shape.size() != 1) suffixes.push_back("size=" + tuple_str(shape));
        if (t.dtype() != DType::Float32) suffixes.push_back(std::string("dtype=torch.") + dtype_name(t.dtype()));
    } else {
        // int64 and bool show in their values; float64 and int32 are named (float32 is the default dtype).
        if (t.dtype() == DType::Float64 || t.dtype() == DType::Int32)
            suffixes.push_back(std::string("dtype=torch.") + dtype_name(t.dtype()));
        const bool summarize = static_cast<double>(t.numel()) > options.threshold;
        if (summarize && options.edgeitems == 0 && shape.size() >= 2)
            throw std::invalid_argument("print: edgeitems=0 cannot summarise a tensor of 2 or more dims "
                                        "(torch.stack of nothing fails in PyTorch too)");
        const std::vector<double> values = t.to_doubles();
        const Layout layout(values, shape, options, summarize);
        std::vector<double> shown;
        layout.collect_shown(0, 0, shown);
        const Formatter formatter(shown, t.dtype(), options);
        body = layout.text(0, 0, indent, formatter);
    }

    if (!t.grad_fn().empty()) suffixes.push_back("grad_fn=<" + t.grad_fn() + ">");
    else if (t.requires_grad()) suffixes.push_back("requires_grad=True");

    std::string text = add_suffixes(prefix + body, suffixes, indent, options.linewidth);
    if (t.is_parameter()) text = "Parameter containing:\n" + text;
    return text;
}

}  // namespace attn
