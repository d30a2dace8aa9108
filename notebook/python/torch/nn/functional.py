"""torch.nn.functional: the three functions behind the chapter's layers."""
from .._core import api, call
from .._tensor import Tensor, wrap


def _tensor(value, op, what="input"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{what}' must be Tensor, not {type(value).__name__}")
    return value._t


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        raise TypeError("softmax(): give dim: PyTorch's implicit choice of dim is deprecated")
    return input.softmax(dim)


def linear(input, weight, bias=None):
    js_bias = None if bias is None else _tensor(bias, "linear", "bias")
    return wrap(call(api.linear, _tensor(input, "linear"), _tensor(weight, "linear", "weight"), js_bias))


def dropout(input, p=0.5, training=True, inplace=False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    return wrap(call(api.dropout, _tensor(input, "dropout"), p, bool(training)))


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    """PyTorch 2.x's scaled_dot_product_attention (PyTorch 1.13 has none), computed as 2.x documents its math:
    softmax(query @ key^T * scale + bias) @ value, where scale is 1 / sqrt(query.size(-1)) unless given, and
    bias is -inf where a bool attn_mask is False (True = takes part) or where is_causal hides a later key,
    or a float attn_mask added as it is. dropout_p drops weights as nn.Dropout does (always, as 2.x's
    function does when called directly: pass 0.0 in eval). PyTorch 2.x's CPU kernels may differ from this
    math in the last bits."""
    import math

    import torch

    for name, t in (("query", query), ("key", key), ("value", value)):
        _tensor(t, "scaled_dot_product_attention", name)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    scale_factor = 1 / math.sqrt(query.size(-1)) if scale is None else scale
    scores = query @ key.transpose(-2, -1) * scale_factor
    length, source_length = query.size(-2), key.size(-2)
    if is_causal:
        scores = scores.masked_fill(torch.ones(length, source_length).triu(1).bool(), -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype is torch.bool:
            scores = scores.masked_fill(attn_mask == 0, -math.inf)  # False: left out
        else:
            scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights @ value


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    """weight's rows for an integer index tensor, as nn.Embedding looks them up."""
    if max_norm is not None:
        raise ValueError("embedding(max_norm=...) is not in this notebook's PyTorch yet")
    from .sparse import embedding

    return embedding(input, weight, padding_idx)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    from .normalization import layer_norm

    return layer_norm(input, normalized_shape, weight, bias, eps)


def __getattr__(name):
    from .. import _missing

    raise _missing("nn.functional", name, "module 'torch.nn.functional'")
