#!/usr/bin/python3
"""Writes tests/golden/nn_more.json: PyTorch 1.13's in-place random fills, Tensor.uniform_(from, to) and
Tensor.normal_(mean, std), on the default generator, with the nn.init functions built on them. Each case is a
sequence of calls right after torch.manual_seed(seed); each call's result is stored as 8-hex-digit float32 bit
patterns in the order the tensor lies in memory (a transposed tensor is filled along its storage). `errors`
holds the messages PyTorch gives for arguments it refuses.

It also writes notebook/python/torch/_pytorch_names.py: the public names of PyTorch 1.13's torch, Tensor,
nn, nn.functional, nn.init and nn.Module, so that the notebook's torch can tell a name PyTorch has but it
lacks (it says so) from a misspelt one (PyTorch's own AttributeError).

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_nn_more.py   (deterministic)
"""
import json
import os
import struct

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nn_more.json")
NAMES_OUT = os.path.join(HERE, "..", "..", "notebook", "python", "torch", "_pytorch_names.py")


def bits(t):
    storage_order = t.t() if t.dim() == 2 and not t.is_contiguous() else t
    return " ".join(struct.pack(">f", v).hex() for v in storage_order.reshape(-1).tolist())


def target(shape, transposed):
    """empty(shape), or the transpose of empty(reversed shape): a tensor of `shape` that is not contiguous."""
    return torch.empty(*reversed(shape)).t() if transposed else torch.empty(*shape)


def run(call):
    """One call of a case: {op, shape, transposed, args} -> the tensor it fills."""
    op, shape, args = call["op"], call["shape"], call.get("args", [])
    t = target(shape, call.get("transposed", False))
    if op in ("uniform_", "normal_"):
        return getattr(t, op)(*args)
    if op == "randn":
        return torch.randn(*shape)
    return getattr(nn.init, op)(t, *args)


CALL = dict  # a call, written as CALL(op=..., shape=[...], args=[...])

CASES = [
    # uniform_: the fused a + U * (b - a) of every kind of range, row-major and transposed
    (0, [CALL(op="uniform_", shape=[8])]),
    (0, [CALL(op="uniform_", shape=[8], args=[-1, 1])]),
    (42, [CALL(op="uniform_", shape=[3, 5], args=[-0.3, 0.7])]),
    (7, [CALL(op="uniform_", shape=[4, 6], args=[-0.1, 0.1], transposed=True)]),
    (7, [CALL(op="uniform_", shape=[5], args=[2.5, 2.5])]),
    (123, [CALL(op="uniform_", shape=[2, 3], args=[-1e-3, 1e3])]),
    # normal_: the double path below 16 values (its spare shared with randn), the float path from 16
    (0, [CALL(op="normal_", shape=[5], args=[0.5, 2.0])]),
    (0, [CALL(op="normal_", shape=[3]), CALL(op="normal_", shape=[1], args=[10.0, 0.5]),
         CALL(op="randn", shape=[1])]),
    (0, [CALL(op="randn", shape=[3]), CALL(op="normal_", shape=[2], args=[-1.0, 3.0])]),
    (0, [CALL(op="normal_", shape=[16], args=[0.0, 0.02])]),
    (42, [CALL(op="normal_", shape=[17], args=[-1.0, 0.02])]),
    (123, [CALL(op="normal_", shape=[6, 6], args=[3.0, 0.25])]),
    (5, [CALL(op="normal_", shape=[4, 5], args=[0.0, 1.0], transposed=True)]),
    (5, [CALL(op="normal_", shape=[40], args=[1.5, 0.0])]),
    # nn.init on top of them, as nn.MultiheadAttention and nn.Embedding draw
    (1, [CALL(op="xavier_uniform_", shape=[12, 4]), CALL(op="xavier_normal_", shape=[1, 1, 4]),
         CALL(op="xavier_normal_", shape=[1, 1, 4])]),
    (2, [CALL(op="kaiming_uniform_", shape=[3, 5], args=[5 ** 0.5]),
         CALL(op="kaiming_normal_", shape=[6, 4]), CALL(op="normal_", shape=[50, 3])]),
]

ERRORS = [
    ("uniform_", [1, 0]),
    ("uniform_", [-3e38, 3e38]),
    ("uniform_", [0, 1e39]),
    ("uniform_", [float("-inf"), 0]),
    ("normal_", [0, -1]),
    ("normal_", [0, float("nan")]),
]


def write_names():
    import torch.nn.functional as F

    spaces = {"torch": torch, "Tensor": torch.Tensor, "nn": nn, "nn.functional": F, "nn.init": nn.init,
              "Module": nn.Module}
    lines = ['"""PyTorch 1.13\'s public names, by namespace (written by tests/golden/gen_nn_more.py)."""', "NAMES = {"]
    for space, owner in spaces.items():
        names = sorted(n for n in dir(owner) if not n.startswith("_"))
        lines.append(f"    {space!r}: frozenset(\"\"\"")
        line = ""
        for name in names:
            if len(line) + len(name) + 1 > 116:
                lines.append(line.rstrip())
                line = ""
            line += name + " "
        lines.append(line.rstrip())
        lines.append('""".split()),')
    lines.append("}")
    with open(NAMES_OUT, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main():
    write_names()
    cases = []
    for seed, calls in CASES:
        torch.manual_seed(seed)
        results = [bits(run(call)) for call in calls]
        cases.append({"seed": seed, "calls": calls, "hex": results})
    errors = []
    for op, args in ERRORS:
        try:
            getattr(torch.empty(3), op)(*args)
        except RuntimeError as error:
            errors.append({"op": op, "args": [str(a) if a != a or a in (float("inf"), float("-inf")) else a
                                              for a in args], "message": str(error)})
        else:
            raise SystemExit(f"{op}{tuple(args)} was expected to fail")
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump({"cases": cases, "errors": errors}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
