# Integer, double and bool tensors as a learner meets them: token ids, arange and positions, argmax of the
# attention weights, counting a mask, type promotion, conversions and creation functions.
# %%
import torch
token_ids = torch.tensor([[40, 367, 2885, 1464], [1807, 3619, 402, 271]])
print(token_ids)
print(token_ids.dtype, token_ids.shape, token_ids.type())
# %%
positions = torch.arange(token_ids.shape[1])
print(positions, positions.dtype)
print(torch.arange(2, 11, 3), torch.arange(0, 1, 0.125))
print(torch.arange(0.5, 3))
# %%
torch.manual_seed(123)
scores = torch.rand(4, 6)
weights = torch.softmax(scores, dim=-1)
print(weights.argmax(dim=-1))
print(weights.argmax(), weights.argmin(dim=0, keepdim=True))
best = weights.max(dim=-1)
print(best)
values, indices = torch.max(weights, dim=1)
print(values, indices)
print(weights.max(), weights.min())
# %%
mask = torch.triu(torch.ones(4, 4), diagonal=1).bool()
print(mask.sum(), mask.sum(dim=1), (~mask).sum().item())
print(mask & ~mask.T, mask | mask.T)
print((mask.long() * 3).tolist())
# %%
ids = torch.tensor([1, 2, 3])
print(ids + 1, ids * 2, ids - 1)
print(ids + 1.5, ids / 2, ids * 0.5)
print(ids / ids, ids ** 2, 2 ** ids)
print(ids + torch.tensor(0.25), ids + torch.tensor([0.25], dtype=torch.float64))
print(ids > 1, ids == torch.tensor([1., 2.5, 3.]))
print(torch.tensor([True, False]) + 1, torch.tensor([True, False]) + 0.5)
# %%
x = torch.tensor([0.5, -1.7, 2.9])
print(x.long(), x.double(), x.to(torch.int64), x.to(torch.float64).float())
print(x.bool(), torch.tensor([0, 3]).bool(), x.type(torch.long))
print(x.double() * 3, x.double().sum(), x.long().sum())
# %%
print(torch.linspace(0, 1, 5), torch.linspace(-1, 1, 4, dtype=torch.float64))
print(torch.eye(3), torch.eye(2, 3, dtype=torch.long))
print(torch.full((2, 3), 7), torch.full((2,), 0.5), torch.full((1, 2), True))
print(torch.zeros(2, dtype=torch.long), torch.ones(2, 2, dtype=torch.float64), torch.empty(0, dtype=torch.int64))
print(torch.zeros_like(ids), torch.ones_like(x), torch.full_like(ids, 4), torch.zeros_like(x, dtype=torch.long))
# %%
print(torch.tensor([[1, 2], [3, 4.5]]), torch.tensor([True, 2]), torch.tensor(7), torch.tensor(True))
print(torch.tensor([1, 2], dtype=torch.float64), torch.tensor([], dtype=torch.long), torch.tensor([1, 2], device="cpu"))
print(torch.get_default_dtype(), torch.long, torch.double, torch.float, torch.int64 is torch.long)
t = torch.tensor([[10, 20], [30, 40]])
print(t[1, 0].item() + 1, type(t[1, 0].item()), [5, 6, 7][torch.tensor(2)], torch.tensor(2.5).item())
# %%
print(torch.tensor([1, 2]) - torch.tensor([True, False]))
# %%
print(torch.tensor([1.5]) & torch.tensor([1.]))
# %%
print(torch.tensor([2, 3]) ** -1)
# %%
print(torch.tensor([True]).argmax())
# %%
ids32 = torch.tensor([5, -6, 7], dtype=torch.int32)
print(ids32, ids32 + 1, ids32 + ids, ids32 * 0.5, ids32.sum(), ids32.max(0), ids32.argmin())
print(torch.tensor([1.9, -2.7]).int(), torch.tensor([2 ** 40 + 5]).int(), torch.int, ids32.type(), ids32.tolist())
print(torch.arange(4, dtype=torch.int32), torch.zeros(2, dtype=torch.int), torch.empty(0, dtype=torch.int32))
# %%
print(torch.tensor([2 ** 40], dtype=torch.int32))
