"""torch.Tensor over the core's tensors: operators, indexing, printing and the autograd flags, as PyTorch
1.13 shows them. A Tensor holds one JavaScript tensor (`_t`); views share its storage there, so in-place
changes through a view reach every tensor that shares it, as in PyTorch."""
import inspect
import math
import numbers
import re

from . import _core
from ._core import api, call


class dtype:
    """torch.float32, torch.float64, torch.int64, torch.int32 and torch.bool: the dtypes of the core."""

    def __init__(self, name, is_floating_point, itemsize, tensor_type):
        self._name = name
        self.is_floating_point = is_floating_point
        self.is_signed = name != "bool"
        self.itemsize = itemsize
        self._tensor_type = tensor_type  # what t.type() says

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


float32 = dtype("float32", True, 4, "torch.FloatTensor")
float64 = dtype("float64", True, 8, "torch.DoubleTensor")
int64 = dtype("int64", False, 8, "torch.LongTensor")
int32 = dtype("int32", False, 4, "torch.IntTensor")
bool_ = dtype("bool", False, 1, "torch.BoolTensor")
_DTYPES = {"float32": float32, "float64": float64, "int64": int64, "int32": int32, "bool": bool_}


class Size(tuple):
    """A shape: a tuple of ints that prints as torch.Size([6, 3])."""

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__

    def numel(self):
        return math.prod(self)

    def __getitem__(self, key):
        item = tuple.__getitem__(self, key)
        return Size(item) if isinstance(key, slice) else item


class _GradFn:
    """What .grad_fn shows: the name of the backward node PyTorch would record."""

    def __init__(self, name):
        self._name = name

    def name(self):
        return self._name

    def __repr__(self):
        return f"<{self._name} object at {hex(id(self))}>"


class _GradMode:
    enabled = True


def wrap(js, cls=None):
    """A Python tensor over a core result; under torch.no_grad() results do not require grad."""
    if not _GradMode.enabled and js.requiresGrad:
        js = js.detach()
    tensor = object.__new__(cls or Tensor)
    tensor._t = js
    return tensor


def _js_operand(value, op):
    """A tensor or a Python number as the core takes it: a number keeps its kind (bool, int or float), which
    decides the result's dtype as PyTorch's type promotion does."""
    if isinstance(value, Tensor):
        return value._t
    if isinstance(value, bool):
        return value
    if isinstance(value, numbers.Integral):
        return api.scalar(int(value), "int")
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"{op}(): unsupported operand type '{type(value).__name__}'; expected a tensor or a number")


def _map_leaves(data, f):
    """Nested lists with f applied to every leaf."""
    if isinstance(data, list):
        return [_map_leaves(item, f) for item in data]
    return f(data)


def _sizes(args, op):
    """Sizes given as separate ints or one tuple/list/torch.Size, as a tuple of ints."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    for i, s in enumerate(args):
        if isinstance(s, Tensor) and s.dim() == 0:
            continue
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"{op}(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(s).__name__} at pos {i}")
    return tuple(int(s) for s in args)


class Tensor:
    __slots__ = ("_t", "__weakref__")

    def __init__(self, *args, **kwargs):
        raise TypeError("create tensors with torch.tensor(...), torch.rand(...), torch.zeros(...) and the like")

    def __getattr__(self, name):  # only for names Tensor does not have: PyTorch's message, or that it is missing here
        from . import _missing

        raise _missing("Tensor", name, "'Tensor' object")

    # ------------------------------------------------------------ what it is
    @property
    def shape(self):
        return Size(self._t.shape.to_py())

    def size(self, dim=None):
        shape = self.shape
        if dim is None:
            return shape
        return shape[self._dim(dim, "size")]

    def dim(self):
        return self._t.ndim

    ndim = property(dim)

    def numel(self):
        return math.prod(self.shape)

    nelement = numel

    @property
    def dtype(self):
        return _DTYPES[self._t.dtype]

    @property
    def is_leaf(self):
        return not self._t.gradFn

    @property
    def requires_grad(self):
        return bool(self._t.requiresGrad)

    @requires_grad.setter
    def requires_grad(self, value):
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad=True):
        if not self.is_leaf and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use a "
                               "computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        self._t.requiresGrad_(bool(requires_grad))
        return self

    @property
    def grad_fn(self):
        name = self._t.gradFn
        return _GradFn(name) if name else None

    @property
    def grad(self):
        return None

    @property
    def data(self):
        return wrap(self._t.detach())

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        flags = self._t
        fresh = value._t.detach()
        if flags.isParameter:
            fresh = fresh.asParameter(bool(flags.requiresGrad))
        elif flags.requiresGrad:
            fresh.requiresGrad_(True)
        self._t = fresh

    def _dim(self, dim, op):
        n = max(self._t.ndim, 1)
        if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
            raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
        if not -n <= dim < n:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
        return dim + n if dim < 0 else dim

    # ------------------------------------------------------------ printing
    def __repr__(self, *, tensor_contents=None):
        return call(self._t.toString)

    def __format__(self, spec):
        if self.dim() == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    # ------------------------------------------------------------ Python values
    def item(self):
        value = call(self._t.item)
        kind = {"bool": bool, "int64": int, "int32": int}.get(self._t.dtype, float)
        return kind(value)

    def tolist(self):
        values = self._t.toArray()
        values = values.to_py() if _core.is_js(values) else values
        if self._t.dtype in ("int64", "int32"):
            return _map_leaves(values, int)
        # JavaScript has one number type: 0.0 arrives as the int 0, and a float tensor's list holds floats.
        return _float_leaves(values) if self.dtype.is_floating_point else values

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self.dtype not in (int64, int32) or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return self.item()

    def __bool__(self):
        if self.numel() != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __len__(self):
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self):
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.shape[0]))

    __hash__ = object.__hash__

    # ------------------------------------------------------------ views
    @property
    def T(self):
        return wrap(call(lambda: self._t.T))

    def t(self):
        if self.dim() > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.dim()}D")
        return self.T

    def detach(self):
        return wrap(self._t.detach())

    def to(self, *args, **kwargs):
        """to(dtype), to(device), to(other) (its dtype), to(device, dtype), with dtype= and device= keywords."""
        target, device = kwargs.pop("dtype", None), kwargs.pop("device", None)
        kwargs.pop("non_blocking", None)
        kwargs.pop("copy", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for arg in args:
            if isinstance(arg, dtype):
                target = arg
            elif isinstance(arg, Tensor):
                target = arg.dtype
            else:
                device = arg
        if device is not None and str(device) not in ("cpu", "cpu:0"):
            raise RuntimeError(f"to(): this notebook's torch runs on the CPU only, got device {device!r}")
        if target is None or target is self.dtype:
            return self
        if not isinstance(target, dtype):
            raise TypeError(f"to(): expected a dtype, got {target!r}")
        return wrap(call(self._t.to, target._name))

    def type(self, dtype=None):
        """t.type(): 'torch.FloatTensor' and the like; t.type(torch.int64): t.to(torch.int64)."""
        if dtype is None:
            return self.dtype._tensor_type
        if isinstance(dtype, str):
            named = {d._tensor_type: d for d in _DTYPES.values()}
            if dtype not in named:
                raise RuntimeError(f"type(): invalid type: '{dtype}'")
            dtype = named[dtype]
        return self.to(dtype)

    def long(self):
        return self.to(int64)

    def double(self):
        return self.to(float64)

    def int(self):
        return self.to(int32)

    def cpu(self):
        return self

    def numpy(self):
        raise RuntimeError("numpy is not available in this notebook; use .tolist() or .item()")

    # ------------------------------------------------------------ indexing
    def _index(self, key):
        """What self[key] names: the view that its ints (select), slices (slice, with a step), None (a new dim)
        and ... (the dims between) make, and the one advanced index that follows on it: (dim, list of ints) for
        a list or an index tensor, or (0, bool tensor) for a mask; None when there is none."""
        if not isinstance(key, tuple):
            key = (key,)
        if any(isinstance(k, Tensor) and k.dtype is bool_ for k in key):
            if len(key) != 1:
                raise IndexError("this notebook's torch takes a bool mask as the only index: t[mask]")
            return self._t, (0, key[0]._t)
        consumed = sum(1 for k in key if k is not None and k is not Ellipsis)
        if consumed > self.dim():
            raise IndexError(f"too many indices for tensor of dimension {self.dim()}")
        js, d, advanced = self._t, 0, None
        for k in key:
            if isinstance(k, Tensor) and k.dim() == 0 and k.dtype is not bool_ and not k.dtype.is_floating_point:
                k = k.tolist()  # a 0-d integer tensor indexes as its int
            if k is Ellipsis:
                d += self.dim() - consumed
            elif k is None:
                js = call(js.unsqueeze, d)
                d += 1
            elif isinstance(k, slice):
                size = js.shape.to_py()[d]
                if k.step is not None and k.step <= 0:
                    raise ValueError("slice step cannot be zero" if k.step == 0 else "step must be greater than zero")
                start, stop, step = k.indices(size)
                if not (start == 0 and stop >= size and step == 1):  # a full slice is the tensor itself
                    js = call(js.slice, d, start, max(start, stop), step)
                d += 1
            elif isinstance(k, (list, Tensor)):
                if isinstance(k, Tensor) and k.dtype.is_floating_point:
                    raise IndexError("tensors used as indices must be long, byte or bool tensors")
                if advanced is not None:
                    raise IndexError("this notebook's torch takes one list or index tensor per index")
                rows = k.tolist() if isinstance(k, Tensor) else k
                if not isinstance(rows, list) or not all(
                        isinstance(i, numbers.Integral) and not isinstance(i, bool) for i in rows):
                    raise IndexError("this notebook's torch takes a flat list of ints as an index, as in t[[0, 2]]")
                advanced = (d, rows)
                d += 1
            elif isinstance(k, numbers.Integral) and not isinstance(k, bool):
                size = js.shape.to_py()[d]
                if not -size <= k < size:
                    raise IndexError(f"index {k} is out of bounds for dimension {d} with size {size}")
                js = call(js.select, d, k + size if k < 0 else k)
            else:
                raise IndexError(f"indexing with {type(k).__name__} is not available in this notebook's torch: "
                                 "use ints, slices, None, ..., lists of ints and bool masks")
        return js, advanced

    def __getitem__(self, key):
        js, advanced = self._index(key)
        if advanced is None:
            return wrap(js)
        dim, index = advanced
        if isinstance(index, list):
            return wrap(call(js.indexSelect, dim, _core.to_js(index)))
        return wrap(call(js.indexMask, index))

    def __setitem__(self, key, value):
        target, advanced = self._index(key)
        if not isinstance(value, (Tensor, numbers.Real, bool)):
            raise TypeError(f"can't assign a {type(value).__name__} to a tensor")
        if advanced is None and isinstance(value, Tensor):
            call(target.set, _core.to_js([]), value._t)
        elif advanced is None:
            call(target.set, _core.to_js([]), float(value))
        else:
            js_value = value._t if isinstance(value, Tensor) else call(api.tensor, float(value))
            dim, index = advanced
            if isinstance(index, list):
                call(target.indexPutRows_, dim, _core.to_js(index), js_value)
            else:
                call(target.indexPutMask_, index, js_value)
        # The view wrote into the storage this tensor shares; take over the flags the assignment gives.
        if target.requiresGrad and not self._t.requiresGrad:
            self._t.requiresGrad_(True)

    # ------------------------------------------------------------ math (the table's ops are added below the class)
    def sum(self, dim=None, keepdim=False):
        dims = None if dim is None else _core.to_js(list(dim) if isinstance(dim, (tuple, list)) else [dim])
        return wrap(call(self._t.sum, dims, bool(keepdim)))

    def add(self, other, alpha=1):
        if alpha != 1:
            raise RuntimeError("add(): alpha is not available here")
        return wrap(call(self._t.add, _js_operand(other, "add")))

    __add__ = add

    def __radd__(self, other):
        return self.add(other)

    def __rmul__(self, other):
        return self.mul(other)

    def __rsub__(self, other):
        return wrap(call(self._t.rsub, _js_operand(other, "rsub")))

    def __rtruediv__(self, other):  # PyTorch: self.reciprocal() * other
        return self.reciprocal().mul(other)

    def __pos__(self):
        return self

    def _compare(self, op, other):
        if not isinstance(other, (Tensor, numbers.Real)):
            return NotImplemented
        return wrap(call(getattr(self._t, op), _js_operand(other, op)))

    def __eq__(self, other):
        return self._compare("eq", other)

    def __ne__(self, other):
        return self._compare("ne", other)

    def __lt__(self, other):
        return self._compare("lt", other)

    def __le__(self, other):
        return self._compare("le", other)

    def __gt__(self, other):
        return self._compare("gt", other)

    def __ge__(self, other):
        return self._compare("ge", other)

    eq = __eq__
    ne = __ne__
    lt = __lt__
    le = __le__
    gt = __gt__
    ge = __ge__

    # ------------------------------------------------------------ in place: each returns self
    def copy_(self, source):
        if not isinstance(source, Tensor):
            raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(source).__name__}")
        call(self._t.set, _core.to_js([]), source._t)
        return self


def _float_leaves(values):
    return [_float_leaves(v) for v in values] if isinstance(values, list) else float(values)


def _mask(mask, op):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}(): argument 'mask' must be Tensor, not {type(mask).__name__}")
    # A float mask (torch.triu(torch.ones(...)) without .bool()) is refused by PyTorch's official builds with
    # this message; never filled as "nonzero" (Debian's 1.13 build silently fills nothing).
    if mask.dtype is not bool_:
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype float")
    return mask._t


def _fill_value(value):
    if isinstance(value, Tensor):
        if value.dim() != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.dim()} dimension(s).")
        return value.item()
    if isinstance(value, numbers.Real):
        return float(value)
    raise TypeError(f"the fill value must be a number, not {type(value).__name__}")


# ---------------------------------------------------------------- the API's op table
# The Tensor methods and torch functions that only take their arguments the way PyTorch does and call the core
# are made from the JavaScript API's op table (wasm/api/ops.js, torch.ops), under PyTorch's names; the
# methods above are the ones with more to them.
OPS = api.ops.to_py()

# PyTorch's names for the arguments the table names otherwise: they appear in PyTorch's messages and keywords.
_PYTORCH_ARGUMENTS = {("dot", "other"): "tensor", ("pow", "other"): "exponent"}


def pytorch_name(js_name):
    """PyTorch's name for the API's: maskedFill_ is masked_fill_."""
    return re.sub(r"[A-Z]", lambda m: "_" + m.group(0).lower(), js_name)


def _argument(op, argument, value):
    """One argument of op as the API takes it, refused the way PyTorch refuses it."""
    kind, name = argument["kind"], argument["name"]
    if kind == "tensor" and name == "mask":
        return _mask(value, op)
    if kind == "tensor":
        if not isinstance(value, Tensor):
            raise TypeError(f"{op}(): argument '{_PYTORCH_ARGUMENTS.get((op, name), name)}' must be Tensor, not "
                            f"{type(value).__name__}")
        return value._t
    if kind == "operand":
        return _js_operand(value, op)
    if kind == "number":
        return _fill_value(value)
    if kind == "bool":
        return bool(value)
    if kind == "dims":  # one dim or several
        return _core.to_js(list(value) if isinstance(value, (tuple, list)) else value)
    return value  # an int: the API checks it


def _method(entry):
    """The Tensor method an entry of the table makes: its arguments as PyTorch names them, then the API's op
    (a Tensor method of the API, or a torch function given this tensor first)."""
    op = pytorch_name(entry["name"])
    arguments = entry["args"][1:]  # after the input: the tensor itself
    parameters = [
        inspect.Parameter(_PYTORCH_ARGUMENTS.get((op, a["name"]), pytorch_name(a["name"])),
                          inspect.Parameter.VAR_POSITIONAL if a["kind"] == "sizes" else
                          inspect.Parameter.KEYWORD_ONLY if a.get("named") else
                          inspect.Parameter.POSITIONAL_OR_KEYWORD,
                          # an argument the API may leave out (its `absent` export) is None when not given
                          default=a.get("default", None if "absent" in a else inspect.Parameter.empty))
        for a in arguments]
    signature = inspect.Signature([inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *parameters])
    on_tensor = "tensor" in entry["on"]
    in_place = entry.get("returns") == "self"

    def method(self, *args, **kwargs):
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as error:  # a missing or unexpected argument, named as Python names it
            raise TypeError(f"{op}(): {error}") from None
        bound.apply_defaults()
        js_args, named = [], {}
        for argument, parameter in zip(arguments, parameters):
            value = bound.arguments[parameter.name]
            if argument["kind"] == "sizes":
                js_args.extend(_sizes(value, op))
            elif argument.get("named"):
                named[argument["name"]] = _argument(op, argument, value)
            elif value is None and "absent" in argument:
                break  # the API calls its `absent` export with the arguments before this one
            else:
                js_args.append(_argument(op, argument, value))
        if named:
            js_args.append(_core.to_js(named))
        if on_tensor:
            result = call(getattr(self._t, entry["name"]), *js_args)
        else:
            result = call(getattr(api, entry["name"]), self._t, *js_args)
        if entry.get("returns") == "tensors":
            return tuple(wrap(t) for t in result)
        return self if in_place else wrap(result)

    method.__name__ = method.__qualname__ = op
    method.__signature__ = signature
    return method


for _entry in OPS:
    if "method" in _entry.get("notebook", ()):
        setattr(Tensor, pytorch_name(_entry["name"]), _method(_entry))

Tensor.__matmul__ = Tensor.matmul
Tensor.__sub__ = Tensor.sub
Tensor.__mul__ = Tensor.mul
Tensor.__truediv__ = Tensor.div
Tensor.__pow__ = Tensor.pow
Tensor.__neg__ = Tensor.neg
Tensor.__iadd__ = Tensor.add_

# torch.<op>(input, ...) for the table's ops PyTorch also has as functions: input.<op>(...).
FUNCTIONS = [pytorch_name(e["name"]) for e in OPS if "function" in e.get("notebook", ())]


# ---------------------------------------------------------------- methods with more to them than the table's
def _dims(dim):
    """dim=None (every dim), an int or a tuple of ints, as the API's list ([] for every dim)."""
    if dim is None:
        return _core.to_js([])
    return _core.to_js(list(dim) if isinstance(dim, (tuple, list)) else [dim])


def _correction(op, unbiased, correction):
    if correction is not None and unbiased is not None:
        raise RuntimeError(f"{op}: can't specify both unbiased and correction")
    if correction is not None:
        return float(correction)
    return 1.0 if unbiased is None or unbiased else 0.0


def _var_or_std(op):
    def method(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):  # t.var(False): PyTorch's var(unbiased)
            dim, unbiased = None, dim
        return wrap(call(getattr(self._t, op), _dims(dim), _correction(op, unbiased, correction), bool(keepdim)))

    method.__name__ = method.__qualname__ = op
    return method


def _clamp(self, min=None, max=None):
    def bound(value, name):
        if value is None:
            return math.nan
        if isinstance(value, Tensor):
            raise TypeError(f"clamp(): argument '{name}' as a tensor is not available here: give a number")
        return float(value)

    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    return wrap(call(self._t.clamp, bound(min, "min"), bound(max, "max")))


def _split(self, split_size_or_sections, dim=0):
    if isinstance(split_size_or_sections, (list, tuple)):
        pieces = call(self._t.splitWithSizes, _core.to_js(list(split_size_or_sections)), dim)
    else:
        pieces = call(self._t.split, split_size_or_sections, dim)
    return tuple(wrap(t) for t in pieces)


def _isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    if equal_nan:
        raise RuntimeError("isclose(): equal_nan=True is not available here")
    if not isinstance(other, Tensor):
        raise TypeError(f"isclose(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return wrap(call(self._t.isclose, other._t, _core.to_js({"rtol": rtol, "atol": atol})))


def _equal(self, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"equal(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return bool(call(self._t.equal, other._t))


def _expand_as(self, other):
    return self.expand(other.shape)


def _is_contiguous(self):
    return bool(self._t.isContiguous())


def _stride(self, dim=None):
    if dim is None:
        return tuple(self._t.stride().to_py())
    return int(call(self._t.stride, dim))


def _storage_offset(self):
    return int(self._t.storageOffset())


for _name, _made in (("var", _var_or_std("var")), ("std", _var_or_std("std")), ("clamp", _clamp), ("split", _split), ("isclose", _isclose),
                     ("equal", _equal), ("expand_as", _expand_as), ("is_contiguous", _is_contiguous),
                     ("stride", _stride), ("storage_offset", _storage_offset)):
    _made.__name__ = _made.__qualname__ = _name
    setattr(Tensor, _name, _made)
Tensor.clip = Tensor.clamp
FUNCTIONS += ["var", "std", "clamp", "clip", "split", "isclose", "equal"]


# ---------------------------------------------------------------- dtypes: indices, bitwise operators
class _ReturnType(tuple):
    """torch.return_types.max(values=..., indices=...): a named pair that prints as PyTorch's."""

    _name = ""

    def __new__(cls, values, indices):
        return tuple.__new__(cls, (values, indices))

    values = property(lambda self: self[0])
    indices = property(lambda self: self[1])

    def __repr__(self):
        return f"torch.return_types.{self._name}(\nvalues={self[0]!r},\nindices={self[1]!r})"


def _return_type(name):
    return type(name, (_ReturnType,), {"_name": name, "__module__": "torch.return_types"})


RETURN_TYPES = {name: _return_type(name) for name in ("max", "min")}


def _index_op(name):
    """argmax/argmin: int64 indices, over every element or along dim."""
    def method(self, dim=None, keepdim=False):
        if dim is None:
            return wrap(call(getattr(self._t, name)))
        return wrap(call(getattr(self._t, name), self._dim(dim, name), bool(keepdim)))

    return method


def _values_indices(name):
    """max/min: the value over every element, or (values, indices) along dim; with a tensor, element-wise."""
    def method(self, dim=None, keepdim=False):
        if isinstance(dim, Tensor):
            raise RuntimeError(f"{name}(input, other) is not available in this notebook's torch yet")
        if dim is None:
            return wrap(call(getattr(self._t, name)))
        pair = call(getattr(self._t, name), self._dim(dim, name), bool(keepdim))
        return RETURN_TYPES[name](wrap(pair.values), wrap(pair.indices))

    return method


def _bitwise(name, js_name):
    def method(self, other):
        if not isinstance(other, (Tensor, numbers.Integral)):
            return NotImplemented
        return wrap(call(getattr(self._t, js_name), _js_operand(other, name)))

    return method


for _name, _made in (("argmax", _index_op("argmax")), ("argmin", _index_op("argmin")),
                     ("max", _values_indices("max")), ("min", _values_indices("min")),
                     ("bitwise_and", _bitwise("bitwise_and", "bitwiseAnd")),
                     ("bitwise_or", _bitwise("bitwise_or", "bitwiseOr")),
                     ("bitwise_xor", _bitwise("bitwise_xor", "bitwiseXor"))):
    _made.__name__ = _made.__qualname__ = _name
    setattr(Tensor, _name, _made)
Tensor.__and__ = Tensor.__rand__ = Tensor.bitwise_and
Tensor.__or__ = Tensor.__ror__ = Tensor.bitwise_or
Tensor.__xor__ = Tensor.__rxor__ = Tensor.bitwise_xor
Tensor.__invert__ = Tensor.bitwise_not
FUNCTIONS += ["argmax", "argmin", "max", "min", "bitwise_and", "bitwise_or", "bitwise_xor"]


def _rpow(self, other):
    """number ** tensor: PyTorch's pow(number, tensor), the number as a 0-d tensor of its kind (a float in
    float64 beside a float64 tensor, so that it keeps its double value)."""
    if not isinstance(other, numbers.Real):
        return NotImplemented
    if isinstance(other, bool):
        kind = bool_
    elif isinstance(other, numbers.Integral):
        kind = int64
    else:
        kind = float64 if self.dtype is float64 else float32
    base = wrap(call(api.tensor, _core.to_js([float(other)]), _core.to_js({"dtype": kind._name},
                                                                          dict_converter=_js_object)))
    return base.view(()).pow(self)


def _js_object(entries):
    from js import Object
    return Object.fromEntries(entries)


Tensor.__rpow__ = _rpow
