#!/usr/bin/python3
"""Writes tests/golden/print.json: str(tensor) from real PyTorch 1.13 for the C++ printer (core/src/print.cpp).

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_print.py
The output is deterministic (fixed seed, sorted keys, compact JSON).

Each case holds:
  values        float32 bit patterns as 8-digit hex strings, row-major
  shape         list of sizes
  dtype         "float32" | "bool" (bool values are stored as 0.0 / 1.0)
  options       the keyword arguments of one torch.set_printoptions call made after
                set_printoptions(profile="default"); "sci_mode" is always present (null = automatic)
  requires_grad, grad_fn (name or null), is_parameter
  str           what str() printed
"""
import json
import math
import os
import random
import struct

import torch

SEED = 20240613
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "print.json")

rng = random.Random(SEED)
torch.manual_seed(SEED)


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def hex_bits(t):
    flat = t.detach().reshape(-1).to(torch.float32).contiguous()
    return ["%08x" % struct.unpack("<I", struct.pack("<f", v))[0] for v in flat.tolist()]


# ---- values -----------------------------------------------------------------------------------------
SPECIALS = [math.nan, math.inf, -math.inf, -0.0, 0.0]
TIES = [0.03125, -0.03125, 0.125, -0.125, 1.03125, 2.5, 0.5, -1.5, 0.0625, 0.375, 1.0078125, 4.5]


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def gen_values(kind, n):
    """n Python floats of the given flavour (torch.tensor rounds them to float32)."""
    if kind == "normal":
        scale = 10.0 ** rng.randint(-6, 9)
        return [rng.gauss(0, 1) * scale for _ in range(n)]
    if kind == "uniform01":
        return [rng.random() for _ in range(n)]
    if kind == "int_small":
        return [float(rng.randint(-20, 20)) for _ in range(n)]
    if kind == "int_wide":
        hi = 10 ** rng.randint(3, 10)
        return [float(rng.randint(-hi, hi)) for _ in range(n)]
    if kind == "specials":
        base = gen_values(rng.choice(["normal", "int_small", "uniform01"]), n)
        return [rng.choice(SPECIALS) if rng.random() < 0.4 else v for v in base]
    if kind == "only_specials":
        return [rng.choice(SPECIALS) for _ in range(n)]
    if kind == "ties":
        return [rng.choice(TIES) * rng.choice([1, 1, 2, 10, 100, 0.1]) for _ in range(n)]
    if kind == "dyadic":  # k / 2^m: exact ties at many precisions
        return [rng.randint(-4096, 4096) / 2.0 ** rng.randint(1, 14) for _ in range(n)]
    if kind == "huge_tiny":
        return [rng.choice([1, -1]) * 10.0 ** rng.uniform(-45, 38.5) for _ in range(n)]
    if kind == "ratio":  # ratio > 1000 or just below it
        base = rng.uniform(0.1, 10)
        return [base * rng.choice([1, 999.9, 1000.1, 1e4, 0.5]) for _ in range(n)]
    if kind == "small":  # around the 1e-4 sci switch
        return [rng.choice([1, -1]) * rng.uniform(0.5e-4, 3e-4) for _ in range(n)]
    if kind == "edge":  # a float32 ulp or two from a 4-decimal rounding edge
        out = []
        for _ in range(n):
            x = f32((rng.randint(-99999, 99999) + 0.5) * 1e-4)
            bits = struct.unpack("<I", struct.pack("<f", x))[0] + rng.randint(-2, 2)
            out.append(struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0])
        return out
    if kind == "zeros":
        return [0.0] * n
    if kind == "big_int":
        return [float(rng.choice([1e8, 1e8 + 8, 2e9, 123456789.0, -5e10])) for _ in range(n)]
    raise ValueError(kind)


KINDS = ["normal", "normal", "uniform01", "int_small", "int_wide", "specials", "only_specials", "ties",
         "dyadic", "huge_tiny", "ratio", "small", "edge", "zeros", "big_int"]


def random_shape(max_numel=60):
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
    while True:
        shape = [rng.randint(1, 7) for _ in range(rank)]
        if numel(shape) <= max_numel:
            return shape


def random_options(numel_):
    opts = {"sci_mode": rng.choice([None, None, None, True, False])}
    if rng.random() < 0.15:
        opts["profile"] = rng.choice(["default", "short", "full"])
    if rng.random() < 0.5:
        opts["precision"] = rng.randint(0, 8)
    if rng.random() < 0.5:
        opts["linewidth"] = rng.randint(10, 160)
    if rng.random() < 0.4:
        opts["edgeitems"] = rng.randint(1, 4)
    if rng.random() < 0.4 and numel_ > 1:
        opts["threshold"] = rng.randint(1, max(1, numel_ - 1))  # summarise
    return opts


# ---- tensors with autograd flags -------------------------------------------------------------------
def with_grad_fn(x, name_hint):
    """An op result whose grad_fn torch names; returns (tensor, name)."""
    x = x.clone().requires_grad_()
    if name_hint == "mul":
        y = x * 1
    elif name_hint == "div":
        y = x / 1
    elif name_hint == "add":
        y = x + 0
    elif name_hint == "view":
        y = x.view(x.shape)
    elif name_hint == "clone":
        y = x.clone()
    elif name_hint == "softmax":
        y = torch.softmax(x, dim=-1) if x.dim() > 0 else torch.softmax(x, dim=0)
    elif name_hint == "masked_fill":
        y = x.masked_fill(torch.zeros(x.shape, dtype=torch.bool), 0.0)
    elif name_hint == "cat":
        y = torch.cat([x, x]) if x.dim() > 0 else torch.stack([x, x])
    elif name_hint == "sum":
        y = x.sum()
    elif name_hint == "sum_dim":
        y = x.sum(dim=-1) if x.dim() > 0 else x.sum()
    elif name_hint == "matmul":
        y = x @ x.transpose(-1, -2) if x.dim() >= 2 else x * 2
    elif name_hint == "linear":
        w = torch.randn(3, x.shape[-1]) if x.dim() >= 1 else torch.randn(3, 1)
        b = torch.randn(3) if rng.random() < 0.5 else None
        inp = x if x.dim() >= 1 else x.reshape(1)
        y = torch.nn.functional.linear(inp, w, b)
    else:
        raise ValueError(name_hint)
    return y, type(y.grad_fn).__name__


GRAD_OPS = ["mul", "div", "add", "view", "clone", "softmax", "masked_fill", "cat", "sum", "sum_dim", "matmul",
            "linear"]

cases = []


def add_case(t, options, dtype="float32"):
    torch.set_printoptions(profile="default")
    torch.set_printoptions(**options)
    try:
        text = str(t)
    finally:
        torch.set_printoptions(profile="default")
    is_param = isinstance(t, torch.nn.Parameter)
    grad_fn = None if t.grad_fn is None else type(t.grad_fn).__name__
    case = {
        "values": hex_bits(t) if dtype == "float32" else hex_bits(t.to(torch.float32)),
        "shape": list(t.shape),
        "dtype": dtype,
        "options": dict(options),
        "requires_grad": bool(t.requires_grad),
        "grad_fn": grad_fn,
        "is_parameter": is_param,
        "str": text,
    }
    if "sci_mode" not in case["options"]:
        case["options"]["sci_mode"] = None
    cases.append(case)


def tensor_of(values, shape):
    return torch.tensor(values, dtype=torch.float32).reshape(shape)


# 1. Hand-picked corners (default options unless stated).
corner_vectors = [
    ([1.0], []), ([1.0000001], []), ([-1.0, 2.0, 0.0], [3]), ([1e-5, 1.0], [2]), ([0.5, 1000.0], [2]),
    ([2.0, 3000.0], [2]), ([math.nan, 1.5, -math.inf], [3]), ([-0.0, 1.0], [2]), ([-0.0, 0.5], [2]),
    ([0.03125, 0.5], [2]), ([1.5e-4, 0.5], [2]), ([0.0, math.nan, -math.inf], [3]), ([math.nan], []),
    ([-math.inf], []), ([-0.0], []), ([0.0], []), ([1e8], []), ([1e8 + 8], []), ([3.4e38, -3.4e38], [2]),
    ([1e-45, 1.0], [2]), ([1e-40], []), ([123456789.0, 1.0], [2]), ([0.0001, 0.5], [2]), ([9.99e-5, 0.5], [2]),
    ([1.0, 1000.0], [2]), ([1.0, 1001.0], [2]), ([0.5, 500.0], [2]), ([0.5, 500.5], [2]),
    ([math.nan, math.nan], [2, 1]), ([math.inf, 1.0, 2.0], [3]), ([1.03125, 1e5], [2]),
]
for values, shape in corner_vectors:
    add_case(tensor_of(values, shape), {})
for sci in (True, False):
    for values, shape in corner_vectors[:16]:
        add_case(tensor_of(values, shape), {"sci_mode": sci})
add_case(tensor_of([1e-5, 1.0], [2]), {"precision": 2, "sci_mode": False})
add_case(tensor_of([-0.125, 0.375, 2.5], [3]), {"precision": 2})
add_case(tensor_of([1.03125, 2.0], [2]), {"sci_mode": True})
add_case(tensor_of([2.5, 3.5, -0.5], [3]), {"precision": 0})
add_case(tensor_of([2.5, 3.5, -0.5], [3]), {"precision": 0, "sci_mode": True})
add_case(torch.arange(16.0) / 7, {})
add_case(torch.ones(1001), {})
add_case(torch.arange(1100.0).reshape(100, 11) / 3, {})
add_case(torch.arange(20.0), {"threshold": 5, "edgeitems": 0})  # Python's self[-0:] is everything
for shape in ([0], [2, 0, 3], [0, 4], [3, 0], [1, 0, 0, 2]):
    add_case(torch.empty(shape), {})
    add_case(torch.empty(shape, dtype=torch.bool), {}, dtype="bool")
    add_case(torch.empty(shape, requires_grad=True), {})
    add_case(torch.empty(shape, requires_grad=True), {"linewidth": rng.randint(8, 30)})
add_case(torch.empty(2, 0, 3, dtype=torch.bool), {"linewidth": 10}, dtype="bool")
add_case(torch.nn.Parameter(torch.empty(0, 3)), {})

# The chapter's 2x6 softmax with grad: the grad_fn suffix moves to its own line.
scores = torch.tensor([[0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865],
                       [0.4753, 0.8434, 0.7070, 1.0865, 0.9544, 1.4950]], requires_grad=True)
add_case(torch.softmax(scores, dim=-1), {})

# 2. Bool tensors.
for _ in range(20):
    shape = random_shape()
    p = rng.choice([0.0, 0.5, 1.0, 0.2])
    t = torch.tensor([rng.random() < p for _ in range(numel(shape))], dtype=torch.bool).reshape(shape)
    add_case(t, random_options(numel(shape)), dtype="bool")

# 3. Random float tensors, random options.
for _ in range(190):
    shape = random_shape()
    kind = rng.choice(KINDS)
    add_case(tensor_of(gen_values(kind, numel(shape)), shape), random_options(numel(shape)))

# 4. Autograd suffixes: requires_grad leaves, op results, Parameters. Small linewidths make them wrap.
for op in GRAD_OPS + ["linear", "linear"]:
    shape = random_shape(max_numel=24)
    t, _ = with_grad_fn(tensor_of(gen_values("normal", numel(shape)), shape), op)
    add_case(t, {"linewidth": rng.randint(20, 90)})
for _ in range(60):
    shape = random_shape(max_numel=30)
    kind = rng.choice(KINDS)
    x = tensor_of(gen_values(kind, numel(shape)), shape)
    flavour = rng.choice(["leaf", "op", "op", "param", "param_frozen"])
    if flavour == "leaf":
        t = x.requires_grad_()
    elif flavour == "op":
        t, _ = with_grad_fn(x, rng.choice(GRAD_OPS))
    else:
        t = torch.nn.Parameter(x, requires_grad=(flavour == "param"))
    opts = random_options(t.numel())
    if rng.random() < 0.5:
        opts["linewidth"] = rng.randint(20, 90)
    add_case(t, opts)

# 5. A few larger summarised tensors under the default threshold (kept few: every value is stored).
for shape, kind in (([3, 1000], "normal"), ([7, 11, 14], "specials"), ([1200], "dyadic")):
    add_case(tensor_of(gen_values(kind, numel(shape)), shape), {})
big = tensor_of(gen_values("uniform01", 1500), [30, 50]).requires_grad_()
add_case(big * 1, {"edgeitems": 2})

# Every case stores one value per element.
for case in cases:
    assert len(case["values"]) == numel(case["shape"]), case

torch.set_printoptions(profile="default")
doc = {
    "generator": "tests/golden/gen_print.py",
    "torch_version": torch.__version__,
    "seed": SEED,
    "cases": cases,
}
with open(OUT, "w") as f:
    f.write(json.dumps(doc, sort_keys=True, separators=(",", ":")))
    f.write("\n")
print("%d cases, %d bytes -> %s" % (len(cases), os.path.getsize(OUT), OUT))
