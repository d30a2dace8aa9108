#!/usr/bin/python3
"""Writes tests/golden/diagnose.json: what Debian's PyTorch 1.13 prints for the chapter's code run with one known
change, for tests/node/diagnose-torch.test.js, which checks that diagnose() names exactly that change first.

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_diagnose.py
Each case: { id, step (the step to search, or null for all), printed (str() of the tensor), change (the kind, name
and value expected, or null when the settings as they are print it), and settings (the page's, when not the book's) }.
"""
import json
import os

import torch

from torch_modules import SelfAttentionV2, Causal, Wrapper, MHA

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "diagnose.json")
inputs = torch.tensor([
    [0.43, 0.15, 0.89],
    [0.55, 0.87, 0.66],
    [0.57, 0.85, 0.64],
    [0.22, 0.58, 0.33],
    [0.77, 0.25, 0.10],
    [0.05, 0.80, 0.55],
])
batch = torch.stack((inputs, inputs), dim=0)
cases = []


def case(id, step, tensor, change, settings=None):
    cases.append({"id": id, "step": step, "printed": str(tensor), "change": change, **({"settings": settings} if settings else {})})


def causal_forward(layers, x, mistake=None):
    """One head of CausalAttention's forward (W_query, W_key, W_value as nn.Linear), with one learner mistake."""
    W_query, W_key, W_value = layers
    keys, queries, values = W_key(x), W_query(x), W_value(x)
    t = x.shape[1]
    mask = torch.triu(torch.ones(t, t), diagonal=1).bool()
    scores = queries @ keys.transpose(1, 2)
    if mistake == "masked-fill-copy":
        scores.masked_fill(mask, -torch.inf)  # the masked copy is thrown away
    elif mistake == "fill-zero":
        scores.masked_fill_(mask, 0)
    elif mistake != "mask-after-softmax":
        scores.masked_fill_(mask, -torch.inf)
    weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
    if mistake == "mask-after-softmax":
        weights = weights.masked_fill(mask, 0)
    return weights @ values


def heads_of(module):
    return (module.W_query, module.W_key, module.W_value)


# seed: SelfAttention_v2 seeded with 42 instead of 789
torch.manual_seed(42)
case("seedV2-42", "self-attention-v2", SelfAttentionV2(3, 2)(inputs), {"kind": "seed", "name": "seedV2", "to": 42})

# seed: W_query as a Parameter, drawn after manual_seed(1234) instead of 123
torch.manual_seed(1234)
case("seed-1234-parameter", None, torch.nn.Parameter(torch.rand(3, 2)), {"kind": "seed", "name": "seed", "to": 1234})

# seeds of the range 0-10,000 for results a seed reaches after its first draws (seed-scan.js), and a common seed for
# the values: the keys of 3.4.1, 3.5.1's masked weights, MultiHeadAttention's output
torch.manual_seed(4321)
W_query, W_key = torch.rand(3, 2), torch.rand(3, 2)
case("seed-4321-keys", "keys-values", inputs @ W_key, {"kind": "seed", "name": "seed", "to": 4321})
torch.manual_seed(3407)
W_query, W_key, W_value = torch.rand(3, 2), torch.rand(3, 2), torch.rand(3, 2)
case("seed-3407-values", "keys-values", inputs @ W_value, {"kind": "seed", "name": "seed", "to": 3407})
torch.manual_seed(4321)
sa_v2 = SelfAttentionV2(3, 2)
queries, keys = sa_v2.W_query(inputs), sa_v2.W_key(inputs)
scores = (queries @ keys.T).masked_fill(torch.triu(torch.ones(6, 6), diagonal=1).bool(), -torch.inf)
case("seedV2-4321-masked-weights", "causal-softmax", torch.softmax(scores / keys.shape[-1] ** 0.5, dim=1), {"kind": "seed", "name": "seedV2", "to": 4321})
torch.manual_seed(9001)
case("seed-9001-mha-out", "mha-output", MHA(3, 2, 6, 0.0, 2)(batch), {"kind": "seed", "name": "seed", "to": 9001})

# draws: the SelfAttention_v2 cell run twice
torch.manual_seed(789)
SelfAttentionV2(3, 2)
case("v2-cell-twice", "self-attention-v2", SelfAttentionV2(3, 2)(inputs), {"kind": "draws", "name": "seedV2", "to": 18})

# mistake: softmax over dim=0
case("softmax-dim0", "all-weights", torch.softmax(inputs @ inputs.T, dim=0), {"kind": "mistake", "name": "softmax-dim0", "to": "torch.softmax(attn_scores, dim=0)"})

# mistakes the page has no switch for: 0 instead of -inf in masked_fill, d_k instead of sqrt(d_k)
torch.manual_seed(789)
sa_v2 = SelfAttentionV2(3, 2)
queries, keys = sa_v2.W_query(inputs), sa_v2.W_key(inputs)
mask = torch.triu(torch.ones(6, 6), diagonal=1)
scores = (queries @ keys.T).masked_fill(mask.bool(), 0)
case("fill-zero", None, torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1),
     {"kind": "mistake", "name": "fill-zero", "to": "attn_scores.masked_fill(mask.bool(), 0)"})
torch.manual_seed(123)
W_query, W_key = torch.rand(3, 2), torch.rand(3, 2)
attn_scores_2 = (inputs[1] @ W_query) @ (inputs @ W_key).T
case("divide-by-d_k", None, torch.softmax(attn_scores_2 / 2, dim=-1),
     {"kind": "mistake", "name": "divide-by-d_k-q2", "to": "attn_scores_2 / d_k"})

# mistakes inside a class's forward: the softmax over dim=0 in SelfAttention_v2, the scores from the values in v1
torch.manual_seed(789)
sa_v2 = SelfAttentionV2(3, 2)
queries, keys, values = sa_v2.W_query(inputs), sa_v2.W_key(inputs), sa_v2.W_value(inputs)
case("v2-softmax-dim0", None, torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=0) @ values,
     {"kind": "mistake", "name": "softmax-dim0-in-sa_v2", "to": "torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=0)"})
torch.manual_seed(123)
W_query, W_key, W_value = torch.rand(3, 2), torch.rand(3, 2), torch.rand(3, 2)
queries, keys, values = inputs @ W_query, inputs @ W_key, inputs @ W_value
case("v1-scores-from-values", "self-attention-v1", torch.softmax(queries @ values.T / keys.shape[-1] ** 0.5, dim=-1) @ values,
     {"kind": "mistake", "name": "scores-from-values-in-sa_v1", "to": "attn_scores = queries @ values.T"})

# setting: MultiHeadAttention with d_out=4 (each head 2 wide, as the wrapper's d_out=2)
torch.manual_seed(123)
case("mha-d_out-4", "mha-output", MHA(3, 4, 6, 0.0, 2)(batch), {"kind": "setting", "name": "d_out", "to": 4})

# setting: qkv_bias=True
torch.manual_seed(789)
case("v2-bias", "self-attention-v2", SelfAttentionV2(3, 2, qkv_bias=True)(inputs), {"kind": "setting", "name": "qkv_bias", "to": True})

# mistakes inside CausalAttention's forward, and inside every head of the wrapper
for mistake in ("masked-fill-copy", "fill-zero", "mask-after-softmax"):
    torch.manual_seed(123)
    code = {"masked-fill-copy": "attn_scores.masked_fill(mask_bool, -torch.inf)", "fill-zero": "attn_scores.masked_fill_(mask_bool, 0)",
            "mask-after-softmax": "attn_weights = attn_weights.masked_fill(mask_bool, 0)  # after the softmax"}[mistake]
    case(f"ca-{mistake}", None, causal_forward(heads_of(Causal(3, 2, 6, 0.0)), batch, mistake),
         {"kind": "mistake", "name": f"{mistake}-in-ca", "to": code})
torch.manual_seed(123)
wrapper = Wrapper(3, 2, 6, 0.0, 2)
case("wrapper-mask-after-softmax", "wrapper", torch.cat([causal_forward(heads_of(h), batch, "mask-after-softmax") for h in wrapper.heads], dim=-1),
     {"kind": "mistake", "name": "mask-after-softmax-in-wrapper", "to": "attn_weights = attn_weights.masked_fill(mask_bool, 0)  # after the softmax"})

# MultiHeadAttention with d_out = 4: the scores divided by d_k, in every head
torch.manual_seed(123)
mha = MHA(3, 4, 6, 0.0, 2)
b, t = batch.shape[:2]
q, k, v = (l(batch).view(b, t, 2, 2).transpose(1, 2) for l in heads_of(mha))
scores = q @ k.transpose(2, 3)
scores.masked_fill_(mha.mask.bool()[:t, :t], -torch.inf)
ctx = (torch.softmax(scores / k.shape[-1], dim=-1) @ v).transpose(1, 2).contiguous().view(b, t, 4)
case("mha-divide-by-d_k", "mha-output", mha.out_proj(ctx), {"kind": "mistake", "name": "divide-by-d_k-in-mha", "to": "attn_scores / keys.shape[-1]"}, "d_out=4")

# MultiHeadAttention's out_proj = nn.Linear(d_out, d_in)
# (drawn where the class's __init__ draws it: after W_query, W_key and W_value, which draw the same as MHA's)
torch.manual_seed(123)
mha = MHA(3, 2, 6, 0.0, 2)
torch.manual_seed(123)
for _ in range(3):
    torch.nn.Linear(3, 2, bias=False)
mha.out_proj = torch.nn.Linear(2, 3)
case("mha-out-proj-d_in", None, mha(batch), {"kind": "mistake", "name": "out-proj-shape", "to": "self.out_proj = nn.Linear(d_out, d_in)"})

# training mode: CausalAttention and the wrapper built with dropout and used without .eval()
torch.manual_seed(123)
case("ca-training", None, Causal(3, 2, 6, 0.5)(batch), {"kind": "setting", "name": "training", "to": True})
torch.manual_seed(123)
case("wrapper-training", "wrapper", Wrapper(3, 2, 6, 0.2, 2)(batch), {"kind": "setting", "name": "training", "to": True})

# one head's columns: the wrapper's second head, MultiHeadAttention's context of its first head for one copy
torch.manual_seed(123)
with torch.no_grad():
    case("wrapper-head-1", "wrapper", Wrapper(3, 2, 6, 0.0, 2)(batch)[..., 2:4], None)
torch.manual_seed(123)
mha = MHA(3, 4, 6, 0.0, 2)
v = mha.W_value(batch).view(b, t, 2, 2).transpose(1, 2)
ctx = (mha.weights(batch) @ v).transpose(1, 2).contiguous().view(b, t, 4)
case("mha-context-head-0-copy", "mha-merge", ctx[0, :, 0:2], None, "d_out=4")

# no change, one copy of the batch and two decimals
torch.manual_seed(123)
case("ca-one-copy", "causal-attention", Causal(3, 2, 6, 0.0)(batch)[0], None)
torch.set_printoptions(precision=2)
torch.manual_seed(789)
case("v2-two-decimals", "self-attention-v2", SelfAttentionV2(3, 2)(inputs), None)
torch.set_printoptions(profile="default")

with open(OUT, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1, sort_keys=True)
    f.write("\n")
print(f"wrote {len(cases)} cases to {OUT}")
