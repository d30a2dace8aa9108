"""torch.nn.init: fills a tensor in place with PyTorch 1.13's draws from the default generator.

The bounds are computed in Python doubles as PyTorch computes them; the draws are the core's uniform_ and
normal_, which use torch.rand's and torch.randn's streams with PyTorch's transforms, so a seeded
xavier_uniform_ or kaiming_normal_ gives PyTorch's bits."""
import math
import numbers

from .._tensor import Tensor, _GradMode

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity, param=None):
    """The gain nn.init recommends for a nonlinearity (leaky_relu's negative slope in param)."""
    if nonlinearity in _LINEAR or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, numbers.Real):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.size(1) * receptive_field, tensor.size(0) * receptive_field


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


class _no_grad:
    """The fills are not recorded for autograd, as under torch.no_grad()."""

    def __enter__(self):
        self._previous, _GradMode.enabled = _GradMode.enabled, False

    def __exit__(self, *exc):
        _GradMode.enabled = self._previous


def _checked(tensor, op):
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{op}(): argument 'tensor' must be Tensor, not {type(tensor).__name__}")
    return tensor


def uniform_(tensor, a=0.0, b=1.0):
    with _no_grad():
        return _checked(tensor, "uniform_").uniform_(a, b)


def normal_(tensor, mean=0.0, std=1.0):
    with _no_grad():
        return _checked(tensor, "normal_").normal_(mean, std)


def constant_(tensor, val):
    with _no_grad():
        return _checked(tensor, "constant_").fill_(val)


def ones_(tensor):
    return constant_(tensor, 1.0)


def zeros_(tensor):
    with _no_grad():
        return _checked(tensor, "zeros_").zero_()


def xavier_uniform_(tensor, gain=1.0):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(_checked(tensor, "xavier_uniform_"))
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound)


def xavier_normal_(tensor, gain=1.0):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(_checked(tensor, "xavier_normal_"))
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)))


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    if 0 in _checked(tensor, "kaiming_uniform_").shape:
        return tensor  # PyTorch warns that initialising a zero-element tensor is a no-op
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return uniform_(tensor, -bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    if 0 in _checked(tensor, "kaiming_normal_").shape:
        return tensor
    return normal_(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity))


__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "xavier_uniform_",
           "xavier_normal_", "kaiming_uniform_", "kaiming_normal_"]


def __getattr__(name):
    from .. import _missing

    raise _missing("nn.init", name, "module 'torch.nn.init'")
