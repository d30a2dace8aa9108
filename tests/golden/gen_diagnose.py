#!/usr/bin/python3
"""Writes tests/golden/diagnose.json: what Debian's PyTorch 1.13 prints for the chapter's code run with one known
change, for tests/node/diagnose-torch.test.js, which checks that diagnose() names exactly that change first.

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_diagnose.py
Each case: { id, step (the step to search, or null for all), printed (str() of the tensor), change (the kind, name
and value expected, or null when the settings as they are print it) }.
"""
import json
import os

import torch

from torch_modules import SelfAttentionV2, Causal, MHA

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


def case(id, step, tensor, change):
    cases.append({"id": id, "step": step, "printed": str(tensor), "change": change})


# seed: SelfAttention_v2 seeded with 42 instead of 789
torch.manual_seed(42)
case("seedV2-42", "self-attention-v2", SelfAttentionV2(3, 2)(inputs), {"kind": "seed", "name": "seedV2", "to": 42})

# seed: W_query as a Parameter, drawn after manual_seed(1234) instead of 123
torch.manual_seed(1234)
case("seed-1234-parameter", None, torch.nn.Parameter(torch.rand(3, 2)), {"kind": "seed", "name": "seed", "to": 1234})

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
