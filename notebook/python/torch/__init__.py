"""The torch of this notebook: the part of PyTorch's API that chapter 3 uses, over the attention core.

Every number is computed by the core, which reproduces PyTorch 1.13's CPU results bit for bit (the same
seeded streams, operation order and print format); this package only maps PyTorch's Python API onto it.
Tensors are float32 or bool, on the CPU; what is missing raises an error that says so."""
import math
import numbers
import sys
import types

from . import _core
from ._core import api, call
from ._tensor import FUNCTIONS, Size, Tensor, _GradMode, _sizes, bool_, dtype, float32, wrap

__version__ = "1.13.1"  # the release whose CPU results this torch reproduces (importlib.metadata agrees)

float = float32  # noqa: A001  (torch.float is torch.float32)
bool = bool_  # noqa: A001
inf = math.inf
nan = math.nan
pi = math.pi
e = math.e

import builtins  # noqa: E402  (bool, float and sum are torch names below)

_builtin_bool = builtins.bool


# ---------------------------------------------------------------- the generator
class Generator:
    """What torch.manual_seed returns: the default CPU generator."""

    def manual_seed(self, seed):
        manual_seed(seed)
        return self

    def initial_seed(self):
        return initial_seed()

    def __repr__(self):
        return f"<torch._C.Generator object at {hex(id(self))}>"


default_generator = Generator()


def manual_seed(seed):
    if isinstance(seed, _builtin_bool) or not isinstance(seed, numbers.Integral):
        raise TypeError(f"manual_seed expected an int seed, got {type(seed).__name__}")
    call(api.manualSeed, int(seed))  # a large int crosses as a BigInt
    return default_generator


def initial_seed():
    return int(str(call(api.initialSeed)))


# ---------------------------------------------------------------- creation
def _finish(tensor, dtype, requires_grad):
    if dtype is not None and dtype is not tensor.dtype:
        tensor = tensor.to(dtype)
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _check_kwargs(op, kwargs):
    for key, value in kwargs.items():
        if key == "device" and (value is None or _cpu_only(value)):
            continue
        if key == "out" and value is None:
            continue
        raise TypeError(f"{op}(): the argument {key}={value!r} is not available in this notebook's torch")


def _created(op, size, dtype, requires_grad, kwargs):
    _check_kwargs(op, kwargs)
    shape = _sizes(size, op)
    return _finish(wrap(call(getattr(api, op), *shape)), dtype, requires_grad)


def rand(*size, dtype=None, requires_grad=False, **kwargs):
    return _created("rand", size, dtype, requires_grad, kwargs)


def randn(*size, dtype=None, requires_grad=False, **kwargs):
    return _created("randn", size, dtype, requires_grad, kwargs)


def zeros(*size, dtype=None, requires_grad=False, **kwargs):
    return _created("zeros", size, dtype, requires_grad, kwargs)


def ones(*size, dtype=None, requires_grad=False, **kwargs):
    return _created("ones", size, dtype, requires_grad, kwargs)


def empty(*size, dtype=None, requires_grad=False, **kwargs):
    return _created("empty", size, dtype, requires_grad, kwargs)


def zeros_like(input, dtype=None, requires_grad=False):
    return zeros(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def ones_like(input, dtype=None, requires_grad=False):
    return ones(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad)


def _plain(data, path="data"):
    """Nested lists of Python numbers/bools from lists, tuples and tensors."""
    if isinstance(data, Tensor):
        return data.tolist()
    if isinstance(data, (list, tuple)):
        return [_plain(item, f"{path}[{i}]") for i, item in enumerate(data)]
    if isinstance(data, (numbers.Real, _builtin_bool)):
        return data
    raise TypeError(f"tensor(): could not infer dtype of {type(data).__name__} (at {path})")


def _leaves(data):
    if isinstance(data, list):
        for item in data:
            yield from _leaves(item)
    else:
        yield data


def tensor(data, dtype=None, requires_grad=False, **kwargs):
    _check_kwargs("tensor", kwargs)
    values = _plain(data)
    leaves = list(_leaves(values))
    all_bool = _builtin_bool(leaves) and all(isinstance(v, _builtin_bool) for v in leaves)
    all_int = _builtin_bool(leaves) and all(isinstance(v, numbers.Integral) and not isinstance(v, _builtin_bool)
                                   for v in leaves)
    if all_int and dtype is None:
        raise TypeError("tensor(): integer data makes an int64 tensor in PyTorch, and this notebook's torch has "
                        "only float32 and bool tensors: write the numbers as floats (1.0) or pass "
                        "dtype=torch.float32")
    if dtype is not None and dtype not in (float32, bool_):
        raise TypeError(f"tensor(): dtype {dtype!r} is not available here: only torch.float32 and torch.bool")
    if dtype is bool_:
        values = _map_leaves(values, _builtin_bool)
    elif dtype is float32 or not all_bool:  # numbers (and bools given dtype=torch.float32) become floats
        values = _map_leaves(values, builtins.float)
    made = wrap(call(api.tensor, _core.to_js(values)))
    return _finish(made, None, requires_grad)


def _map_leaves(data, f):
    if isinstance(data, list):
        return [_map_leaves(item, f) for item in data]
    return f(data)


def stack(tensors, dim=0):
    return wrap(call(api.stack, _core.to_js([_tensor_arg(t, "stack") for t in tensors]), dim))


def cat(tensors, dim=0):
    return wrap(call(api.cat, _core.to_js([_tensor_arg(t, "cat") for t in tensors]), dim))


concat = cat


def _tensor_arg(value, op, what="tensors"):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): expected Tensor as element of {what}, but got {type(value).__name__}")
    return value._t


# ---------------------------------------------------------------- functions
def _input(value, op):
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument 'input' must be Tensor, not {type(value).__name__}")
    return value


def _function(name):
    """torch.<name>(input, ...) as PyTorch has it: input.<name>(...)."""
    def function(input, *args, **kwargs):
        return getattr(_input(input, name), name)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    return function


# The table's ops that PyTorch also has as torch functions (matmul, triu, masked_fill, ...).
globals().update({name: _function(name) for name in FUNCTIONS})


def softmax(input, dim, dtype=None):  # the table's softmax, with the dtype keyword PyTorch's function takes
    return _input(input, "softmax").softmax(dim)


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if equal_nan:
        raise RuntimeError("allclose(): equal_nan=True is not available here")
    _input(input, "allclose")
    if not isinstance(other, Tensor):
        raise TypeError(f"allclose(): argument 'other' must be Tensor, not {type(other).__name__}")
    return _builtin_bool(call(api.allclose, input._t, other._t, _core.to_js({"rtol": rtol, "atol": atol})))


def equal(input, other):
    return _input(input, "equal").equal(other)


def where(condition, input, other):
    """condition ? input : other, element-wise; a Python number is a 0-d tensor here."""
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}")

    def operand(value, name):
        if isinstance(value, Tensor):
            return value._t
        if isinstance(value, numbers.Real):
            return call(api.tensor, builtins.float(value))
        raise TypeError(f"where(): argument '{name}' must be Tensor, not {type(value).__name__}")

    return wrap(call(api.where, condition._t, operand(input, "input"), operand(other, "other")))


def einsum(equation, *operands):
    """Einstein summation over one or two tensors ('bij,bkj->bik'), lowered to permute, sum and bmm as PyTorch's."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' must be str, not {type(equation).__name__}")
    return wrap(call(api.einsum, equation, _core.to_js([_tensor_arg(t, "einsum") for t in operands])))


def is_tensor(obj):
    return isinstance(obj, Tensor)


def numel(input):
    return input.numel()


# ---------------------------------------------------------------- printing and grad mode
def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    options = {}
    for key, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                       ("linewidth", linewidth), ("profile", profile), ("sciMode", sci_mode)):
        if value is not None:
            options[key] = value
    call(api.setPrintOptions, _core.to_js(options))


class no_grad:
    """with torch.no_grad(): results computed inside do not require grad."""

    def __enter__(self):
        self._previous = _GradMode.enabled
        _GradMode.enabled = False

    def __exit__(self, *exc):
        _GradMode.enabled = self._previous
        return False

    def __call__(self, function):
        def decorated(*args, **kwargs):
            with no_grad():
                return function(*args, **kwargs)
        return decorated


class enable_grad(no_grad):
    def __enter__(self):
        self._previous = _GradMode.enabled
        _GradMode.enabled = True


def is_grad_enabled():
    return _GradMode.enabled


def _submodule(name, doc, **names):
    """A module of this package made here, importable as torch.<name> like PyTorch's own."""
    module = types.ModuleType(f"{__name__}.{name}", doc)
    module.__dict__.update(names)
    sys.modules[module.__name__] = module
    return module


# Which build's dropout masks this notebook draws: MKL's when its "PyTorch build" setting says so.
backends = _submodule("backends", "What PyTorch was built with.")
backends.mkl = _submodule("backends.mkl", "Intel MKL: in this notebook, whether it draws as an MKL build does.",
                          is_available=lambda: api.getRngProfile() == "mkl")


# ---------------------------------------------------------------- devices: the CPU only, as in a build without CUDA
_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, ort, xla, lazy, vulkan, mps, "
                 "meta, hpu, privateuseone")
_DEVICE_NAMES = _DEVICE_TYPES.split(", ")


class device:
    """torch.device('cpu'), 'cuda:0' and the like. Only the CPU holds tensors here: a build without CUDA."""

    def __init__(self, type, index=None):  # noqa: A002  (PyTorch's parameter name)
        if isinstance(type, device):
            type, index = type.type, type.index if index is None else index
        if isinstance(type, numbers.Integral) and not isinstance(type, _builtin_bool):
            type, index = "cuda", int(type)  # a bare index names a CUDA device, as in PyTorch
        if not isinstance(type, str):
            raise TypeError("device() received an invalid combination of arguments - got "
                            f"({builtins.type(type).__name__})")
        name, _, number = type.partition(":")
        if name not in _DEVICE_NAMES:
            raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device string: {type}")
        if number:
            if not number.isdigit() or index is not None:
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        self.type, self.index = name, index

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


_CPU = device("cpu")


def _cpu_only(target):
    """Checks a device argument (a torch.device or its name): the CPU passes, others fail as in a CPU-only build."""
    where = target if isinstance(target, device) else device(target)
    if where.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if where.type == "mps":
        raise RuntimeError("PyTorch is not linked with support for mps devices")
    if where.type != "cpu":
        raise RuntimeError(f"this notebook's torch runs on the CPU only, not on {where.type} devices")
    return where


def _is_device(value):
    return isinstance(value, device) or (isinstance(value, str) and value.partition(":")[0] in _DEVICE_NAMES)


def _tensor_to(to_dtype):
    """Tensor.to(device), .to(dtype), .to(device, dtype) and the keywords: a device is checked, then dropped."""
    def to(self, *args, device=None, dtype=None, non_blocking=False, copy=False):
        rest = []
        for arg in args:
            if _is_device(arg):
                _cpu_only(arg)
            elif isinstance(arg, Tensor):  # .to(other): other's dtype (its device is the CPU)
                rest.append(arg.dtype)
            else:
                rest.append(arg)
        if device is not None:
            _cpu_only(device)
        if dtype is not None:
            rest.append(dtype)
        result = to_dtype(self, *rest) if rest else self
        return result.clone() if copy and result is self else result

    to.__doc__ = to_dtype.__doc__
    return to


Tensor.to = _tensor_to(Tensor.to)
Tensor.device = property(lambda self: _CPU, doc="Where the tensor is: always the CPU here.")
Tensor.is_cuda = property(lambda self: False)
Tensor.cpu = lambda self, memory_format=None: self


def _cuda_tensor(self, device=None, non_blocking=False, memory_format=None):
    raise AssertionError("Torch not compiled with CUDA enabled")


Tensor.cuda = _cuda_tensor

cuda = _submodule("cuda", "CUDA: not in this notebook's torch, as in a PyTorch build without it.",
                  is_available=lambda: False, device_count=lambda: 0, is_initialized=lambda: False)


def _no_cuda(*args, **kwargs):
    raise AssertionError("Torch not compiled with CUDA enabled")


cuda.current_device = cuda.get_device_name = cuda.synchronize = _no_cuda
# What PyTorch without CUDA answers without complaint: seeding is queued for a CUDA that never comes.
cuda.manual_seed = cuda.manual_seed_all = cuda.empty_cache = lambda *args: None
cuda.memory_allocated = lambda device=None: 0
backends.mps = _submodule("backends.mps", "Apple's Metal: not in this notebook's torch.",
                          is_available=lambda: False, is_built=lambda: False)
backends.cuda = _submodule("backends.cuda", "CUDA: not in this notebook's torch.", is_built=lambda: False)
# cuDNN's switches, which seeded notebooks often set: settable here too, with nothing to switch.
backends.cudnn = _submodule("backends.cudnn", "cuDNN: not in this notebook's torch.", is_available=lambda: False,
                            version=lambda: None, enabled=True, deterministic=False, benchmark=False)


# ---------------------------------------------------------------- saving: this notebook's own file format
from .serialization import load, save  # noqa: E402


_QUALIFIED = {"torch": "torch", "Tensor": "torch.Tensor", "Module": "torch.nn.Module"}  # the rest: torch.<space>


def _missing(space, name, owner):
    """The AttributeError for owner.name: PyTorch's own message for a name PyTorch does not have either, and
    one that says so for a name of PyTorch 1.13's that this notebook's torch does not have yet."""
    from ._pytorch_names import NAMES

    if name in NAMES[space]:
        qualified = _QUALIFIED.get(space, f"torch.{space}")
        return AttributeError(f"{qualified}.{name} is not in this notebook's PyTorch yet: it has the part of PyTorch "
                              "1.13 that chapter 3 and learners' notebooks around it use")
    return AttributeError(f"{owner} has no attribute '{name}'")


def __getattr__(name):
    raise _missing("torch", name, "module 'torch'")


# PyTorch's names for its classes, as type(t) and error messages print them.
Tensor.__module__ = Size.__module__ = dtype.__module__ = "torch"

from . import nn  # noqa: E402  (nn uses the names above)

__all__ = ["Tensor", "Size", "dtype", "float32", "bool", "inf", "nan", "manual_seed", "tensor", "rand", "randn",
           "zeros", "ones", "empty", "stack", "cat", "softmax", "dot", "matmul", "exp", "sum", "triu", "tril",
           "allclose", "set_printoptions", "no_grad", "nn"]
