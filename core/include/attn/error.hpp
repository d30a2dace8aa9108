#pragma once
// The one exception type of the core. Messages name the operation, the argument, what was expected and
// what was received, e.g. "matmul: shapes [6,3] and [2,3] cannot be multiplied (3 != 2)".
#include <stdexcept>
#include <string>

namespace attn {

class Error : public std::invalid_argument {
public:
    explicit Error(const std::string& message) : std::invalid_argument(message) {}
};

}  // namespace attn
