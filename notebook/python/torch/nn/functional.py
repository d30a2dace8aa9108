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
