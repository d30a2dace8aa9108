# A learner goes past the book's lines: one QKV projection split with permute and unbind, einsum and bmm for
# the scores, masks built by indexing, statistics of the weights, and the mistakes PyTorch names.
# %%
import torch
torch.manual_seed(123)
x = torch.rand(2, 6, 4)
b, t, d = x.shape
print(b, t, d, x.dim(), x.ndim, x.numel(), x.size(-1))
# %%
qkv_proj = torch.nn.Linear(4, 3 * 4, bias=False)
qkv = qkv_proj(x).view(b, t, 3, 2, 2).permute(2, 0, 3, 1, 4)
print(qkv.shape)
q, k, v = qkv.unbind(0)
print(q.shape, q.is_contiguous())
# %%
scores = torch.einsum('bhqd,bhkd->bhqk', q, k)
same = q @ k.transpose(-2, -1)
print(torch.equal(scores, same), scores[0, 1])
# %%
flat = torch.bmm(q.flatten(0, 1), k.flatten(0, 1).transpose(1, 2))
print(flat.shape, torch.allclose(flat.view(b, 2, t, t), scores))
# %%
mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
scores.masked_fill_(mask, -torch.inf)
weights = torch.softmax(scores / k.shape[-1] ** 0.5, dim=-1)
print(weights[1, 0])
# %%
print(weights.sum(dim=-1))
print(weights.mean(), weights.var(), weights.std(dim=(0, 1), unbiased=False))
print(weights.amax(-1), weights.max(), weights.min())
# %%
ctx = (weights @ v).transpose(1, 2).flatten(2)
print(ctx.shape)
print(ctx)
# %%
a, c = ctx.chunk(2, dim=-1)
first, rest = ctx.split([1, 3], dim=-1)
print(a.shape, c.shape, first.shape, rest.shape)
print(torch.cat([a, c], dim=-1).equal(ctx))
# %%
m = torch.tensor([[1., 0., 1.], [0., 1., 1.]])
m[m == 1.] = 2.
print(m, m[m > 0], m[[1, 0]], m[:, ::2], m[None, 1].shape)
# %%
print(torch.where(m > 1, m, torch.zeros_like(m)).cumsum(dim=1), m.clamp(max=1.5), m.log_softmax(-1))
print(m.prod(), m.abs().sqrt(), m.squeeze().unsqueeze(0).expand(3, 2, 3).shape, m.repeat(2, 1).shape)
# %%
print(torch.isclose(m, m + 1e-9), m.movedim(0, 1).shape, m.sum((0, 1)), torch.baddbmm(m[None], m[None, :, :2], m[None]))
# %%
ctx @ ctx
# %%
ctx.transpose(1, 2).view(2, 24)
# %%
ctx.sum(dim=3)
# %%
torch.cat([ctx, weights])
# %%
qs = q.transpose(1, 2)
print(qs.is_contiguous(), qs.stride(), qs.stride(-1), qs.storage_offset(), q[:, 1].storage_offset())
# %%
m[:, [2, 0]] = 5.
m[m < 1] = torch.tensor(-1.)
print(m, m.T[[1]], m.mean(dim=0, keepdim=True))
# %%
print(weights.var(dim=-1, correction=0)[0, 0], torch.var(weights, (2, 3), keepdim=True).shape, weights.std(False))
print(torch.einsum('ij,jk', m, m.T), torch.einsum('ij->', m))
print(torch.split(m, 2, dim=1), torch.chunk(m, 3, 1)[2], torch.unbind(m, 1)[0], m.unbind()[1])
# %%
m[m]
