# Module bookkeeping, printing and the tensor operators learners reach for.
# %%
import torch
import torch.nn as nn

class Causal(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("mask", torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.W_query(x), self.W_key(x), self.W_value(x)
        s = q @ k.transpose(1, 2)
        s.masked_fill_(self.mask.bool()[:n, :n], -torch.inf)
        w = self.dropout(torch.softmax(s / k.shape[-1] ** 0.5, dim=-1))
        return w @ v

class Heads(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads):
        super().__init__()
        self.heads = nn.ModuleList([Causal(d_in, d_out, context_length, dropout, qkv_bias=True)
                                    for _ in range(num_heads)])
        self.out = nn.Linear(d_out * num_heads, d_out * num_heads)

    def forward(self, x):
        return self.out(torch.cat([h(x) for h in self.heads], dim=-1))

torch.manual_seed(3)
x = torch.rand(2, 4, 3)
model = Heads(3, 2, 4, 0.5, num_heads=2)
model
# %%
print([name for name, _ in model.named_parameters()])
print(len(list(model.parameters())), model.heads[1].W_key.bias)
print(model.heads[0].mask)
# %%
torch.manual_seed(9)
print(model(x))
model.eval()
print(model(x))
print(model.training, model.heads[0].dropout.training)
# %%
y = model(x)
print(y[:, 1:3, -1], y[1, ..., 0], y[None].shape)
print(y.view(2, 4, 2, 2).transpose(1, 2).contiguous().view(2, 4, 4)[0, 0])
print(y.reshape(-1, 4).T.shape, y.flatten().shape, y.unsqueeze(1).shape)
# %%
t = torch.tensor([[1.0, -2.0, 3.0], [0.5, 0.25, -0.125]])
print(-t, t ** 2, 1 - t, 2 / t, t / 4, t * t, t + 1, 3 * t, sep="\n")
print(t > 0, t <= 0.25, t == 3.0, t != -2, sep="\n")
# %%
u = torch.zeros(2, 3)
u[0] = torch.tensor([1.0, 2.0, 3.0])
u[1, 1:] = 7
u[:, 0] += 0.5
u += t
print(u)
print(u.sum(), u.sum(dim=0), u.sum(-1, keepdim=True), u.exp()[0])
# %%
torch.set_printoptions(precision=2)
print(y[0])
torch.set_printoptions(profile="default")
print(torch.stack([t, t], dim=1).shape, torch.cat((t, t)).shape)
with torch.no_grad():
    z = model(x)
print(z.requires_grad, z.grad_fn, y.requires_grad)
# %%
s = torch.tensor(0.123456)
print(f"{s:.3f}", f"{s}", float(s), s.item() > 0.1, bool(s > 0.1), int(torch.tensor(3.7)))
print(torch.Size([2, 3]), x.shape[1:], x.size(), x.size(-1), x.dim(), x.numel())
