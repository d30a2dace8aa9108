#!/usr/bin/python3
"""Write tests/golden/golden.json: PyTorch 1.13 CPU float32 results for the native golden tests.

Run with Debian's torch (non-MKL, AVX2 kernels): /usr/bin/python3 tests/golden/gen_golden.py
The output is deterministic: every input comes from a fixed seed, and the file is compact JSON with
sorted keys. Every float32 is stored as its 8-hex-digit bit pattern; a tensor is
{"shape": [...], "hex": "3f800000 ..."} plus, optionally, "views": a list of view ops (["T"] or
["transpose", d0, d1]) that the test applies, in order, to the contiguous stored tensor.

Groups:
  rng     : sequences of generator steps after manual_seed (rand, uniform_, randn, nn.Linear init,
            Dropout masks), each with the 32-bit draw count the rules of torch-rng.md §7 give.
            The counts are checked here against torch's own MT19937 state.
  ops     : sum, sum(dim), softmax, exp, matmul, dot, scalar div/mul/add/sub, Linear forward.
  modules : the chapter's attention modules built after manual_seed(seed), with their parameters,
            input and output.
"""
import json
import math
import os
import random
import struct
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_modules import MHA, Causal, SelfAttentionV1, SelfAttentionV2, Wrapper  # noqa: E402

torch.set_num_threads(1)

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "golden.json")


# ---------------------------------------------------------------------------------------------
# Encoding


def hex_bits(t):
    """Space-separated 8-digit hex bit patterns of a float32 tensor, row-major."""
    a = t.detach().contiguous().reshape(-1).numpy().view("<u4")
    return " ".join("%08x" % int(v) for v in a)


def enc(t, views=None):
    """A stored tensor; `views` (applied by the reader) turn the stored tensor into the operand."""
    assert t.dtype == torch.float32
    d = {"shape": list(t.shape), "hex": hex_bits(t)}
    if views:
        d["views"] = views
    return d


def apply_views(t, views):
    for v in views or []:
        if v[0] == "T":
            t = t.T
        elif v[0] == "transpose":
            t = t.transpose(v[1], v[2])
        else:
            raise ValueError(v)
    return t


def numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


# ---------------------------------------------------------------------------------------------
# A shadow MT19937 (Python's own engine, seeded like torch) to check every draw count exactly:
# after k draws, torch's 624-word state and its `next` index must equal the shadow's.


def _init_genrand(seed32):
    mt = [seed32]
    for j in range(1, 624):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + j) & 0xFFFFFFFF)
    return mt


def _torch_state():
    b = bytes(torch.get_rng_state().numpy())
    _seed, left, _seeded, nxt = struct.unpack_from("<QiiQ", b, 0)
    state = struct.unpack_from("<624Q", b, 24)
    _nx, normal_y, _rho, normal_valid = struct.unpack_from("<dddi", b, 24 + 624 * 8)
    return left, nxt, state, normal_valid


class Shadow:
    def __init__(self, seed):
        self.rng = random.Random()
        self.rng.setstate((3, tuple(_init_genrand(seed & 0xFFFFFFFF)) + (624,), None))
        self.count = 0

    def advance(self, k):
        if k:
            self.rng.getrandbits(32 * k)  # exactly k 32-bit words
        self.count += k

    def verify(self, spare_expected, where):
        left, nxt, state, normal_valid = _torch_state()
        py = self.rng.getstate()[1]
        ok = tuple(py[:624]) == tuple(state)
        if self.count == 0:
            ok = ok and left == 1 and nxt == 0
        else:
            ok = ok and py[624] == nxt
        if not ok:
            sys.exit("draw count mismatch at %s: expected %d draws" % (where, self.count))
        if bool(normal_valid) != spare_expected:
            sys.exit("normal spare mismatch at %s" % where)


# ---------------------------------------------------------------------------------------------
# Group a: generator streams


class Stream:
    """Runs generator steps on torch's default generator and records them."""

    def __init__(self, name, seed):
        self.case = {"name": name, "steps": []}
        self.prev = None
        self.seed(seed)

    def seed(self, s):
        torch.manual_seed(s)
        self.shadow = Shadow(s)
        self.spare = False
        self._done({"op": "seed", "seed": s}, 0)

    def _done(self, step, draws):
        self.shadow.advance(draws)
        where = "%s step %d (%s)" % (self.case["name"], len(self.case["steps"]), step["op"])
        self.shadow.verify(self.spare, where)
        step["draws"] = self.shadow.count
        self.case["steps"].append(step)

    def rand(self, shape):
        t = torch.rand(shape)
        self.prev = t
        self._done({"op": "rand", "shape": list(shape), "out": enc(t)}, t.numel())

    def uniform(self, shape, a, b):
        t = torch.empty(shape).uniform_(a, b)
        self.prev = t
        self._done({"op": "uniform", "shape": list(shape), "from": a, "to": b, "out": enc(t)}, t.numel())

    def randn(self, shape):
        t = torch.randn(shape)
        n = t.numel()
        draws = 0
        if n < 16:  # torch-rng.md §5a: the spare survives across calls
            for _ in range(n):
                if self.spare:
                    self.spare = False
                else:
                    draws += 4
                    self.spare = True
        else:  # §5b: never touches the spare
            draws = n + (16 if n % 16 else 0)
        self.prev = t
        self._done({"op": "randn", "shape": list(shape), "out": enc(t)}, draws)

    def linear(self, i, o, bias):
        lin = nn.Linear(i, o, bias=bias)
        step = {"op": "linear", "in_features": i, "out_features": o, "bias": bias, "weight": enc(lin.weight)}
        if bias:
            step["bias_value"] = enc(lin.bias)
        self._done(step, o * i + (o if bias else 0))

    def dropout(self, p, shape=None):
        """Dropout(p) in train mode on ones(shape), or on the previous step's output when shape is None."""
        x = torch.ones(shape) if shape is not None else self.prev
        d = nn.Dropout(p)
        d.train()
        y = d(x)
        step = {"op": "dropout", "p": p, "input": "ones" if shape is not None else "prev", "out": enc(y)}
        if shape is not None:
            step["shape"] = list(shape)
        self._done(step, 2 * x.numel() if 0 < p < 1 else 0)


SEEDS = [0, 1, 42, 123, 789, 2**32 + 5, -1, -12345, 2**63, 2**64 - 1]
SEEDS_SHORT = [0, 1, 42, 123, 2**32 + 5, -1, 2**64 - 1]  # randn and dropout, to keep the file small


def rng_cases():
    cases = []
    for si, s in enumerate(SEEDS):
        tag = "seed=%d" % s

        st = Stream("rand/" + tag, s)
        for shape in ([1], [7], [3, 5], [2, 3, 4], [13], [6, 6], [1, 1, 1], [33]):
            st.rand(shape)
        if si == 0:  # cross the 624-word twist twice
            st.rand([700])
            st.rand([611])
        cases.append(st.case)

        st = Stream("uniform/" + tag, s)
        for shape, a, b in (([9], -1.0, 1.0), ([4, 5], 0.0, 1.0), ([11], -0.5, 0.5),
                            ([3, 7], -1 / math.sqrt(7), 1 / math.sqrt(7)), ([10], 2.5, 7.25),
                            ([6], -3.0, -1e-3), ([17], -0.1, 0.3)):
            st.uniform(shape, a, b)
        cases.append(st.case)

        # nn.Linear right after seeding, then a sequence in construction order
        st = Stream("linear/" + tag, s)
        shapes = [(4, 3, True), (3, 2, False), (6, 6, True), (1, 5, True), (7, 2, True), (3, 4, False),
                  (5, 8, True)]
        if si == 0:
            shapes.append((48, 48, True))
        first = True
        for i, o, b in shapes:
            if not first:
                st.seed(s)
            first = False
            st.linear(i, o, b)
        cases.append(st.case)

        st = Stream("linear_seq/" + tag, s)
        for i, o, b in ((3, 2, False), (3, 2, False), (3, 2, False), (5, 4, True), (4, 4, True), (2, 3, True)):
            st.linear(i, o, b)
        cases.append(st.case)

        if s not in SEEDS_SHORT:
            continue

        # randn(n) right after seeding, both paths (< 16 and >= 16)
        st = Stream("randn_sizes/" + tag, s)
        first = True
        for n in list(range(1, 21)) + [31, 32, 33] + ([100] if si < 3 else []):
            if not first:
                st.seed(s)
            first = False
            st.randn([n])
        cases.append(st.case)

        # the < 16 spare carried across calls; >= 16 calls leave it alone
        st = Stream("randn_carry/" + tag, s)
        for shape in ([3], [1], [5], [2], [17], [1], [2, 3], [7], [6, 6], [3], [4], [1], [2, 2, 5], [1]):
            st.randn(shape)
        cases.append(st.case)

        st = Stream("randn_shapes/" + tag, s)
        for shape in ([6, 6], [2, 3], [4, 4], [3, 7], [2, 2, 5], [1, 15], [5, 1, 3]):
            st.randn(shape)
        cases.append(st.case)

        # Dropout masks (default, non-MKL path) on ones and on signed random values (-0 for dropped negatives)
        st = Stream("dropout/" + tag, s)
        first = True
        for p, shape in ((0.1, [6, 6]), (0.2, [2, 3, 4]), (0.5, [6, 6]), (0.75, [37]), (0.9, [5, 5])):
            if not first:
                st.seed(s)
            first = False
            st.dropout(p, shape)
            st.uniform([3, 7], -1.0, 1.0)
            st.dropout(p)
        st.seed(s)
        st.dropout(0.0, [2, 3])
        st.uniform([2, 3], -1.0, 1.0)
        st.dropout(0.0)
        st.dropout(1.0)
        st.rand([3])
        cases.append(st.case)

    # torch-rng.md §7: the verified 96-word sequence
    for s in (0, 123):
        st = Stream("sequence96/seed=%d" % s, s)
        st.rand([3, 2])
        st.rand([3, 2])
        st.rand([3, 2])
        st.linear(3, 4, True)
        st.linear(4, 4, True)
        st.linear(4, 2, True)
        st.dropout(0.5, [8])
        st.randn([2, 3])
        st.rand([4])
        assert st.shadow.count == 96
        cases.append(st.case)
    return cases


# ---------------------------------------------------------------------------------------------
# Group b: ops. Inputs come from a private generator per case; only their bits matter.


class Inputs:
    def __init__(self, seed):
        self.g = torch.Generator()
        self.g.manual_seed(seed)

    def uni(self, shape, lo=-1.0, hi=1.0):
        return torch.rand(shape, generator=self.g) * (hi - lo) + lo

    def normal(self, shape, scale=1.0):
        return torch.randn(shape, generator=self.g) * scale

    def mixed(self, shape):
        """Signed values whose magnitudes span several decades, so that summation order shows."""
        mag = torch.pow(10.0, self.uni(shape, -2.0, 2.0))
        return self.normal(shape) * mag


def ops_cases():
    cases = []
    k = [0]

    def inputs():
        k[0] += 1
        return Inputs(10000 + k[0])

    # sum(): full reductions of assorted sizes
    for n in list(range(1, 71)) + [100, 257, 1000]:
        g = inputs()
        x = g.mixed([n]) if n % 3 else g.uni([n], 0.0, 1.0)
        cases.append({"name": "sum/n=%d" % n, "op": "sum", "x": enc(x), "out": enc(x.sum())})
    for shape in ([6, 6], [3, 4, 5], [2, 9, 7]):
        g = inputs()
        x = g.mixed(shape)
        cases.append({"name": "sum/shape=%s" % shape, "op": "sum", "x": enc(x), "out": enc(x.sum())})
    g = inputs()
    base = g.mixed([9, 7])
    cases.append({"name": "sum/transposed[9,7]", "op": "sum", "x": enc(base, [["T"]]), "out": enc(base.T.sum())})

    # sum(dim, keepdim) for ranks 1-3 and every dim (one input, several results)
    shapes = ([5], [37], [6, 6], [6, 36], [3, 70], [9, 8], [17, 5], [4, 33], [2, 5, 7], [3, 4, 9],
              [2, 9, 33], [4, 3, 2], [2, 3, 40], [2, 1, 6], [3, 12, 5])
    for si, shape in enumerate(shapes):
        g = inputs()
        x = g.mixed(shape) if si % 2 else g.uni(shape, 0.0, 1.0)
        outs = []
        for d in range(len(shape)):
            for dim in (d, d - len(shape)):  # also negative dims
                keep = (dim + si) % 2 == 0
                outs.append({"dim": dim, "keepdim": keep, "out": enc(x.sum(dim=dim, keepdim=keep))})
        cases.append({"name": "sum_dim/shape=%s" % shape, "op": "sum_dim", "x": enc(x), "outs": outs})
    # memory order decides: reductions over transposed views
    for shape, views, dim in (([6, 6], [["T"]], 1), ([36, 6], [["T"]], 0), ([5, 9, 3], [["transpose", 0, 2]], 1)):
        g = inputs()
        x = g.mixed(shape)
        v = apply_views(x, views)
        cases.append({"name": "sum_dim/view%s" % shape, "op": "sum_dim", "x": enc(x, views),
                      "outs": [{"dim": dim, "keepdim": False, "out": enc(v.sum(dim=dim))}]})

    # softmax along every dim for ranks 1-3, with -inf entries and all -inf lines
    sm_shapes = ([1], [6], [8], [13], [4, 9], [6, 6], [3, 17], [9, 4], [2, 3, 5], [3, 5, 11], [2, 20, 3],
                 [2, 4, 8], [1, 7, 10], [4, 1, 9])
    ninf = float("-inf")
    for si, shape in enumerate(sm_shapes):
        g = inputs()
        x = g.normal(shape, 3.0)
        outs = []
        for d in range(len(shape)):
            dim = d if si % 2 == 0 else d - len(shape)
            outs.append({"dim": dim, "out": enc(torch.softmax(x, dim))})
        cases.append({"name": "softmax/shape=%s" % shape, "op": "softmax", "x": enc(x), "outs": outs})
        for d in range(len(shape)):
            if x.numel() == 1:
                continue
            dim = d if si % 2 == 0 else d - len(shape)
            xm = x.clone()
            mask = torch.rand(shape, generator=g.g) < 0.3
            xm[mask] = ninf
            if len(shape) > 1:
                # the first line along dim all -inf (NaN results); the last line along the next dim
                # all -inf except its last entry (exactly 1 and 0s)
                sl = [slice(0, 1)] * len(shape)
                sl[d] = slice(None)
                xm[tuple(sl)] = ninf
                other = (d + 1) % len(shape)
                sl[other] = slice(shape[other] - 1, shape[other])
                xm[tuple(sl)] = ninf
                if shape[d] > 1 and shape[other] > 1:
                    pos = [0] * len(shape)
                    pos[other] = shape[other] - 1
                    pos[d] = shape[d] - 1
                    xm[tuple(pos)] = 0.5
            cases.append({"name": "softmax_masked/shape=%s/dim=%d" % (shape, dim), "op": "softmax", "x": enc(xm),
                          "outs": [{"dim": dim, "out": enc(torch.softmax(xm, dim))}]})
    for vals in ([0.5, ninf, 0.25, ninf], [ninf, ninf], [ninf, 2.0, ninf, ninf, ninf, ninf, ninf, ninf, 1.0],
                 [ninf] * 11, [3.0, ninf, ninf, ninf, ninf, ninf, ninf, ninf, ninf, ninf, ninf, ninf, -1.0]):
        x = torch.tensor(vals)
        cases.append({"name": "softmax_masked/1d/n=%d/%d" % (len(vals), len(cases)), "op": "softmax",
                      "x": enc(x), "outs": [{"dim": 0, "out": enc(torch.softmax(x, 0))}]})
    # the chapter's scores, and softmax of a transposed view
    s = torch.tensor([0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865])
    cases.append({"name": "softmax/chapter_scores", "op": "softmax", "x": enc(s),
                  "outs": [{"dim": 0, "out": enc(torch.softmax(s, 0))}, {"dim": -1, "out": enc(torch.softmax(s, -1))}]})
    g = inputs()
    x = g.normal([9, 5], 2.0)
    cases.append({"name": "softmax/transposed[9,5]", "op": "softmax", "x": enc(x, [["T"]]),
                  "outs": [{"dim": dim, "out": enc(torch.softmax(x.T, dim))} for dim in (0, 1)]})

    # exp
    g = inputs()
    x = g.uni([1000], -110.0, 100.0)
    cases.append({"name": "exp/uniform[-110,100]", "op": "exp", "x": enc(x), "out": enc(torch.exp(x))})
    x = g.uni([37, 13], -10.0, 0.0)
    cases.append({"name": "exp/uniform[-10,0]", "op": "exp", "x": enc(x), "out": enc(torch.exp(x))})
    x = g.uni([7, 11], -1.0, 1.0)
    cases.append({"name": "exp/transposed", "op": "exp", "x": enc(x, [["T"]]), "out": enc(torch.exp(x.T))})
    special = torch.tensor([0.0, -0.0, 1.0, -0.5, 88.0, -100.0, -104.5, 88.72, 88.73, 89.0, 99.99, 100.0,
                            100.001, -87.0, -87.5, -95.0, -103.9, -103.99, -104.0, -104.001, 1e-8, -1e-8,
                            float("inf"), float("-inf"), float("nan"), 0.6931472, -0.6931472, 0.34657359,
                            1e-30, 3.0e38, -3.0e38])
    bits = torch.tensor([0xC0685832, 0xC04764E3, 0x00000001, 0x80000001, 0x7F7FFFFF, 0x42B17218, 0x42B17217,
                         0xC2CFF1B5, 0xC2CFF1B4, 0xC2D00000], dtype=torch.int64)
    bits = torch.where(bits >= 2**31, bits - 2**32, bits).to(torch.int32).view(torch.float32)
    special = torch.cat([special, bits])  # torch-numerics.md §2.1 examples, subnormals, overflow edges
    cases.append({"name": "exp/special", "op": "exp", "x": enc(special), "out": enc(torch.exp(special))})

    # matmul family
    def mm_case(name, a, b, a_views=None, b_views=None, op="matmul"):
        av, bv = apply_views(a, a_views), apply_views(b, b_views)
        out = torch.dot(av, bv) if op == "dot" else av @ bv
        cases.append({"name": name, "op": op, "a": enc(a, a_views), "b": enc(b, b_views), "out": enc(out)})

    r = random.Random(31337)
    for n in (1, 2, 3, 5, 7, 8, 9, 16, 17, 31, 33, 40, 100):
        g = inputs()
        mm_case("matmul/1d1d/k=%d" % n, g.normal([n]), g.normal([n]))
        g = inputs()
        mm_case("dot/k=%d" % n, g.uni([n], 0.0, 1.0), g.uni([n], 0.0, 1.0), op="dot")
    for _ in range(6):
        kk, nn_ = r.randint(1, 40), r.randint(1, 40)
        while kk * nn_ > 300:
            kk, nn_ = r.randint(1, 40), r.randint(1, 40)
        g = inputs()
        mm_case("matmul/1d2d/k=%d,n=%d" % (kk, nn_), g.normal([kk]), g.normal([kk, nn_]))
    for _ in range(6):
        m, kk = r.randint(1, 40), r.randint(1, 40)
        while m * kk > 300:
            m, kk = r.randint(1, 40), r.randint(1, 40)
        g = inputs()
        mm_case("matmul/2d1d/m=%d,k=%d" % (m, kk), g.normal([m, kk]), g.normal([kk]))
    dims2 = [(1, 1, 1), (1, 7, 1), (6, 3, 2), (6, 2, 6), (3, 40, 5), (40, 1, 3), (2, 5, 40), (17, 21, 3)]
    while len(dims2) < 16:  # assorted sizes in 1..40, kept small in total
        m, kk, n = r.randint(1, 40), r.randint(1, 40), r.randint(1, 40)
        if m * kk + kk * n + m * n <= 300:
            dims2.append((m, kk, n))
    for m, kk, n in dims2:
        g = inputs()
        mm_case("matmul/2d2d/m=%d,k=%d,n=%d" % (m, kk, n), g.normal([m, kk]), g.uni([kk, n]))
    for m, kk, n in [(6, 2, 6), (11, 13, 7), (5, 17, 9)]:
        g = inputs()
        mm_case("matmul/aT_b/m=%d,k=%d,n=%d" % (m, kk, n), g.normal([kk, m]), g.normal([kk, n]), [["T"]])
        g = inputs()
        mm_case("matmul/a_bT/m=%d,k=%d,n=%d" % (m, kk, n), g.normal([m, kk]), g.normal([n, kk]), None, [["T"]])
        g = inputs()
        mm_case("matmul/aT_bT/m=%d,k=%d,n=%d" % (m, kk, n), g.normal([kk, m]), g.normal([n, kk]), [["T"]], [["T"]])
    g = inputs()
    mm_case("matmul/1d_2dT", g.normal([9]), g.normal([4, 9]), None, [["T"]])
    g = inputs()
    mm_case("matmul/2dT_1d", g.normal([9, 4]), g.normal([9]), [["T"]])
    # batched: 3-D and 4-D, transposed views as in the chapter, broadcast batch dims
    batched = [
        ("3d/b=2", [2, 6, 3], [2, 3, 4], None, None),
        ("3d/keysT", [2, 6, 5], [2, 6, 5], None, [["transpose", 1, 2]]),
        ("3d/b=3", [3, 7, 9], [3, 9, 2], None, None),
        ("3d_2d", [2, 5, 7], [7, 3], None, None),
        ("2d_3d", [5, 7], [3, 7, 4], None, None),
        ("3d/broadcast1", [1, 4, 6], [3, 6, 5], None, None),
        ("3d/k=20", [2, 5, 20], [2, 20, 3], None, None),
        ("4d/heads", [2, 6, 3, 4], [2, 6, 3, 4], [["transpose", 1, 2]],
         [["transpose", 1, 2], ["transpose", 2, 3]]),
        ("4d/b=1", [1, 2, 3, 4], [1, 2, 4, 3], None, None),
        ("4d/broadcast", [2, 1, 3, 4], [3, 4, 5], None, None),
        ("4d/broadcast2", [1, 2, 5, 3], [3, 1, 3, 2], None, None),
        ("4d/weights_values", [1, 3, 8, 8], [1, 8, 3, 5], None, [["transpose", 1, 2]]),
    ]
    for name, sa, sb, va, vb in batched:
        g = inputs()
        mm_case("matmul/" + name, g.normal(sa), g.uni(sb), va, vb)

    # elementwise with Python floats (rounded to float32 first)
    scalars = [2 ** 0.5, 3 ** 0.5, 0.1, 1 / 3, 7.0, 1e-3, 6 ** 0.5, 48 ** 0.5, 12 ** 0.5, 1 / (1 - 0.1), -2.5,
               1e10, 2 ** 0.5 / 3]
    fns = {"div": lambda x, s: x / s, "mul": lambda x, s: x * s, "add": lambda x, s: x + s,
           "sub": lambda x, s: x - s}
    for i, s in enumerate(scalars):
        for op in ("div", "mul", "add", "sub"):
            if op == "sub" and i % 3:
                continue
            g = inputs()
            x = g.mixed([5, 7]) if i % 2 else g.uni([4, 9])
            cases.append({"name": "%s/s=%r" % (op, s), "op": op, "x": enc(x), "s": s, "out": enc(fns[op](x, s))})
    g = inputs()
    x = g.normal([6, 4])
    cases.append({"name": "div/transposed/s=sqrt2", "op": "div", "x": enc(x, [["T"]]), "s": 2 ** 0.5,
                  "out": enc(x.T / 2 ** 0.5)})

    # nn.Linear forward (weights given)
    lin_cfgs = [([3], 3, 2, True), ([3], 3, 2, False), ([6, 3], 3, 2, True), ([6, 3], 3, 2, False),
                ([2, 3], 3, 2, True), ([7, 5], 5, 4, True), ([2, 6, 3], 3, 2, True), ([2, 6, 3], 3, 2, False),
                ([3, 4, 8], 8, 6, True), ([1, 5, 7], 7, 7, False), ([9], 9, 1, True), ([4, 1], 1, 5, True),
                ([2, 3, 40], 40, 9, True)]
    for xs, i, o, b in lin_cfgs:
        g = inputs()
        x, w = g.uni(xs), g.normal([o, i], 0.5)
        bias = g.uni([o], -0.5, 0.5) if b else None
        y = torch.nn.functional.linear(x, w, bias)
        c = {"name": "linear/x=%s/out=%d/bias=%d" % (xs, o, b), "op": "linear", "x": enc(x), "weight": enc(w),
             "out": enc(y)}
        if b:
            c["bias"] = enc(bias)
        cases.append(c)
    return cases


# ---------------------------------------------------------------------------------------------
# Group c: the chapter's modules (tests/golden/torch_modules.py)


def module_case(kind, cfg, seed, x_source, mode, input_seed, store_params=True):
    """manual_seed(seed); build; [x = rand(shape)]; [eval()]; forward."""
    d_in, d_out = cfg["d_in"], cfg["d_out"]
    T, b = cfg["num_tokens"], cfg.get("batch", 1)
    x_shape = [T, d_in] if kind.startswith("SelfAttention") else [b, T, d_in]

    torch.manual_seed(seed)
    shadow = Shadow(seed)
    if kind == "SelfAttention_v1":
        m = SelfAttentionV1(d_in, d_out)
    elif kind == "SelfAttention_v2":
        m = SelfAttentionV2(d_in, d_out, cfg["qkv_bias"])
    elif kind == "CausalAttention":
        m = Causal(d_in, d_out, cfg["context_length"], cfg["dropout"], cfg["qkv_bias"])
    elif kind == "MultiHeadAttentionWrapper":
        m = Wrapper(d_in, d_out, cfg["context_length"], cfg["dropout"], cfg["num_heads"], cfg["qkv_bias"])
    else:
        m = MHA(d_in, d_out, cfg["context_length"], cfg["dropout"], cfg["num_heads"], cfg["qkv_bias"])
    params = {k: v for k, v in m.state_dict().items() if not k.endswith("mask")}
    shadow.advance(sum(v.numel() for v in params.values()))
    shadow.verify(False, kind + " build")
    draws = {"build": shadow.count}

    if x_source == "rand":
        x = torch.rand(x_shape)
        shadow.advance(numel(x_shape))
    else:
        x = Inputs(input_seed).uni(x_shape, -1.0, 1.0)
    draws["input"] = shadow.count
    if mode == "eval":
        m.eval()
    with torch.no_grad():
        y = m(x)
    p = cfg.get("dropout", 0.0)
    if mode == "train" and 0 < p < 1:  # 2 draws per attention weight (default bernoulli_ path)
        shadow.advance(2 * b * T * T * cfg.get("num_heads", 1))
    shadow.verify(False, kind + " forward")
    draws["forward"] = shadow.count

    name = "%s/seed=%d/%s/%s/%s" % (kind, seed, ",".join("%s=%s" % (k, cfg[k]) for k in sorted(cfg)), x_source, mode)
    case = {"name": name, "module": kind, "seed": seed, "config": cfg, "input": x_source, "mode": mode,
            "x": enc(x), "out": enc(y), "draws": draws}
    if store_params:
        case["params"] = {k: enc(v) for k, v in params.items()}
    return case


def module_cases():
    cases = []
    r = random.Random(20240603)
    kinds = ["SelfAttention_v1", "SelfAttention_v2", "CausalAttention", "MultiHeadAttentionWrapper",
             "MultiHeadAttention"]
    for kind in kinds:
        for i in range(14):
            seed = [123, 789, 0, -1, 2**32 + 5][i] if i < 5 else r.randint(0, 2**31)
            d_in = r.randint(1, 8)
            d_out = r.randint(1, 8)
            if i < 10 and d_out == d_in:  # mostly d_in != d_out
                d_out = d_in % 8 + 1
            T = r.randint(1, 8)
            cfg = {"d_in": d_in, "d_out": d_out, "num_tokens": T}
            if kind == "SelfAttention_v1":
                pass
            else:
                cfg["qkv_bias"] = bool(i % 2)
            if kind in ("CausalAttention", "MultiHeadAttentionWrapper", "MultiHeadAttention"):
                cfg["batch"] = r.randint(1, 3)
                cfg["context_length"] = T + r.choice([0, 0, 1, 3])
                cfg["dropout"] = [0.0, 0.5, 0.1, 0.0, 0.2, 0.75, 0.3][i % 7]
            if kind in ("MultiHeadAttentionWrapper", "MultiHeadAttention"):
                h = r.randint(1, 4)
                cfg["num_heads"] = h
                if kind == "MultiHeadAttention":
                    cfg["d_out"] = h * r.randint(1, 8 // h)
                else:
                    cfg["d_out"] = r.randint(1, 4)
                    cfg["batch"] = min(cfg["batch"], 4 - h // 2)  # keep the file small
            mode = "eval" if i % 5 == 4 else "train"
            x_source = "rand" if i % 3 != 2 else "given"
            cases.append(module_case(kind, cfg, seed, x_source, mode, 5000 + i))
    # the book's settings
    cases.append(module_case("SelfAttention_v1", {"d_in": 3, "d_out": 2, "num_tokens": 6}, 123, "rand", "train", 0))
    cases.append(module_case("SelfAttention_v2", {"d_in": 3, "d_out": 2, "num_tokens": 6, "qkv_bias": False}, 789,
                             "rand", "train", 0))
    book = {"d_in": 3, "d_out": 2, "num_tokens": 6, "batch": 2, "context_length": 6, "qkv_bias": False}
    cases.append(module_case("CausalAttention", dict(book, dropout=0.0), 123, "rand", "train", 0))
    cases.append(module_case("MultiHeadAttentionWrapper", dict(book, dropout=0.0, num_heads=2), 123, "rand",
                             "train", 0))
    cases.append(module_case("MultiHeadAttention", dict(book, dropout=0.0, num_heads=2), 123, "rand", "train", 0))
    # medium sizes; the largest stores no parameters (Linear(48,48) draws are in the rng group)
    cases.append(module_case("MultiHeadAttention",
                             {"d_in": 48, "d_out": 48, "num_tokens": 40, "batch": 1, "context_length": 40,
                              "dropout": 0.1, "num_heads": 4, "qkv_bias": True}, 2024, "rand", "train", 0,
                             store_params=False))
    cases.append(module_case("MultiHeadAttention",
                             {"d_in": 16, "d_out": 20, "num_tokens": 33, "batch": 1, "context_length": 40,
                              "dropout": 0.0, "num_heads": 4, "qkv_bias": False}, 7, "given", "eval", 77))
    cases.append(module_case("CausalAttention",
                             {"d_in": 24, "d_out": 12, "num_tokens": 40, "batch": 1, "context_length": 48,
                              "dropout": 0.5, "qkv_bias": False}, 11, "rand", "train", 0))
    cases.append(module_case("MultiHeadAttentionWrapper",
                             {"d_in": 16, "d_out": 6, "num_tokens": 40, "batch": 1, "context_length": 40,
                              "dropout": 0.2, "num_heads": 4, "qkv_bias": True}, 13, "rand", "train", 0))
    cases.append(module_case("SelfAttention_v2", {"d_in": 16, "d_out": 12, "num_tokens": 30, "qkv_bias": True}, 17,
                             "given", "train", 88))
    return cases


# ---------------------------------------------------------------------------------------------
# Sanity checks against torch-rng.md / torch-numerics.md, so that a different torch build is caught


def check_environment():
    if torch.backends.mkl.is_available():
        sys.exit("this torch has MKL; use Debian's /usr/bin/python3 (torch 1.13.1, no MKL)")
    torch.manual_seed(0)
    assert hex_bits(torch.rand(8)[:4]) == "3efe1558 3f44aa2f 3db533a8 3e073300"
    torch.manual_seed(123)
    assert hex_bits(nn.Dropout(0.5)(torch.ones(6, 6))[0]) == "40000000 40000000 00000000 40000000 40000000 00000000"
    torch.manual_seed(0)
    assert hex_bits(torch.randn(17)[[0, 1, 15, 16]]) == "bf901b85 bfd91446 bf57fb33 3f6e8c30"
    torch.manual_seed(0)
    assert hex_bits(torch.rand(6).sum()) == "401b4b93"
    torch.manual_seed(1)
    assert hex_bits(torch.softmax(torch.randn(4, 9), dim=0)[:, 8]) == "3d2c993d 3cdc697c 3f26748c 3e8fbd27"
    torch.manual_seed(0)
    lin = nn.Linear(3, 2)
    assert hex_bits(lin(torch.rand(2, 3))) == "3c884b98 3e35da98 bdb12708 3e9dd502"


def main():
    check_environment()
    data = {
        "meta": {
            "torch": torch.__version__,
            "generator": "tests/golden/gen_golden.py",
            "encoding": "float32 as 8-hex-digit bit patterns; tensors {shape, hex[, views]}",
            "nan": "NaN results are compared as NaN whatever their sign and payload",
        },
        "rng": rng_cases(),
        "ops": ops_cases(),
        "modules": module_cases(),
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    with open(OUT_PATH, "w") as f:
        f.write(text + "\n")
    print("wrote %s: %d bytes; rng %d, ops %d, modules %d cases" % (
        OUT_PATH, len(text) + 1, len(data["rng"]), len(data["ops"]), len(data["modules"])))


if __name__ == "__main__":
    main()
