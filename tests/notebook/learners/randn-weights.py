# Embeddings and weights drawn with torch.randn under a seed; a class written from memory.
# %%
import torch
import torch.nn as nn

torch.manual_seed(7)
x = torch.randn(5, 4)
print(x)
# %%
class MyAttention(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.Wq = nn.Parameter(torch.randn(d_in, d_out))
        self.Wk = nn.Parameter(torch.randn(d_in, d_out))
        self.Wv = nn.Parameter(torch.randn(d_in, d_out))

    def forward(self, x):
        q = x @ self.Wq
        k = x @ self.Wk
        v = x @ self.Wv
        scores = q @ k.T
        weights = torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1)
        return weights @ v

torch.manual_seed(11)
att = MyAttention(4, 2)
print(att.Wq)
out = att(x)
out
# %%
for name, p in att.named_parameters():
    print(name, p.shape, p.requires_grad)
print(sum(p.numel() for p in att.parameters()))
att
# %%
out.grad_fn.name()
# %%
print(out.shape, out.dtype, out.requires_grad, out.is_leaf, att.Wq.is_leaf)
print(out.detach())
print(out[0].tolist() == [float(v) for v in out[0]])
