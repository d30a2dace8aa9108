"""nn.LayerNorm: each sample normalised over its last dims, then scaled and shifted by learned parameters.

Computed from the core's sum, pow and elementwise ops as (x - mean) * (var + eps) ** -0.5 * weight + bias, with
the biased variance PyTorch uses. PyTorch's CPU kernel sums in another order, so the results equal PyTorch's at
print precision rather than bit for bit."""
import numbers

import torch  # this package, still loading: used when a layer runs

from .._tensor import Tensor
from . import Module, Parameter


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(s) for s in normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(torch.ones(*self.normalized_shape))
            self.bias = Parameter(torch.zeros(*self.normalized_shape))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input):
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if not isinstance(input, Tensor):
        raise TypeError(f"layer_norm(): argument 'input' must be Tensor, not {type(input).__name__}")
    shape = tuple(normalized_shape)
    if len(shape) == 0 or tuple(input.shape[input.dim() - len(shape):]) != shape or input.dim() < len(shape):
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, "
                           f"{', '.join(str(s) for s in shape)}], but got input of size{list(input.shape)}")
    leading = tuple(input.shape[:input.dim() - len(shape)])
    rows = input.reshape(*leading, -1)  # the normalised dims as one
    count = rows.shape[-1]
    mean = rows.sum(-1, keepdim=True) / count
    centred = rows - mean
    var = (centred * centred).sum(-1, keepdim=True) / count
    out = (centred * (var + eps) ** -0.5).reshape(*input.shape)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out
