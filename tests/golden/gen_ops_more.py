#!/usr/bin/python3
"""Writes tests/golden/ops_more.json: PyTorch 1.13's results and messages for the operations learners write
beyond the chapter's lines (shape ops, reductions, element-wise math, indexing, bmm, baddbmm, einsum) and for
the mistakes whose messages the core gives in PyTorch's words.

Each case names a PyTorch expression and the same call in the JavaScript API, as a list [op, ...args]:
op is a torch function of the API, or else a Tensor method called on the first argument; an argument that is
a string names one of the inputs, a list that starts with a string is such a call itself, null is left out.
A value case keeps the result (shape, dtype, float32 bits as hex words, grad_fn, printed text; a tuple of
results for unbind, split and chunk); an error case keeps PyTorch's message.

`bits` is false where PyTorch's CPU order is not known to be the core's (its vectorised log, its product's
lanes): there the printed text must agree, not every bit.

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_ops_more.py   (deterministic)
"""
import json
import os
import struct

import torch

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ops_more.json")
END = 2**53 - 1  # the API's "to the end" for a slice (Number.MAX_SAFE_INTEGER)


def bits(t):
    return " ".join(struct.pack(">f", float(v)).hex() for v in t.detach().float().reshape(-1).tolist())


def tensor(t):
    return {"shape": list(t.shape), "hex": bits(t), "dtype": "bool" if t.dtype == torch.bool else "float32",
            "grad_fn": type(t.grad_fn).__name__ if t.grad_fn is not None else None, "printed": str(t)}


def inputs():
    torch.manual_seed(20)
    x = torch.randn(2, 3, 4)
    m2 = torch.randn(3, 4)
    return {
        "x": x,
        "y": torch.randn(2, 4, 3),
        "m2": m2,
        "m2b": m2 + torch.tensor([[0, 1e-7, 1e-3, 0]] * 3),
        "pos": torch.rand(3, 4) + 0.1,
        "mask": m2 > 0,
        "rowmask": torch.tensor([True, False]),
        "u": x.unsqueeze(1).clone(),
        "v": torch.randn(3, 1),
        "w": torch.randn(4, 5),
        "b3": torch.randn(2, 3, 3),
        "b1": torch.randn(3),
        "q": torch.randn(2, 2, 3, 4),
        "k": torch.randn(2, 2, 5, 4),
        "a5": torch.randn(5),
        "a3": torch.randn(3),
        "wide": torch.randn(5, 21) * 3,  # rows of 8 lanes and a tail
        "deep": torch.randn(3, 7, 10) * 3,  # columns in a vector block of 8 and two past it
        "g": x.clone().requires_grad_(),  # a leaf that requires grad: the results' grad_fn names
        "o45": torch.ones(4, 5), "o34": torch.ones(3, 4), "o43": torch.ones(4, 3), "o5": torch.ones(5),
        "o4": torch.ones(4), "o23": torch.ones(2, 3), "o24": torch.ones(2, 4), "o41": torch.ones(4, 1),
        "o3": torch.ones(3), "o234": torch.ones(2, 3, 4), "o256": torch.ones(2, 5, 6), "o56": torch.ones(5, 6),
        "o346": torch.ones(3, 4, 6), "o243": torch.ones(2, 4, 3), "o33b": torch.ones(3, 3).bool(),
        "o423": torch.ones(4, 2, 3), "o0": torch.ones(0), "o20": torch.ones(2, 0), "s": torch.tensor(1.0),
        "tfmask": torch.tensor([True, False, True]), "v2": torch.tensor([5.0, 6.0]),
    }


# name: (PyTorch expression over the inputs, the JS call, whether the bits must agree)
VALUES = {
    "permute": ("x.permute(2, 0, 1)", ["permute", "x", 2, 0, 1]),
    "unbind(1)": ("x.unbind(1)", ["unbind", "x", 1]),
    "chunk(3, 2)": ("x.chunk(3, 2)", ["chunk", "x", 3, 2]),
    "chunk(2)": ("x.chunk(2)", ["chunk", "x", 2]),
    "split(3, 2)": ("x.split(3, 2)", ["split", "x", 3, 2]),
    "split([1, 3], 2)": ("x.split([1, 3], 2)", ["splitWithSizes", "x", [1, 3], 2]),
    "flatten(1)": ("x.flatten(1)", ["flatten", "x", 1]),
    "flatten(0, 1)": ("x.flatten(0, 1)", ["flatten", "x", 0, 1]),
    "flatten()": ("x.flatten()", ["flatten", "x"]),
    "T.flatten()": ("x.T.flatten()", ["flatten", ["T", "x"]]),
    "squeeze()": ("u.squeeze()", ["squeeze", "u"]),
    "squeeze(1)": ("u.squeeze(1)", ["squeeze", "u", 1]),
    "squeeze(0)": ("u.squeeze(0)", ["squeeze", "u", 0]),
    "expand(2, 3, 4)": ("v.expand(2, 3, 4)", ["expand", "v", 2, 3, 4]),
    "expand(-1, 4)": ("v.expand(-1, 4)", ["expand", "v", -1, 4]),
    "repeat(2, 1, 2)": ("m2.repeat(2, 1, 2)", ["repeat", "m2", 2, 1, 2]),
    "movedim(0, 2)": ("x.movedim(0, 2)", ["movedim", "x", 0, 2]),
    "x[:, ::2]": ("x[:, ::2]", ["slice", "x", 1, 0, END, 2]),
    "x[..., 1::2]": ("x[..., 1::2]", ["slice", "x", 2, 1, END, 2]),
    "m2[mask]": ("m2[mask]", ["indexMask", "m2", "mask"]),
    "x[rowmask]": ("x[rowmask]", ["indexMask", "x", "rowmask"]),
    "m2[[0, 2]]": ("m2[[0, 2]]", ["indexSelect", "m2", 0, [0, 2]]),
    "m2[:, [3, 1, -4]]": ("m2[:, [3, 1, -4]]", ["indexSelect", "m2", 1, [3, 1, -4]]),
    "sum((0, 2))": ("x.sum((0, 2))", ["sum", "x", [0, 2]]),
    "sum((0, 1, 2))": ("x.sum((0, 1, 2))", ["sum", "x", [0, 1, 2]]),
    "sum((1, 2), keepdim=True)": ("x.sum((1, 2), keepdim=True)", ["sum", "x", [1, 2], True]),
    "mean()": ("x.mean()", ["mean", "x"]),
    "mean(1)": ("x.mean(1)", ["mean", "x", 1]),
    "mean((0, 2), keepdim=True)": ("x.mean((0, 2), keepdim=True)", ["mean", "x", [0, 2], True]),
    "var()": ("x.var()", ["var", "x"]),
    "var(1)": ("x.var(1)", ["var", "x", 1]),
    "var(1, unbiased=False)": ("x.var(1, unbiased=False)", ["var", "x", 1, 0]),
    "std()": ("x.std()", ["std", "x"]),
    "std((0, 2), keepdim=True)": ("x.std((0, 2), keepdim=True)", ["std", "x", [0, 2], 1, True]),
    "max()": ("x.max()", ["max", "x"]),
    "min()": ("x.min()", ["min", "x"]),
    "amax(1)": ("x.amax(1)", ["amax", "x", 1]),
    "amin((0, 2), keepdim=True)": ("x.amin((0, 2), keepdim=True)", ["amin", "x", [0, 2], True]),
    "prod()": ("pos.prod()", ["prod", "pos"], False),
    "prod(1)": ("pos.prod(1)", ["prod", "pos", 1]),
    "cumsum(1)": ("x.cumsum(1)", ["cumsum", "x", 1]),
    "cumsum(-1)": ("x.cumsum(-1)", ["cumsum", "x", -1]),
    "abs()": ("x.abs()", ["abs", "x"]),
    "log()": ("pos.log()", ["log", "pos"], False),
    "sqrt()": ("pos.sqrt()", ["sqrt", "pos"]),
    "rsqrt()": ("pos.rsqrt()", ["rsqrt", "pos"]),
    "clamp(-0.5, 0.5)": ("x.clamp(-0.5, 0.5)", ["clamp", "x", -0.5, 0.5]),
    "clamp(min=0)": ("x.clamp(min=0)", ["clamp", "x", 0]),
    "clamp(max=0)": ("x.clamp(max=0)", ["clamp", "x", None, 0]),
    "where(mask, m2, pos)": ("torch.where(mask, m2, pos)", ["where", "mask", "m2", "pos"]),
    "where(mask, m2, 0-d)": ("torch.where(mask, m2, s)", ["where", "mask", "m2", "s"]),
    "isclose(m2, m2b)": ("torch.isclose(m2, m2b)", ["isclose", "m2", "m2b"]),
    "log_softmax(-1)": ("x.log_softmax(-1)", ["logSoftmax", "x", -1]),
    "log_softmax(1)": ("x.log_softmax(1)", ["logSoftmax", "x", 1]),
    "wide log_softmax(-1)": ("wide.log_softmax(-1)", ["logSoftmax", "wide", -1]),
    "deep log_softmax(1)": ("deep.log_softmax(1)", ["logSoftmax", "deep", 1]),
    "bmm(x, y)": ("torch.bmm(x, y)", ["bmm", "x", "y"]),
    "baddbmm(b3, x, y)": ("torch.baddbmm(b3, x, y)", ["baddbmm", "b3", "x", "y"]),
    "baddbmm(b1, x, y, beta=0.5, alpha=2)": ("torch.baddbmm(b1, x, y, beta=0.5, alpha=2)",
                                             ["baddbmm", "b1", "x", "y", {"beta": 0.5, "alpha": 2}]),
    # alpha scales batch1's element before its product (sgemm on the transposed problem): 0.3 and 1.5 tell
    "baddbmm(b3, x, y, alpha=0.3)": ("torch.baddbmm(b3, x, y, alpha=0.3)", ["baddbmm", "b3", "x", "y", {"alpha": 0.3}]),
    "baddbmm(b3, x, y, beta=0, alpha=1.5)": ("torch.baddbmm(b3, x, y, beta=0, alpha=1.5)",
                                             ["baddbmm", "b3", "x", "y", {"beta": 0, "alpha": 1.5}]),
    "einsum('bij,bkj->bik', x, x)": ("torch.einsum('bij,bkj->bik', x, x)", ["einsum", "bij,bkj->bik", ["x", "x"]]),
    "einsum('bij,bjk->bik', x, y)": ("torch.einsum('bij,bjk->bik', x, y)", ["einsum", "bij,bjk->bik", ["x", "y"]]),
    "einsum('ij,jk->ik', m2, w)": ("torch.einsum('ij,jk->ik', m2, w)", ["einsum", "ij,jk->ik", ["m2", "w"]]),
    "einsum('bhqd,bhkd->bhqk', q, k)": ("torch.einsum('bhqd,bhkd->bhqk', q, k)",
                                        ["einsum", "bhqd,bhkd->bhqk", ["q", "k"]]),
    "einsum('ij->ji', m2)": ("torch.einsum('ij->ji', m2)", ["einsum", "ij->ji", ["m2"]]),
    "einsum('bij->bj', x)": ("torch.einsum('bij->bj', x)", ["einsum", "bij->bj", ["x"]]),
    "einsum('i,j->ij', a5, a3)": ("torch.einsum('i,j->ij', a5, a3)", ["einsum", "i,j->ij", ["a5", "a3"]]),
    "einsum('ij,ij->i', m2, m2b)": ("torch.einsum('ij,ij->i', m2, m2b)", ["einsum", "ij,ij->i", ["m2", "m2b"]]),
    "einsum('ij,jk', m2, w)": ("torch.einsum('ij,jk', m2, w)", ["einsum", "ij,jk", ["m2", "w"]]),
    # grad_fn names, from a leaf that requires grad
    "g.mean()": ("g.mean()", ["mean", "g"]),
    "g.var(1)": ("g.var(1)", ["var", "g", 1]),
    "g.amax(1)": ("g.amax(1)", ["amax", "g", 1]),
    "g.cumsum(0)": ("g.cumsum(0)", ["cumsum", "g", 0]),
    "g.clamp(0, 1)": ("g.clamp(0, 1)", ["clamp", "g", 0, 1]),
    "g.permute(2, 0, 1)": ("g.permute(2, 0, 1)", ["permute", "g", 2, 0, 1]),
    "g.expand(3, 2, 3, 4)": ("g.expand(3, 2, 3, 4)", ["expand", "g", 3, 2, 3, 4]),
    "g.repeat(1, 2, 1)": ("g.repeat(1, 2, 1)", ["repeat", "g", 1, 2, 1]),
    "g.unbind(0)": ("g.unbind(0)", ["unbind", "g", 0]),
    "g.split([1, 3], 2)": ("g.split([1, 3], 2)", ["splitWithSizes", "g", [1, 3], 2]),
    "bmm(g, y)": ("torch.bmm(g, y)", ["bmm", "g", "y"]),
    "g.sum((0, 1))": ("g.sum((0, 1))", ["sum", "g", [0, 1]]),
}

# name: (PyTorch expression, the JS call); PyTorch's message is recorded.
ERRORS = {
    "4x5 @ 3x4": ("o45 @ o34", ["matmul", "o45", "o34"]),
    "[5] @ [4]": ("o5 @ o4", ["matmul", "o5", "o4"]),
    "[3,4] @ [5]": ("o34 @ o5", ["matmul", "o34", "o5"]),
    "[5] @ [4,3]": ("o5 @ o43", ["matmul", "o5", "o43"]),
    "[2,3,4] @ [2,5,6]": ("o234 @ o256", ["matmul", "o234", "o256"]),
    "[2,3,4] @ [5,6]": ("o234 @ o56", ["matmul", "o234", "o56"]),
    "[3,4] @ [2,5,6]": ("o34 @ o256", ["matmul", "o34", "o256"]),
    "[2,3,4] @ [3,4,6]": ("o234 @ o346", ["matmul", "o234", "o346"]),
    "[2,3,4] @ [5]": ("o234 @ o5", ["matmul", "o234", "o5"]),
    "[5] @ [2,4,3]": ("o5 @ o243", ["matmul", "o5", "o243"]),
    "0-d @ matrix": ("torch.matmul(s, o34)", ["matmul", "s", "o34"]),
    "linear(ones(4, 5), weight [4, 3])": ("torch.nn.functional.linear(o45, o43)", ["linear", "o45", "o43"]),
    "linear(ones(5), weight [4, 3])": ("torch.nn.functional.linear(o5, o43)", ["linear", "o5", "o43"]),
    "linear(ones(2, 3, 4), weight [4, 3])": ("torch.nn.functional.linear(o234, o43)", ["linear", "o234", "o43"]),
    "dot lengths": ("torch.dot(o3, o4)", ["dot", "o3", "o4"]),
    "dot of matrices": ("torch.dot(o23, o3)", ["dot", "o23", "o3"]),
    "view of a transpose": ("o23.T.view(6)", ["view", ["T", "o23"], 6]),
    "view(4)": ("o23.view(4)", ["view", "o23", 4]),
    "view(-1, -1)": ("o23.view(-1, -1)", ["view", "o23", -1, -1]),
    "reshape(4)": ("o23.reshape(4)", ["reshape", "o23", 4]),
    "sum(2)": ("o23.sum(2)", ["sum", "o23", 2]),
    "softmax(-3)": ("o23.softmax(-3)", ["softmax", "o23", -3]),
    "transpose(0, 2)": ("o23.transpose(0, 2)", ["transpose", "o23", 0, 2]),
    "unsqueeze(3)": ("o23.unsqueeze(3)", ["unsqueeze", "o23", 3]),
    "size(5)": ("o23.size(5)", ["size", "o23", 5]),
    "0-d size(0)": ("s.size(0)", ["size", "s", 0]),
    "select(0, 5)": ("o23.select(0, 5)", ["select", "o23", 0, 5]),
    "select(1, -4)": ("o23.select(1, -4)", ["select", "o23", 1, -4]),
    "m2[[0, 5]]": ("m2[[0, 5]]", ["indexSelect", "m2", 0, [0, 5]]),
    "permute(0)": ("o23.permute(0)", ["permute", "o23", 0]),
    "permute(0, 0)": ("o23.permute(0, 0)", ["permute", "o23", 0, 0]),
    "permute(1, 2)": ("o23.permute(1, 2)", ["permute", "o23", 1, 2]),
    "[2,4] + [2,3]": ("o24 + o23", ["add", "o24", "o23"]),
    "[4,1] * [2,3]": ("o41 * o23", ["mul", "o41", "o23"]),
    "masked_fill with a [3,3] mask on [2,3]": ("o23.masked_fill(o33b, 0.)", ["maskedFill", "o23", "o33b", 0]),
    "add_ that would grow": ("o23.add_(o423)", ["add_", "o23", "o423"]),
    "cat of [2,3] and [2,4]": ("torch.cat([o23, o24])", ["cat", ["o23", "o24"]]),
    "cat of [2,3] and [3]": ("torch.cat([o23, o3])", ["cat", ["o23", "o3"]]),
    "cat of 0-d tensors": ("torch.cat([s, s])", ["cat", ["s", "s"]]),
    "stack of [2,3] and [2,4]": ("torch.stack([o23, o24])", ["stack", ["o23", "o24"]]),
    "chunk(0)": ("o23.chunk(0)", ["chunk", "o23", 0]),
    "split(-1)": ("o23.split(-1)", ["split", "o23", -1]),
    "split([2, 3], 1)": ("o23.split([2, 3], 1)", ["splitWithSizes", "o23", [2, 3], 1]),
    "split([2, 3, -4], 1)": ("o23.split([2, 3, -4], 1)", ["splitWithSizes", "o23", [2, 3, -4], 1]),
    "unbind(2)": ("o23.unbind(2)", ["unbind", "o23", 2]),
    "expand(2, 4)": ("o23.expand(2, 4)", ["expand", "o23", 2, 4]),
    "expand(3)": ("o23.expand(3)", ["expand", "o23", 3]),
    "expand(-1, 2, 3)": ("o23.expand(-1, 2, 3)", ["expand", "o23", -1, 2, 3]),
    "repeat(2)": ("o23.repeat(2)", ["repeat", "o23", 2]),
    "repeat(2, -1)": ("o23.repeat(2, -1)", ["repeat", "o23", 2, -1]),
    "flatten(1, 0)": ("o23.flatten(1, 0)", ["flatten", "o23", 1, 0]),
    "squeeze(2)": ("o23.squeeze(2)", ["squeeze", "o23", 2]),
    "movedim(0, 2)": ("o23.movedim(0, 2)", ["movedim", "o23", 0, 2]),
    "mean(5)": ("o23.mean(5)", ["mean", "o23", 5]),
    "mean((0, 0))": ("o23.mean((0, 0))", ["mean", "o23", [0, 0]]),
    "var(2)": ("o23.var(2)", ["var", "o23", 2]),
    "prod(2)": ("o23.prod(2)", ["prod", "o23", 2]),
    "cumsum(2)": ("o23.cumsum(2)", ["cumsum", "o23", 2]),
    "log_softmax(2)": ("o23.log_softmax(2)", ["logSoftmax", "o23", 2]),
    "max() of nothing": ("o0.max()", ["max", "o0"]),
    "amax() of nothing": ("o0.amax()", ["amax", "o0"]),
    "amax(1) over a dim of 0": ("o20.amax(1)", ["amax", "o20", 1]),
    "clamp()": ("o23.clamp()", ["clamp", "o23"]),
    "where with a float condition": ("torch.where(o23, o23, o3)", ["where", "o23", "o23", "o3"]),
    "where that does not broadcast": ("torch.where(o23 > 0, o23, o4)", ["where", ["gt", "o23", 0], "o23", "o4"]),
    "bmm of matrices": ("torch.bmm(o23, o23)", ["bmm", "o23", "o23"]),
    "bmm [2,3,4] [2,5,6]": ("torch.bmm(o234, o256)", ["bmm", "o234", "o256"]),
    "bmm [2,3,4] [3,4,6]": ("torch.bmm(o234, o346)", ["bmm", "o234", "o346"]),
    "baddbmm whose input does not expand": ("torch.baddbmm(b3, o234, o243.repeat(1, 1, 2))",
                                             ["baddbmm", "b3", "o234", ["repeat", "o243", 1, 1, 2]]),
    "einsum sizes": ("torch.einsum('ij,jk->ik', o23, o45)", ["einsum", "ij,jk->ik", ["o23", "o45"]]),
    "einsum operands": ("torch.einsum('ij,jk', o23)", ["einsum", "ij,jk", ["o23"]]),
    "einsum subscripts": ("torch.einsum('ijk,jk->ik', o23, o34)", ["einsum", "ijk,jk->ik", ["o23", "o34"]]),
    "einsum output": ("torch.einsum('ij->k', o23)", ["einsum", "ij->k", ["o23"]]),
    "x[tfmask]": ("x[tfmask]", ["indexMask", "x", "tfmask"]),
    "x[mask of floats]": ("x[o23]", ["indexMask", "x", "o23"]),
    "m2[mask] = v2": ("m2.clone().__setitem__(mask, v2)", ["indexPutMask_", ["clone", "m2"], "mask", "v2"]),
}


def main():
    t = inputs()
    scope = {"torch": torch, **t}
    out = {"inputs": {name: tensor(v) for name, v in t.items()}, "values": {}, "errors": {}}
    for name, (expr, call, *exact) in VALUES.items():
        result = eval(expr, scope)  # noqa: S307  (our own expressions)
        value = [tensor(r) for r in result] if isinstance(result, tuple) else tensor(result)
        out["values"][name] = {"torch": expr, "js": call, "bits": exact[0] if exact else True, "result": value}
    for name, (expr, call) in ERRORS.items():
        try:
            eval(expr, scope)  # noqa: S307
        except (RuntimeError, IndexError, ValueError) as error:
            out["errors"][name] = {"torch": expr, "js": call, "type": type(error).__name__, "message": str(error)}
        else:
            raise SystemExit(f"{name}: {expr} raised no error")
    out["equal"] = {"m2, m2": torch.equal(t["m2"], t["m2"]), "m2, m2b": torch.equal(t["m2"], t["m2b"]),
                    "o23, o3": torch.equal(t["o23"], t["o3"])}
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
