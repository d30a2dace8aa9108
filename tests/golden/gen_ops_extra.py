#!/usr/bin/python3
"""Writes tests/golden/ops_extra.json: PyTorch 1.13 results of the operations the notebook's torch needs
beyond the chapter's (comparisons, rsub, reciprocal and `n / t`, neg, functional linear and dropout,
detach and Parameter printing). Floats are 8-digit hex bit patterns, row-major.

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_ops_extra.py   (deterministic)
"""
import json
import os
import struct

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops_extra.json")


def bits(t):
    return " ".join(struct.pack(">f", float(v)).hex() for v in t.detach().float().reshape(-1).tolist())


def tensor(t):
    return {"shape": list(t.shape), "hex": bits(t), "dtype": "bool" if t.dtype == torch.bool else "float32",
            "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None}


def main():
    torch.manual_seed(31)
    a = torch.randn(3, 4)
    b = torch.randn(4)
    a[0, 1] = b[1]  # some equal elements
    m = torch.rand(3, 1) > 0.5
    cases = {"a": tensor(a), "b": tensor(b), "m": tensor(m)}
    for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
        cases[f"{op}(a, b)"] = tensor(getattr(a, op)(b))
        cases[f"{op}(a, 0.1)"] = tensor(getattr(a, op)(0.1))
        cases[f"{op}(m, a)"] = tensor(getattr(m.float(), op)(a))
    cases["1 - a"] = tensor(1 - a)
    cases["0.3 - a"] = tensor(0.3 - a)
    cases["3 / a"] = tensor(3 / a)
    cases["0.7 / a"] = tensor(0.7 / a)
    cases["a.reciprocal()"] = tensor(a.reciprocal())
    cases["-a"] = tensor(-a)
    cases["m.float()"] = tensor(m.float())
    g = a.detach().clone().requires_grad_()  # a leaf that requires grad: the results' grad_fn names
    for name, result in (("1 - g", 1 - g), ("3 / g", 3 / g), ("-g", -g), ("g.reciprocal()", g.reciprocal()),
                         ("g > 0", g > 0)):
        cases[name] = tensor(result)

    torch.manual_seed(5)
    w = torch.nn.Parameter(torch.randn(5, 4))
    bias = torch.nn.Parameter(torch.randn(5))
    x1, x2, x3 = torch.randn(4), torch.randn(3, 4), torch.randn(2, 3, 4)
    wt = torch.randn(4, 5).T  # a transposed view as the weight
    cases["w"], cases["bias"], cases["wt"] = tensor(w), tensor(bias), tensor(wt)
    for name, x in (("x1", x1), ("x2", x2), ("x3", x3)):
        cases[name] = tensor(x)
        cases[f"linear({name}, w)"] = tensor(torch.nn.functional.linear(x, w))
        cases[f"linear({name}, w, bias)"] = tensor(torch.nn.functional.linear(x, w, bias))
        cases[f"linear({name}, wt)"] = tensor(torch.nn.functional.linear(x, wt))

    drops = {}
    for p in (0.1, 0.5):
        torch.manual_seed(123)
        drops[str(p)] = tensor(torch.nn.functional.dropout(torch.ones(4, 5), p, True))
    torch.manual_seed(123)
    drops["eval"] = tensor(torch.nn.functional.dropout(torch.ones(4, 5), 0.5, False))
    cases["dropout"] = drops

    printed = {
        "Parameter(requires_grad=True)": str(torch.nn.Parameter(torch.tensor([[0.5, -1.0]]))),
        "Parameter(requires_grad=False)": str(torch.nn.Parameter(torch.tensor([0.25, 2.0]), requires_grad=False)),
        "Parameter.detach()": str(torch.nn.Parameter(torch.tensor([0.25, 2.0])).detach()),
        "(Parameter * 2)": str(torch.nn.Parameter(torch.tensor([0.25, 2.0])) * 2),
    }
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"tensors": cases, "printed": printed}, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
