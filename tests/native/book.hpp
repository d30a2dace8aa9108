#pragma once
// The chapter's own numbers from book/chapter3.json, the one copy the page and the Node tests read too:
// its input sentence, the batched-matmul example and the printed text of each tensor.
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attn/tensor.hpp"

namespace test {

inline const nlohmann::json& book() {
    static const nlohmann::json data = [] {
        std::ifstream in(ATTN_BOOK_JSON);
        if (!in) throw std::runtime_error("cannot open " ATTN_BOOK_JSON);
        return nlohmann::json::parse(in);
    }();
    return data;
}

// What the chapter prints for a result of the page (prints) or for another expression (other_prints).
inline std::string book_print(const std::string& name) {
    const auto& b = book();
    return b["prints"].contains(name) ? b["prints"][name].get<std::string>() : b["other_prints"].at(name).get<std::string>();
}

// A nested JSON array of numbers as a float32 tensor (each double rounded to float, as torch.tensor does).
inline attn::Tensor book_tensor(const nlohmann::json& nested) {
    attn::Shape shape;
    for (const nlohmann::json* level = &nested; level->is_array(); level = &(*level)[0]) shape.push_back(static_cast<int64_t>(level->size()));
    std::vector<float> values;
    const auto flatten = [&values](const nlohmann::json& node, const auto& self) -> void {
        if (node.is_array()) {
            for (const auto& child : node) self(child, self);
        } else {
            values.push_back(static_cast<float>(node.get<double>()));
        }
    };
    flatten(nested, flatten);
    return attn::Tensor::from_vector(shape, values);
}

// The six words' 3-number embeddings, 6 x 3.
inline attn::Tensor book_inputs() { return book_tensor(book()["embeddings"]); }

}  // namespace test
