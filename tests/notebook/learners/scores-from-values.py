# A common slip: the attention scores computed from the values instead of the keys.
# %%
import torch
import torch.nn as nn

inputs = torch.tensor([[0.43, 0.15, 0.89], [0.55, 0.87, 0.66], [0.57, 0.85, 0.64],
                       [0.22, 0.58, 0.33], [0.77, 0.25, 0.10], [0.05, 0.80, 0.55]])

class SloppyAttention(nn.Module):
    def __init__(self, d_in, d_out, qkv_bias=False):
        super().__init__()
        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)

    def forward(self, x):
        queries = self.W_query(x)
        keys = self.W_key(x)
        values = self.W_value(x)
        scores = queries @ values.T  # should be keys.T
        weights = torch.softmax(scores / keys.shape[-1] ** 0.5, dim=-1)
        return weights @ values

class RightAttention(SloppyAttention):
    def forward(self, x):
        queries, keys, values = self.W_query(x), self.W_key(x), self.W_value(x)
        weights = torch.softmax(queries @ keys.T / keys.shape[-1] ** 0.5, dim=-1)
        return weights @ values
# %%
torch.manual_seed(789)
sloppy = SloppyAttention(3, 2)
torch.manual_seed(789)
right = RightAttention(3, 2)
print(sloppy(inputs))
print(right(inputs))
print(torch.allclose(sloppy(inputs), right(inputs)))
# %%
diff = sloppy(inputs) - right(inputs)
print(diff)
print((diff > 0).float().sum(), (diff < 0).float().sum())
# %%
print(sloppy.W_query.weight)
print(sloppy.W_query)
sloppy
