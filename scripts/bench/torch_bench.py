#!/usr/bin/python3
"""PyTorch's side of scripts/bench.mjs: answers one JSON line per command read from stdin.

Commands: `mha <batch>` (the book's MultiHeadAttention(768, 768, 1024, 0.0, 12) forward, eval, no_grad),
`first <batch>` (a fresh module, its first forward), `gemm` (1024x768 @ 768x768), `quit`.
One thread (torch.set_num_threads(1)); the first line says which torch and BLAS this is.
"""
import json
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests", "golden"))
from torch_modules import MHA  # noqa: E402

torch.set_num_threads(1)
T, D, HEADS = 1024, 768, 12


def model(batch):
    torch.manual_seed(123)
    m = MHA(D, D, T, 0.0, HEADS).eval()
    return m, torch.rand(batch, T, D)


def timed(f):
    t0 = time.perf_counter()
    with torch.no_grad():
        f()
    return (time.perf_counter() - t0) * 1e3


def main():
    blas = "mkl" if torch.backends.mkl.is_available() else "system BLAS (Debian: netlib or its alternative)"
    print(json.dumps({"ready": True, "torch": torch.__version__, "threads": torch.get_num_threads(), "blas": blas}),
          flush=True)
    models = {}
    a, b = torch.rand(1024, 768), torch.rand(768, 768)
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        batch = int(words[1]) if len(words) > 1 else 1
        if words[0] in ("mha", "first"):
            if words[0] == "first" or batch not in models:
                models[batch] = model(batch)
            m, x = models[batch]
            print(json.dumps({"ms": timed(lambda: m(x))}), flush=True)
        elif words[0] == "gemm":
            print(json.dumps({"ms": timed(lambda: a @ b)}), flush=True)
        else:
            print(json.dumps({"error": "unknown command"}), flush=True)


if __name__ == "__main__":
    main()
