# What a learner gets wrong with PyTorch's own modules and devices, and what PyTorch says back.
# %%
import torch
import torch.nn as nn
import torch.nn.functional as F

for name in ["cpu", "cpu:0", "cuda:1", "mps"]:
    d = torch.device(name)
    print(repr(d), str(d), d.type, d.index, d == torch.device("cpu"))
print(torch.cuda.device_count(), torch.device("cpu") in {torch.device("cpu")})
for bad in ["gpu", "cuda:x"]:
    try:
        torch.device(bad)
    except RuntimeError as error:
        print(error)
# %%
nn.Linear(2, 2).to("cuda")
# %%
nn.Linear(2, 2).cuda()
# %%
try:
    torch.rand(2).to("mps")
except RuntimeError as error:
    print(error)
torch.rand(2).to("cpu:0").device
# %%
nn.MultiheadAttention(6, 4)
# %%
nn.init.calculate_gain("swish")
# %%
nn.init.kaiming_uniform_(torch.empty(3, 3), mode="fan_avg")
# %%
torch.manual_seed(0)
mha = nn.MultiheadAttention(4, 2)
x = torch.rand(3, 1, 4)
try:
    mha(x, x, x, attn_mask=torch.zeros(3, 4))
except RuntimeError as error:
    print(error)
out, weights = mha(x, x, x, attn_mask=torch.zeros(2, 3, 3))
print(weights)
mha(x, x, x, attn_mask=torch.zeros(3))
# %%
mha(x, x, torch.rand(3, 1, 5))
# %%
mha(torch.rand(1, 3, 1, 4), x, x)
# %%
linear = nn.Linear(3, 2)
try:
    linear.load_state_dict({"weight": torch.zeros(2, 4), "bias": torch.zeros(2)})
except RuntimeError as error:
    print(error)
try:
    linear.load_state_dict({"weight": [[0.0] * 3] * 2, "bias": torch.zeros(2)})
except RuntimeError as error:
    print(error)
print(linear.load_state_dict({"weight": torch.ones(2, 3), "bias": torch.zeros(2)}), linear.weight)
print(linear.state_dict(keep_vars=True)["weight"].requires_grad, linear.state_dict()["weight"].requires_grad)

class WithBuffers(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("kept", torch.ones(2))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)
        self.inner = nn.Sequential(nn.Linear(2, 1, bias=False))

m = WithBuffers()
print(list(m.state_dict()), [n for n, _ in m.named_buffers()], len(list(m.parameters())))
print(type(linear), type(linear.weight), type(nn.MultiheadAttention(2, 1).out_proj), type(m.inner))
print(type(nn.MultiheadAttention(2, 1)), type(nn.Embedding(2, 2)), type(nn.LayerNorm(2)), type(nn.Dropout()), type(m))
# %%
try:
    torch.load("no-such-file.pt")
except FileNotFoundError as error:
    print(type(error).__name__, error.filename)
# %%
torch.manual_seed(1)
sdpa = getattr(F, "scaled_dot_product_attention", None)
q = torch.rand(1, 3, 4)
print(sdpa is None or sdpa(q, q, q, scale=0.0).shape == q.shape)
embedding = nn.Embedding(10, 4, padding_idx=-1)
print(embedding, embedding.weight[9], embedding.padding_idx)
nn.Embedding(3, 2, padding_idx=3)
# %%
torch.cuda.manual_seed(1)
torch.cuda.manual_seed_all(1)
print(torch.cuda.is_initialized(), torch.cuda.memory_allocated(), torch.backends.mps.is_built(),
      torch.backends.cuda.is_built())
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False
print(torch.backends.cudnn.is_available(), torch.backends.cudnn.enabled, torch.backends.cudnn.deterministic,
      torch.backends.cudnn.version())
torch.cuda.current_device()
