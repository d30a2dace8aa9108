"""The torch of this notebook: the part of PyTorch's API that chapter 3 uses, over the attention core.

Every number is computed by the core, which reproduces PyTorch 1.13's CPU results bit for bit (the same
seeded streams, operation order and print format); this package only maps PyTorch's Python API onto it.
Tensors are float32, float64, int64 or bool, on the CPU; what is missing raises an error that says so."""
import math
import numbers
import sys
import types

from . import _core
from ._core import api, call
from ._tensor import (FUNCTIONS, RETURN_TYPES, Size, Tensor, _GradMode, _map_leaves, _sizes, bool_, dtype, float32,
                      float64, int32, int64, wrap)

__version__ = "1.13.1"  # the release whose CPU results this torch reproduces (importlib.metadata agrees)

float = float32  # noqa: A001  (torch.float is torch.float32)
double = float64
long = int64
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


# ---------------------------------------------------------------- dtypes
def get_default_dtype():
    return float32


def set_default_dtype(d):
    if d is not float32:
        raise RuntimeError("set_default_dtype(): this notebook's torch keeps torch.float32 as the default dtype")


def _check_dtype(op, d):
    if d is not None and not isinstance(d, dtype):
        raise TypeError(f"{op}(): argument 'dtype' must be torch.dtype, not {type(d).__name__}")
    return d


def _number_dtype(value):
    """The dtype PyTorch gives a Python number: bool, int64 or the default float32."""
    if isinstance(value, _builtin_bool):
        return bool_
    return int64 if isinstance(value, numbers.Integral) else float32


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
    _check_dtype(op, dtype)
    if op in ("rand", "randn"):
        if dtype not in (None, float32):
            raise RuntimeError(f"{op}(): dtype={dtype!r} draws other numbers than float32's, and this notebook's "
                               "torch draws float32 only; .to(...) converts the float32 draws")
        made = wrap(call(getattr(api, op), *shape))
    else:
        made = wrap(call(getattr(api, op), *shape, _core.to_js({"dtype": (dtype or float32)._name},
                                                              dict_converter=_js_object)))
    return _finish(made, None, requires_grad)


def _js_object(entries):
    from js import Object
    return Object.fromEntries(entries)


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


def _like(maker):
    def like(input, dtype=None, requires_grad=False, **kwargs):
        if not isinstance(input, Tensor):
            raise TypeError(f"{maker.__name__}_like(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        return maker(input.shape, dtype=dtype or input.dtype, requires_grad=requires_grad, **kwargs)

    like.__name__ = like.__qualname__ = f"{maker.__name__}_like"
    return like


zeros_like, ones_like, empty_like = _like(zeros), _like(ones), _like(empty)
rand_like, randn_like = _like(rand), _like(randn)


def full(size, fill_value, dtype=None, requires_grad=False, **kwargs):
    """A tensor of fill_value; its dtype follows the value's kind (bool, int64 or float32) unless given."""
    _check_kwargs("full", kwargs)
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, numbers.Real):
        raise TypeError(f"full(): argument 'fill_value' must be Number, not {type(fill_value).__name__}")
    d = _check_dtype("full", dtype) or _number_dtype(fill_value)
    shape = _sizes((size,) if isinstance(size, numbers.Integral) else tuple(size), "full")
    made = wrap(call(api.full, _core.to_js(list(shape)), builtins.float(fill_value),
                     _core.to_js({"dtype": d._name}, dict_converter=_js_object)))
    return _finish(made, None, requires_grad)


def full_like(input, fill_value, dtype=None, requires_grad=False, **kwargs):
    return full(input.shape, fill_value, dtype=dtype or input.dtype, requires_grad=requires_grad, **kwargs)


def _number_arg(op, name, value):
    if isinstance(value, Tensor):
        value = value.item()
    if not isinstance(value, numbers.Real):
        raise TypeError(f"{op}(): argument '{name}' must be Number, not {type(value).__name__}")
    return value


def arange(start, end=None, step=1, dtype=None, requires_grad=False, **kwargs):
    """torch.arange(end), (start, end) or (start, end, step): int64 when every argument is an int, else
    float32; ceil((end - start) / step) values, each PyTorch's."""
    _check_kwargs("arange", kwargs)
    if end is None:
        start, end = 0, start
    values = [_number_arg("arange", n, v) for n, v in (("start", start), ("end", end), ("step", step))]
    ints = all(isinstance(v, numbers.Integral) and not isinstance(v, _builtin_bool) for v in values)
    d = _check_dtype("arange", dtype) or (int64 if ints else float32)
    made = wrap(call(api.arange, *(builtins.float(v) for v in values),
                     _core.to_js({"dtype": d._name}, dict_converter=_js_object)))
    return _finish(made, None, requires_grad)


def linspace(start, end, steps, dtype=None, requires_grad=False, **kwargs):
    """steps values from start to end, PyTorch's bits (its two-sided formula)."""
    _check_kwargs("linspace", kwargs)
    if isinstance(steps, _builtin_bool) or not isinstance(steps, numbers.Integral):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    d = _check_dtype("linspace", dtype) or float32
    made = wrap(call(api.linspace, builtins.float(_number_arg("linspace", "start", start)),
                     builtins.float(_number_arg("linspace", "end", end)), int(steps),
                     _core.to_js({"dtype": d._name}, dict_converter=_js_object)))
    return _finish(made, None, requires_grad)


def eye(n, m=None, dtype=None, requires_grad=False, **kwargs):
    _check_kwargs("eye", kwargs)
    for name, value in (("n", n), ("m", m)):
        if value is not None and (isinstance(value, _builtin_bool) or not isinstance(value, numbers.Integral)):
            raise TypeError(f"eye(): argument '{name}' must be int, not {type(value).__name__}")
    d = _check_dtype("eye", dtype) or float32
    made = wrap(call(api.eye, int(n), int(n if m is None else m),
                     _core.to_js({"dtype": d._name}, dict_converter=_js_object)))
    return _finish(made, None, requires_grad)


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
    """torch.tensor(data): its dtype inferred as PyTorch infers it (any float: float32; else any int: int64;
    else bool), or the dtype given."""
    _check_kwargs("tensor", kwargs)
    _check_dtype("tensor", dtype)
    if isinstance(data, Tensor):
        return _finish(data.detach().clone(), dtype, requires_grad)
    values = _plain(data)
    leaves = list(_leaves(values))
    if dtype is None:
        if any(isinstance(v, Tensor) for v in leaves):
            dtype = float32
        elif any(not isinstance(v, numbers.Integral) for v in leaves) or not leaves:
            dtype = float32
        elif any(not isinstance(v, _builtin_bool) for v in leaves):
            dtype = int64
        else:
            dtype = bool_
    scalar = not isinstance(values, list)
    flat = _map_leaves([values] if scalar else values, builtins.float)
    made = wrap(call(api.tensor, _core.to_js(flat), _core.to_js({"dtype": dtype._name}, dict_converter=_js_object)))
    if scalar:
        made = made.view(())
    return _finish(made, None, requires_grad)


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


return_types = _submodule("return_types", "The named tuples max and min return.", **RETURN_TYPES)

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
    if name == "int":  # torch.int is torch.int32; found here so that this module's own int() stays Python's
        return int32
    raise _missing("torch", name, "module 'torch'")


# PyTorch's names for its classes, as type(t) and error messages print them.
Tensor.__module__ = Size.__module__ = dtype.__module__ = "torch"

from . import nn  # noqa: E402  (nn uses the names above)

__all__ = ["Tensor", "Size", "dtype", "float32", "float64", "int64", "int32", "float", "double", "long", "bool", "inf",
           "nan", "manual_seed", "tensor", "rand", "randn", "zeros", "ones", "empty", "full", "arange", "linspace",
           "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "stack", "cat",
           "softmax", "dot", "matmul", "exp", "sum", "triu", "tril", "argmax", "argmin", "max", "min",
           "get_default_dtype", "allclose", "set_printoptions", "no_grad", "nn"]
