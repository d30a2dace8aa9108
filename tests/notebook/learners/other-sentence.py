# A learner's own sentence: four words in five dimensions, another seed.
# %%
import torch

words = ["cats", "chase", "red", "lasers"]
inputs = torch.tensor([
    [0.12, 0.80, 0.33, 0.54, 0.91],
    [0.65, 0.21, 0.77, 0.05, 0.48],
    [0.39, 0.58, 0.14, 0.92, 0.26],
    [0.71, 0.09, 0.62, 0.37, 0.83],
])
inputs.shape
# %%
query = inputs[2]
scores = torch.empty(len(words))
for i, x_i in enumerate(inputs):
    scores[i] = x_i.dot(query)
weights = torch.softmax(scores, dim=0)
for word, w in zip(words, weights):
    print(f"{word:>8}: {w:.4f}")
print(weights.sum())
# %%
all_scores = inputs @ inputs.T
all_weights = all_scores.softmax(dim=-1)
print(all_weights)
print(all_weights.sum(dim=1))
all_weights @ inputs
# %%
torch.manual_seed(2024)
d_in, d_out = inputs.shape[1], 3
W_q = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_k = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
W_v = torch.nn.Parameter(torch.rand(d_in, d_out), requires_grad=False)
print(W_q)
q, k, v = inputs @ W_q, inputs @ W_k, inputs @ W_v
w = torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1)
print(w)
print(w @ v)
# %%
[f"{x:.3f}" for x in w[0]]
