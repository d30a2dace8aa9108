#!/usr/bin/python3
"""Write tests/golden/gpt2_mha.json: a compact summary of PyTorch 1.13's MultiHeadAttention forward at
GPT-2 size, for the fast path's tests (tests/native/test_fast.cpp, tests/node/fast.test.js).

Run with Debian's torch (non-MKL, netlib BLAS): /usr/bin/python3 tests/golden/gen_gpt2.py
The module is the book's MultiHeadAttention(768, 768, 1024, 0.0, 12) built after manual_seed(123), in eval
mode; its input is torch.rand(b, 1024, 768) drawn right after it. The 3 MB output is not stored: only
  out       : selected elements (rows x columns of batch entry 0), as float32 bit patterns;
  row_sums  : the float64 sum of every output row of batch entry 0 (decimal text, 12 significant digits);
  queries   : the same selected elements of W_query(x) (the projections keep PyTorch's bits on every path);
  weights   : one head's attention weights at a few (query, key) places (attentionWeights' exact bits).
"""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_modules import MHA  # noqa: E402

torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "gpt2_mha.json")

CONFIG = {"d_in": 768, "d_out": 768, "context_length": 1024, "dropout": 0.0, "num_heads": 12,
          "qkv_bias": False, "num_tokens": 1024, "batch": 1, "seed": 123}
ROWS = [0, 1, 2, 63, 64, 65, 127, 128, 500, 1023]
COLS = [0, 1, 2, 63, 64, 383, 384, 700, 767]
HEAD = 5
WEIGHT_ROWS = [0, 1, 64, 200, 1023]


def hex_bits(t):
    a = t.detach().contiguous().reshape(-1).numpy().view("<u4")
    return " ".join("%08x" % int(v) for v in a)


def main():
    if torch.backends.mkl.is_available():
        raise SystemExit("this torch has MKL; use Debian's /usr/bin/python3 (torch 1.13.1, no MKL)")
    c = CONFIG
    torch.manual_seed(c["seed"])
    m = MHA(c["d_in"], c["d_out"], c["context_length"], c["dropout"], c["num_heads"], c["qkv_bias"])
    x = torch.rand(c["batch"], c["num_tokens"], c["d_in"])
    m.eval()
    with torch.no_grad():
        y = m(x)
        q = m.W_query(x)
        w = m.weights(x)[0, HEAD]
    rows, cols = torch.tensor(ROWS), torch.tensor(COLS)
    weight_cols = sorted({0, 1} | {r for r in WEIGHT_ROWS} | {max(r - 1, 0) for r in WEIGHT_ROWS})
    data = {
        "meta": {
            "torch": torch.__version__,
            "generator": "tests/golden/gen_gpt2.py",
            "encoding": "out, queries, weights: float32 bit patterns, row-major over rows x cols; "
                        "row_sums: float64 sums of every output row of batch entry 0",
        },
        "config": c,
        "rows": ROWS,
        "cols": COLS,
        "out": hex_bits(y[0][rows][:, cols]),
        "queries": hex_bits(q[0][rows][:, cols]),
        "row_sums": ["%.12g" % v for v in y[0].double().sum(dim=1).tolist()],
        "head": HEAD,
        "weight_rows": WEIGHT_ROWS,
        "weight_cols": weight_cols,
        "weights": hex_bits(w[torch.tensor(WEIGHT_ROWS)][:, torch.tensor(weight_cols)]),
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    with open(OUT_PATH, "w") as f:
        f.write(text + "\n")
    print("wrote %s: %d bytes" % (OUT_PATH, len(text) + 1))


if __name__ == "__main__":
    main()
