# Mistakes that stop a cell, and the notebook going on after them.
# %%
import torch
torch.manual_seed(1)
a = torch.rand(3, 4)
b = torch.rand(3, 4)
# %%
c = a @ b
print("not reached")
# %%
for i in range(3)
    print(i)
# %%
print(undefined_variable)
# %%
def scores(x, y):
    return x @ y.T

print(scores(a, b).shape)
print(scores(a, torch.rand(4, 5)))
# %%
print(a[3])
# %%
c = a @ b.T
print(c.shape)
c.view(9, 2)
# %%
print(c.shape[0], len(c), c.view(-1).shape)
# %%
mask = torch.triu(torch.ones(3, 3), diagonal=1)
scores = torch.rand(3, 3)
scores.masked_fill(mask.bool(), -torch.inf)  # a float mask is refused: .bool() makes it a mask
