"""nn.Embedding: a lookup table of num_embeddings rows, drawn by nn.init.normal_ as PyTorch 1.13 draws it."""
import torch  # this package, still loading: used when a layer runs

from .._tensor import Tensor
from . import Module, Parameter, init


class Embedding(Module):
    """Row i of weight for each index i of an integer tensor (chapter 2's token and position embeddings)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, device=None, dtype=None):
        super().__init__()
        if max_norm is not None:
            raise ValueError("Embedding(max_norm=...) is not in this notebook's PyTorch yet")
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = Parameter(torch.empty(num_embeddings, embedding_dim))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            text += f", padding_idx={self.padding_idx}"
        if self.sparse:
            text += ", sparse=True"
        return text


def embedding(input, weight, padding_idx=None):
    """weight's rows for an integer index tensor, in the index tensor's shape plus one dim."""
    if not isinstance(input, Tensor):
        raise TypeError(f"embedding(): argument 'indices' must be Tensor, not {type(input).__name__}")
    if input.dtype.is_floating_point or input.dtype is torch.bool:
        kind = "torch.FloatTensor" if input.dtype.is_floating_point else "CPUBoolType"  # as PyTorch names them
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {kind} instead (while checking arguments for embedding)")
    rows = weight.shape[0]
    indices = input.reshape(-1).tolist()
    if any(not 0 <= i < rows for i in indices):  # negative indices too, unlike t[i]
        raise IndexError("index out of range in self")
    picked = torch.stack([weight[i] for i in indices]) if indices else torch.zeros(0, weight.shape[1])
    return picked.reshape(*input.shape, weight.shape[1])
