#!/usr/bin/python3
"""Writes the chapter's MultiHeadAttention as an ONNX graph, for onnxruntime-web in scripts/bench/ort.mjs.

    ort_model.py OUT.onnx [--seed 123] [--tokens 1024] [--d 768] [--heads 12] [--batch 1]

The module is tests/golden/torch_modules.MHA (the book's class: causal mask, dropout 0, out_proj), built
right after torch.manual_seed(seed), so its nn.Linear weights are the ones this project's
MultiHeadAttention draws after the same torch.manualSeed (the core reproduces that init bit for bit).
The graph has a fixed input shape [batch, tokens, d] named "x" and one output "y". torch.onnx.export
needs no onnx Python package. Prints one JSON line: the file, its size, torch's version, the opset and the
graph's operators (Constant left out).
"""
import argparse
import collections
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "golden"))
from torch_modules import MHA  # noqa: E402

OPSET = 17  # the newest torch 1.13 writes


def fields(buf):
    """(field number, wire type, value) of one protobuf message; LEN values as bytes."""
    i = 0

    def varint():
        nonlocal i
        shift = value = 0
        while True:
            byte = buf[i]
            i += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return value

    while i < len(buf):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            yield number, wire, varint()
        elif wire == 2:
            n = varint()
            yield number, wire, buf[i:i + n]
            i += n
        elif wire in (1, 5):
            i += 8 if wire == 1 else 4
        else:
            raise ValueError(f"protobuf wire type {wire}")


def operators(model_bytes):
    """The op_type of every node of the ONNX model's graph (ModelProto.graph = 7, GraphProto.node = 1,
    NodeProto.op_type = 4): read here, since the onnx Python package is not needed for the export."""
    for number, wire, graph in fields(model_bytes):
        if number == 7 and wire == 2:
            for n, w, node in fields(graph):
                if n == 1 and w == 2:
                    yield next(v.decode() for f, t, v in fields(node) if f == 4 and t == 2)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=123)
    parser.add_argument("--tokens", type=int, default=1024)
    parser.add_argument("--d", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--batch", type=int, default=1)
    a = parser.parse_args()
    if a.tokens < 1 or a.d < 1 or a.heads < 1 or a.batch < 1 or a.d % a.heads:
        parser.error(f"sizes: tokens {a.tokens}, d {a.d}, heads {a.heads}, batch {a.batch} "
                     "(all >= 1, heads must divide d)")
    torch.manual_seed(a.seed)
    model = MHA(a.d, a.d, a.tokens, 0.0, a.heads).eval()
    x = torch.zeros(a.batch, a.tokens, a.d)  # only its shape is traced
    export = dict(opset_version=OPSET, do_constant_folding=True, input_names=["x"], output_names=["y"])
    with torch.no_grad():
        torch.onnx.export(model, (x,), a.out, **export)
    with open(a.out, "rb") as f:
        ops = collections.Counter(operators(f.read()))
    ops.pop("Constant", None)
    print(json.dumps({"path": a.out, "bytes": os.path.getsize(a.out), "torch": torch.__version__, "opset": OPSET,
                      "ops": dict(ops)}), flush=True)


if __name__ == "__main__":
    main()
