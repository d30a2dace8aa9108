#!/usr/bin/python3
"""Writes tests/golden/dtypes.json: PyTorch 1.13's dtypes, type promotion and creation functions, as the
core, the JS API and the notebook's torch must reproduce them. Each case names its operation and arguments
as data; the result is kept as its dtype, its shape, its values (each a float.hex of the value as a Python
float: exact for float32, float64 and the int64 values used here) and its printed text, or as the error
message PyTorch raised.

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_dtypes.py   (deterministic)
"""
import json
import math
import os

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtypes.json")

DTYPES = {"bool": torch.bool, "int64": torch.int64, "float32": torch.float32, "float64": torch.float64,
          "int32": torch.int32}
NAMES = {v: k for k, v in DTYPES.items()}

# The operands of the promotion table: 1-D tensors, 0-d tensors and Python numbers of each kind.
OPERANDS = {
    "b": ([True, False, True], "bool"),
    "i": ([1, -2, 3], "int64"),
    "f": ([0.5, -1.25, 3.0], "float32"),
    "d": ([0.1, 2.0, -3.5], "float64"),
    "j": ([4, -5, 6], "int32"),
    "b0": (True, "bool"),
    "i0": (2, "int64"),
    "f0": (1.5, "float32"),
    "d0": (0.25, "float64"),
}
NUMBERS = {"True": True, "3": 3, "-2": -2, "0.5": 0.5}


def operand(name):
    if name in NUMBERS:
        return NUMBERS[name]
    data, dtype = OPERANDS[name]
    return torch.tensor(data, dtype=DTYPES[dtype])


BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "pow": lambda a, b: a ** b,
    "eq": lambda a, b: a == b,
    "lt": lambda a, b: a < b,
    "ge": lambda a, b: a >= b,
    "bitwise_and": lambda a, b: a & b,
    "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b,
}


def typed(value):
    """Python values with their kinds, for readers whose JSON numbers lose int versus float (JavaScript)."""
    if isinstance(value, (list, tuple)):
        return [typed(v) for v in value]
    kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "float"
    return {kind: value}


def hexes(t):
    return [float(v).hex() for v in t.reshape(-1).tolist()]


def result(make):
    try:
        t = make()
    except Exception as e:  # PyTorch's own message, kept word for word
        return {"error": str(e).split("\n")[0]}
    if isinstance(t, tuple):  # (values, indices)
        return {"values": result(lambda: t[0]), "indices": result(lambda: t[1]), "text": str(t)}
    return {"dtype": NAMES[t.dtype], "shape": list(t.shape), "hex": hexes(t), "text": str(t)}


def creation_cases():
    cases = []

    def case(fn, *args, **kwargs):
        dtype = kwargs.pop("dtype", None)
        call = getattr(torch, fn)
        extra = {"dtype": DTYPES[dtype]} if dtype else {}
        cases.append({"fn": fn, "args": list(args), "typed_args": typed(list(args)), "kwargs": kwargs, "dtype": dtype,
                      "result": result(lambda: call(*args, **kwargs, **extra))})

    for args in [(5,), (0,), (1, 7, 2), (0, 1, 0.1), (1, 2.5, 0.5), (-3, 3, 1.5), (10, 0, -3), (0, 5.5),
                 (0.5,), (0, 0.3, 0.1), (-1.0, 1.0, 0.25), (1, 0), (0, 1, 0), (0, 3, 0.1), (-2, 7.3, 0.37),
                 (1, 0, -0.013), (0, 20, 1.5), (2.5, -4.5, -1), (-7, 11, 3)]:
        case("arange", *args)
    case("arange", 0, 1, 0.1, dtype="float64")
    case("arange", 4, dtype="float32")
    case("arange", 0, 2.5, 0.5, dtype="int64")
    case("arange", 0.5, 9.9, 1.7, dtype="int64")
    case("arange", 0, 2, 0.037, dtype="float64")
    case("arange", 3, dtype="bool")
    case("arange", -2, 5, 2, dtype="int32")
    for args in [(0, 1, 5), (0, 1, 7), (-1, 1, 10), (0, 10, 3), (3, 3, 1), (0, 1, 0), (0.1, 0.9, 9), (2, -7, 12),
                 (1, 2, 1), (0, 1, 40), (-3.3, 8.1, 77), (5, -5, 16), (0, 1, 17), (1, 10, 33)]:
        case("linspace", *args)
    case("linspace", 0, 1, 7, dtype="float64")
    case("linspace", 0, 10, 4, dtype="int64")
    case("linspace", -2.5, 7.5, 23, dtype="int64")
    case("linspace", -1.3, 2.9, 41, dtype="float64")
    case("eye", 3)
    case("eye", 2, 3)
    case("eye", 3, 1)
    case("eye", 2, dtype="int64")
    case("eye", 2, dtype="bool")
    case("full", [2, 3], 7)
    case("full", [2], 1.5)
    case("full", [2, 2], True)
    case("full", [3], 2, dtype="float64")
    case("full", [2], 0.7, dtype="int64")
    for fn in ["zeros", "ones", "empty"]:
        for dtype in DTYPES:
            case(fn, [2, 3] if fn != "empty" else [0, 2], dtype=dtype)
    case("zeros", [0], dtype="int64")
    return cases


def tensor_cases():
    data = [[1, 2, 3], [[1, 2], [3, 4]], [1, 2.5], [True, False], [True, 2], [], 5, 2.5, True, [[True]],
            [1, -20, 300], [[1, 2], [3, 40]], [[0.5, 1], [2, 3]], [-7], [1.0, 2.0], [1e-5, 1.0], [1e10, 1],
            [10 ** 15, -3]]
    cases = [{"data": d, "typed_data": typed(d), "dtype": None, "result": result(lambda d=d: torch.tensor(d))}
             for d in data]
    for d, dtype in [([2 ** 40 + 5, -3], "int32"), ([1.9, -1.9], "int32"), ([1, 2], "float64"), ([1.5, -2.5], "int64"), ([0, 3], "bool"), ([0.1, 0.2], "float64"),
                     ([[1e-5, 1.0]], "float64"), ([1, 2], "float32"), (3, "float64")]:
        cases.append({"data": d, "typed_data": typed(d), "dtype": dtype,
                      "result": result(lambda: torch.tensor(d, dtype=DTYPES[dtype]))})
    return cases


def method_cases():
    """Conversions and reductions on named operands, and printing of larger tensors."""
    m = torch.tensor([[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]])
    k = torch.tensor([[4, -1, 4], [0, 9, 9]])
    n = torch.tensor([[1.0, math.nan, 2.0], [3.0, 3.0, -1.0]])
    named = dict({k2: operand(k2) for k2 in OPERANDS}, m=m, k=k, n=n)
    calls = []
    for name in ["b", "i", "f", "d", "j", "b0", "i0", "f0", "d0"]:
        for method in ["long", "double", "float", "bool", "int", "sum"]:
            calls.append((name, method, []))
    for name in ["m", "k", "n", "i", "d", "b", "j"]:
        calls += [(name, "argmax", []), (name, "argmin", []), (name, "max", []), (name, "min", [])]
    for name in ["m", "k", "n"]:
        for dim in [0, 1, -1]:
            for keepdim in [False, True]:
                calls += [(name, "argmax", [dim, keepdim]), (name, "argmin", [dim, keepdim]),
                          (name, "max", [dim, keepdim]), (name, "min", [dim, keepdim])]
        calls += [(name, "sum", [0, False]), (name, "sum", [1, True])]
    calls += [("i", "neg", []), ("d", "neg", []), ("b", "neg", []), ("i", "exp", []), ("d", "exp", []),
              ("b", "bitwise_not", []), ("i", "bitwise_not", []), ("f", "bitwise_not", []),
              ("i", "reciprocal", []), ("d", "reciprocal", []), ("i", "mean", []), ("j", "mean", []),
              ("b", "mean", []), ("d", "mean", []), ("i", "var", []), ("j", "std", [])]
    cases = []
    for name, method, args in calls:
        cases.append({"operand": name, "method": method, "args": args,
                      "result": result(lambda: getattr(named[name], method)(*args))})
    return named, cases


def print_cases():
    texts = {}
    for name, make in [
        ("arange(2000)", lambda: torch.arange(2000)),
        ("arange(2000).view(40, 50)", lambda: torch.arange(2000).view(40, 50)),
        ("arange(-5, 25).view(5, 6) * 7", lambda: torch.arange(-5, 25).view(5, 6) * 7),
        ("arange(12, dtype=float64).view(3, 4) / 7", lambda: torch.arange(12, dtype=torch.float64).view(3, 4) / 7),
        ("arange(1100) > 5", lambda: torch.arange(1100) > 5),
        ("zeros(2, 0, dtype=int64)", lambda: torch.zeros(2, 0, dtype=torch.int64)),
        ("zeros(0, dtype=bool)", lambda: torch.zeros(0, dtype=torch.bool)),
        ("zeros(0, dtype=float64)", lambda: torch.zeros(0, dtype=torch.float64)),
        ("ones(2, 3, dtype=float64).requires_grad_()", lambda: torch.ones(2, 3, dtype=torch.float64).requires_grad_()),
    ]:
        t = make()
        texts[name] = {"dtype": NAMES[t.dtype], "shape": list(t.shape), "hex": hexes(t.detach()), "text": str(t)}
    return texts


def main():
    promotion = []
    tensors = [k for k in OPERANDS]
    for a in tensors:
        for b in tensors + list(NUMBERS):
            for op, f in BINARY.items():
                promotion.append({"a": a, "op": op, "b": b,
                                  "result": result(lambda: f(operand(a), operand(b)))})
    named, methods = method_cases()
    out = {
        "operands": {k: {"data": v[0], "dtype": v[1]} for k, v in OPERANDS.items()},
        "numbers": {k: {"value": v, "kind": type(v).__name__} for k, v in NUMBERS.items()},
        "method_operands": {k: {"hex": hexes(named[k]), "shape": list(named[k].shape), "dtype": NAMES[named[k].dtype]}
                            for k in ["m", "k", "n"]},
        "promotion": promotion,
        "creation": creation_cases(),
        "tensor": tensor_cases(),
        "methods": methods,
        "print": print_cases(),
        "result_type": {f"{a},{b}": NAMES[torch.result_type(operand(a), operand(b))]
                        for a in tensors for b in tensors + list(NUMBERS)},
    }
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"wrote {OUT}: {len(promotion)} promotion cases, {len(out['creation'])} creation, "
          f"{len(out['tensor'])} tensor(data), {len(methods)} methods")


if __name__ == "__main__":
    main()
