# A learner goes past the book: devices, nn.init, multi-head attention with one QKV projection checked against
# nn.MultiheadAttention and scaled_dot_product_attention (PyTorch 2.x's, written out as its documented math
# where PyTorch 1.13 has none), parameter counts, state dicts and saving them.
# %%
import importlib.metadata
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

print(torch.__version__.startswith("1.13"), importlib.metadata.version("torch").startswith("1.13"))
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(device, repr(device), torch.backends.mps.is_available())
x = torch.rand(2, 3).to(device)
print(x.device, x.to("cpu").device == device, x.cpu().device, type(x), type(nn.Parameter(x)))
x.to(torch.device("cpu"), torch.float32).is_cuda
# %%
x.cuda()
# %%
torch.zeros(2, device="cuda:0")
# %%
torch.manual_seed(1)
w = torch.empty(3, 5)
nn.init.xavier_uniform_(w)
print(w.view(-1).tolist())
nn.init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
print(w.view(-1).tolist())
nn.init.kaiming_uniform_(w, a=math.sqrt(5))
print(w.view(-1).tolist())
print(nn.init.normal_(torch.empty(20), mean=1.0, std=0.5).tolist())
print(nn.init.xavier_normal_(torch.empty(2, 3), gain=nn.init.calculate_gain("tanh")).tolist())
print(torch.empty(3, 3).uniform_(-1, 1).tolist(), torch.empty(2).normal_(2.0, 0.1).tolist())
print(nn.init.zeros_(torch.empty(2)), nn.init.ones_(torch.empty(2)), nn.init.constant_(torch.empty(2), 0.25))
print(nn.init.calculate_gain("leaky_relu", 0.2), nn.init._calculate_fan_in_and_fan_out(torch.empty(4, 3, 2)))
# %%
nn.init.xavier_uniform_(torch.empty(5))
# %%
class MultiHeadAttentionCombinedQKV(nn.Module):
    def __init__(self, d_in, d_out, num_heads, context_length, dropout=0.0, qkv_bias=False):
        super().__init__()
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.d_out = d_out
        self.qkv = nn.Linear(d_in, 3 * d_out, bias=qkv_bias)
        self.proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))
        self.register_buffer("scratch", torch.zeros(1), persistent=False)

    def forward(self, x):
        b, n, _ = x.shape
        qkv = self.qkv(x).view(b, n, 3, self.num_heads, self.head_dim)
        qkv = qkv.permute(2, 0, 3, 1, 4)  # (3, b, heads, n, head_dim)
        queries, keys, values = qkv.unbind(0)
        scores = queries @ keys.transpose(-2, -1)
        scores = scores.masked_fill(self.mask.bool()[:n, :n], -torch.inf)
        weights = self.dropout(torch.softmax(scores / self.head_dim ** 0.5, dim=-1))
        context = (weights @ values).transpose(1, 2).contiguous().view(b, n, self.d_out)
        return self.proj(context)

torch.manual_seed(123)
inputs = torch.rand(2, 6, 4)
mha = MultiHeadAttentionCombinedQKV(4, 4, num_heads=2, context_length=6)
out = mha(inputs)
print(out)
print(sum(p.numel() for p in mha.parameters()), [name for name, _ in mha.named_parameters()])
print(mha.state_dict())
# %%
def sdpa_math(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch 2.x's scaled_dot_product_attention, as its documentation writes out the math."""
    L, S = query.size(-2), key.size(-2)
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    attn_bias = torch.zeros(L, S, dtype=query.dtype)
    if is_causal:
        assert attn_mask is None
        temp_mask = torch.ones(L, S, dtype=torch.bool).tril(diagonal=0)
        attn_bias = attn_bias.masked_fill(temp_mask.logical_not(), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == torch.bool:
            attn_bias = attn_bias.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            attn_bias = attn_mask + attn_bias
    attn_weight = query @ key.transpose(-2, -1) * scale_factor
    attn_weight = attn_weight + attn_bias
    attn_weight = torch.softmax(attn_weight, dim=-1)
    attn_weight = torch.dropout(attn_weight, dropout_p, train=True)
    return attn_weight @ value

sdpa = getattr(F, "scaled_dot_product_attention", sdpa_math)
b, n = inputs.shape[:2]
queries, keys, values = mha.qkv(inputs).view(b, n, 3, 2, 2).permute(2, 0, 3, 1, 4).unbind(0)
context = sdpa(queries, keys, values, is_causal=True)
out_sdpa = mha.proj(context.transpose(1, 2).contiguous().view(b, n, 4))
print(torch.allclose(out, out_sdpa), torch.allclose(out, out_sdpa, rtol=0, atol=1e-6))
print(context[1, 0].tolist())
causal = torch.ones(n, n).tril().bool()
print(torch.equal(sdpa(queries, keys, values, attn_mask=causal), context))
print(sdpa(queries, keys, values, attn_mask=torch.rand(n, n), scale=0.3)[0, 1])
torch.manual_seed(5)
print(sdpa(queries, keys, values, dropout_p=0.5)[1, 1])
# %%
torch.manual_seed(123)
mha_torch = nn.MultiheadAttention(4, 2, batch_first=True)
print(mha_torch)
print([(name, tuple(p.shape)) for name, p in mha_torch.named_parameters()])
print(sum(p.numel() for p in mha_torch.parameters()))
print(mha_torch.in_proj_weight[:3].tolist(), mha_torch.out_proj.weight[0].tolist())
out, weights = mha_torch(inputs, inputs, inputs, attn_mask=torch.ones(n, n).triu(1).bool())
print(out)
print(weights[0])
print(out[1, 5].tolist(), weights[1, 5].tolist())
# %%
out, weights = mha_torch(inputs, inputs, inputs, need_weights=True, average_attn_weights=False,
                         key_padding_mask=torch.tensor([[False] * 5 + [True], [False] * 6]))
print(weights.shape, weights[0, 1])
print(out[0, 0].tolist())
out, none = mha_torch(inputs, inputs, inputs, need_weights=False, attn_mask=torch.zeros(6, 6) - torch.ones(6, 6).triu(1) * 1e9)
print(none, out[0])
mha_torch.eval()
with torch.no_grad():  # PyTorch takes its fused kernel here: the same numbers to the last bit or so
    out_eval, weights_eval = mha_torch(inputs, inputs, inputs)
print(out_eval[1], weights_eval[0], out_eval.requires_grad)
mha_torch.train()
# %%
torch.manual_seed(2)
cross = nn.MultiheadAttention(4, 4, dropout=0.1, bias=False, add_bias_kv=True, add_zero_attn=True, kdim=3, vdim=5)
print([(name, tuple(p.shape)) for name, p in cross.named_parameters()])
print(cross.bias_k.view(-1).tolist())
q, k, v = torch.rand(3, 2, 4), torch.rand(5, 2, 3), torch.rand(5, 2, 5)
torch.manual_seed(3)
out, weights = cross(q, k, v)
print(out[0], weights[1])
cross.eval()
out, weights = cross(q[:, 0], k[:, 0], v[:, 0])
print(out.shape, weights.shape, weights[2].tolist())
# %%
state = mha_torch.state_dict()
print(list(state.keys()), type(state))
torch.save(state, "mha.pt")
restored = torch.load("mha.pt")
fresh = nn.MultiheadAttention(4, 2, batch_first=True)
print(fresh.load_state_dict(restored))
print(torch.equal(fresh.in_proj_weight, mha_torch.in_proj_weight), list(restored) == list(state))
torch.save({"model": mha.state_dict(), "step": 3, "sizes": (4, 4)}, "checkpoint.pt")
checkpoint = torch.load("checkpoint.pt")
print(checkpoint["step"], checkpoint["sizes"], list(checkpoint["model"].keys()))
print(checkpoint["model"]["mask"])
try:
    fresh.load_state_dict(mha.state_dict())
except RuntimeError as error:
    print(error)
print(fresh.load_state_dict({k: v for k, v in state.items() if k != "in_proj_bias"}, strict=False))
try:
    mha.load_state_dict({**mha.state_dict(), "proj.bias": torch.zeros(3)})
except RuntimeError as error:
    print(error)
os.remove("mha.pt")
os.remove("checkpoint.pt")
# %%
import io

torch.manual_seed(0)
obj = {"scalar": torch.tensor(2.5), "mask": torch.ones(2, 2).bool(), "empty": torch.zeros(0, 3),
       "nested": [torch.rand(2), (1, "two", None, 0.5, True)], "param": nn.Parameter(torch.ones(2)),
       "grad": torch.ones(3).requires_grad_()}
torch.save(obj, "obj.pt")
back = torch.load("obj.pt")
os.remove("obj.pt")
print(back["scalar"], back["mask"], back["empty"], back["nested"], back["param"], back["grad"])
print(type(back["param"]), back["empty"].shape, back["scalar"].shape, torch.equal(back["nested"][0], obj["nested"][0]))
buffer = io.BytesIO()
torch.save(nn.Linear(2, 1).state_dict(), buffer)
buffer.seek(0)
print(torch.load(buffer))
with open("linear.pt", "wb") as f:
    torch.save([torch.ones(2, 2).triu()], f)
with open("linear.pt", "rb") as f:
    print(torch.load(f, map_location="cpu"))
os.remove("linear.pt")
# %%
torch.manual_seed(7)
model = nn.Sequential(nn.Linear(3, 4), nn.Dropout(0.5), nn.Linear(4, 2))

def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)

print(model.apply(init_weights))
model.eval()
print([m.training for m in model], model.training, model(torch.ones(2, 3)))
model.train()
print([m.training for m in model], sum(p.numel() for p in model.parameters() if p.requires_grad))
# %%
torch.manual_seed(123)
token_embedding = nn.Embedding(6, 3)
print(token_embedding, token_embedding.weight)
print(nn.Embedding(4, 2, padding_idx=1).weight)
try:
    token_embedding(torch.tensor([1.0, 2.0]))
except RuntimeError as error:
    print(error)
try:
    F.embedding(torch.ones(2, 2).bool(), token_embedding.weight)
except RuntimeError as error:
    print(error)
# %%
torch.manual_seed(123)
norm = nn.LayerNorm(4)
print(norm, nn.LayerNorm((2, 3), eps=1e-6, elementwise_affine=False))
with torch.no_grad():
    print(norm(out_sdpa)[0], F.layer_norm(torch.randn(2, 2, 3), (2, 3))[1])
print([name for name, _ in norm.named_parameters()], sum(p.numel() for p in norm.parameters()))
try:
    norm(torch.zeros(2, 3))
except RuntimeError as error:
    print(error)
# %%
torch.zeros(2).foo
