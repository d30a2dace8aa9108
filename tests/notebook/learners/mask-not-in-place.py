# masked_fill without the underscore returns a new tensor: the mask is dropped and future tokens leak in.
# %%
import torch
import torch.nn as nn

torch.manual_seed(123)
inputs = torch.rand(2, 5, 3)
batch, tokens, d_in = inputs.shape
q_proj, k_proj = nn.Linear(d_in, 4, bias=False), nn.Linear(d_in, 4, bias=False)
scores = q_proj(inputs) @ k_proj(inputs).transpose(1, 2)
mask = torch.triu(torch.ones(tokens, tokens), diagonal=1)
print(mask.bool())
# %%
leaky = scores.clone()
leaky.masked_fill(mask.bool(), -torch.inf)  # the result is thrown away
print(torch.softmax(leaky / 2.0, dim=-1)[0])
# %%
causal = scores.clone()
causal.masked_fill_(mask.bool()[:tokens, :tokens], -torch.inf)
print(causal[0])
weights = torch.softmax(causal / 4 ** 0.5, dim=-1)
print(weights[0])
print(weights[1, -1])
# %%
masked = scores.masked_fill(mask == 1, float("-inf"))
print(torch.equal(masked, causal), masked.grad_fn.name())
print(-masked[0, 0])
# %%
drop = nn.Dropout(0.2)
torch.manual_seed(5)
print(drop(weights[0]))
drop.eval()
print(drop(weights[0]))
print(drop.training, drop)
