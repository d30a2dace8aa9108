"""torch.nn for this notebook: Module with PyTorch's attribute registration, Parameter, ModuleList,
Sequential, and the two layers chapter 3 uses. Linear draws its initial weights from the core exactly as
nn.Linear does (Kaiming-uniform weight, then the bias) and computes through the core's linear, so a
learner's own classes built from these give PyTorch's numbers."""
from collections import OrderedDict, namedtuple

from .. import _core
from .._core import api, call
from .._tensor import Tensor, wrap
from . import functional, init  # noqa: F401


class Parameter(Tensor):
    """A tensor that a Module registers as its parameter; it shares the storage of the tensor it is made from."""

    __slots__ = ()

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = wrap(call(api.empty, 0))
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, not {type(data).__name__}")
        parameter = object.__new__(cls)
        parameter._t = data._t.asParameter(bool(requires_grad))
        return parameter

    def __init__(self, data=None, requires_grad=True):
        pass


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """The base class of every layer and of the learner's own classes."""

    training: bool

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() takes no arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    # ------------------------------------------------------------ attributes, as PyTorch registers them
    def __setattr__(self, name, value):
        params = self.__dict__.get("_parameters")
        modules = self.__dict__.get("_modules")
        buffers = self.__dict__.get("_buffers")

        def forget(*dicts):
            for d in dicts:
                if d is not None and name in d:
                    del d[name]

        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            forget(self.__dict__, buffers, modules)
            params[name] = value
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
        elif isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            forget(self.__dict__, params, buffers)
            modules[name] = value
        elif modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{_type_name(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = None
        elif buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{_type_name(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(store)
            if found is not None and name in found:
                return found[name]
        from .. import _missing

        raise _missing("Module", name, f"'{type(self).__name__}' object")

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            found = self.__dict__.get(store)
            if found is not None and name in found:
                del found[name]
                return
        object.__delattr__(self, name)

    def register_buffer(self, name, tensor, persistent=True):
        if self.__dict__.get("_buffers") is None:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_type_name(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        if self.__dict__.get("_parameters") is None:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_type_name(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._parameters[name] = param

    def add_module(self, name, module):
        self._modules[name] = module

    # ------------------------------------------------------------ the tree
    def named_children(self):
        for name, module in self._modules.items():
            if module is not None:
                yield name, module

    def children(self):
        for _, module in self.named_children():
            yield module

    def named_modules(self, prefix=""):
        yield prefix, self
        for name, module in self.named_children():
            yield from module.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self):
        for _, module in self.named_modules():
            yield module

    def named_parameters(self, prefix="", recurse=True):
        seen = set()
        tree = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_prefix, module in tree:
            for name, param in module._parameters.items():
                if param is None or id(param) in seen:
                    continue
                seen.add(id(param))
                yield (f"{module_prefix}.{name}" if module_prefix else name), param

    def parameters(self, recurse=True):
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix="", recurse=True):
        tree = self.named_modules(prefix) if recurse else [(prefix, self)]
        for module_prefix, module in tree:
            for name, buffer in module._buffers.items():
                if buffer is not None:
                    yield (f"{module_prefix}.{name}" if module_prefix else name), buffer

    def buffers(self, recurse=True):
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def apply(self, fn):
        """fn(module) for every submodule, children first, then for this module (as nn.init loops use it)."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------ state dicts, as PyTorch 1.13 makes and loads them
    def _local_state(self):
        """This module's own entries: parameters, then the buffers that persist (register_buffer's default)."""
        state = [(name, p) for name, p in self._parameters.items() if p is not None]
        state += [(name, b) for name, b in self._buffers.items()
                  if b is not None and name not in self._non_persistent_buffers_set]
        return state

    def state_dict(self, *, destination=None, prefix="", keep_vars=False):
        if destination is None:
            destination = _StateDict()
        for name, value in self._local_state():
            destination[prefix + name] = value if keep_vars else value.detach()
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=f"{prefix}{name}.", keep_vars=keep_vars)
        return destination

    def _load_local(self, state_dict, prefix, strict, missing, unexpected, errors):
        from .. import no_grad

        local = dict(self._local_state())
        for name, value in local.items():
            key = prefix + name
            if key not in state_dict:
                missing.append(key)
                continue
            given = state_dict[key]
            if not isinstance(given, Tensor):
                errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                              f"object from checkpoint but received {type(given)}")
            elif given.shape != value.shape:
                errors.append(f"size mismatch for {key}: copying a param with shape {given.shape} from checkpoint, "
                              f"the shape in current model is {value.shape}.")
            else:
                with no_grad():
                    value.copy_(given)
        if strict:
            for key in state_dict:
                if key.startswith(prefix):
                    first = key[len(prefix):].split(".", 1)[0]
                    if first not in self._modules and first not in local:
                        unexpected.append(key)
        for name, module in self._modules.items():
            if module is not None:
                module._load_local(state_dict, f"{prefix}{name}.", strict, missing, unexpected, errors)

    def load_state_dict(self, state_dict, strict=True):
        if not isinstance(state_dict, dict):  # an OrderedDict is a dict
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        self._load_local(state_dict, "", strict, missing, unexpected, errors)
        if strict:
            if unexpected:
                errors.insert(0, f"Unexpected key(s) in state_dict: {_quoted(unexpected)}. ")
            if missing:
                errors.insert(0, f"Missing key(s) in state_dict: {_quoted(missing)}. ")
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__,
                                                                                   "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        pass

    def to(self, *args, **kwargs):
        """Checks a device (the CPU only here, as in a build without CUDA); the parameters stay float32."""
        from .. import _cpu_only, _is_device

        for target in [*args, kwargs.get("device")]:
            if target is not None and _is_device(target):
                _cpu_only(target)
        return self

    def cpu(self):
        return self

    def cuda(self, device=None):
        raise AssertionError("Torch not compiled with CUDA enabled")

    # ------------------------------------------------------------ printing, as PyTorch 1.13 prints modules
    def extra_repr(self):
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


class _StateDict(OrderedDict):
    """The OrderedDict state_dict() returns, printed as PyTorch 1.13's Python (3.11 and older) prints one:
    OrderedDict([('weight', tensor(...)), ...]), where Python 3.12 would print OrderedDict({...})."""

    def __repr__(self):
        return f"OrderedDict({list(self.items())!r})" if self else "OrderedDict()"


_StateDict.__name__ = _StateDict.__qualname__ = "OrderedDict"
_StateDict.__module__ = "collections"


def _quoted(keys):
    return ", ".join(f'"{key}"' for key in keys)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns, printed as PyTorch prints it."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _type_name(value):
    if isinstance(value, Tensor):
        return "torch.BoolTensor" if value.dtype.__repr__() == "torch.bool" else "torch.FloatTensor"
    return type(value).__name__


class Linear(Module):
    """y = x W^T + b, with W of shape [out_features, in_features]."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        layer = call(api.nn.Linear.new, in_features, out_features, bool(bias))
        try:
            self.weight = Parameter(wrap(layer.weight))
            if bias:
                self.bias = Parameter(wrap(layer.bias))
            else:
                self.register_parameter("bias", None)
        finally:
            layer.delete()

    def forward(self, input):
        return functional.linear(input, self.weight, self.bias)

    def extra_repr(self):
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Dropout(Module):
    """Zeroes each element with probability p in training mode and scales the rest by 1 / (1 - p)."""

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        if inplace:
            raise ValueError("Dropout(inplace=True) is not available in this notebook's torch")
        self.p = p
        self.inplace = inplace

    def forward(self, input):
        return functional.dropout(input, self.p, self.training)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Identity(Module):
    def forward(self, input):
        return input


class ModuleList(Module):
    """A list of submodules, registered under "0", "1", ..."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, index):
        n = len(self)
        if not -n <= index < n:
            raise IndexError(f"index {index} is out of range")
        return str(index % n)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return ModuleList(list(self._modules.values())[index])
        return self._modules[self._index(index)]

    def __setitem__(self, index, module):
        setattr(self, self._index(index), module)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for module in modules:
            self.append(module)
        return self

    def add_module(self, name, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_type_name(module)} is not a Module subclass")
        self._modules[name] = module


class Sequential(Module):
    def __init__(self, *modules):
        super().__init__()
        for i, module in enumerate(modules):
            self.add_module(str(i), module)

    def __getitem__(self, index):
        return list(self._modules.values())[index]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


__all__ = ["Module", "Parameter", "Linear", "Dropout", "Identity", "ModuleList", "Sequential", "functional"]
del _core

from .attention import MultiheadAttention, NonDynamicallyQuantizableLinear  # noqa: E402  (they build on the above)
from .sparse import Embedding  # noqa: E402
from .normalization import LayerNorm  # noqa: E402

__all__ += ["MultiheadAttention", "NonDynamicallyQuantizableLinear", "Embedding", "LayerNorm", "init"]

# Where PyTorch defines each class, so that type(m) prints as PyTorch's: <class 'torch.nn.modules.linear.Linear'>.
Parameter.__module__ = "torch.nn.parameter"
for _module, _classes in {"module": [Module], "linear": [Linear, Identity, NonDynamicallyQuantizableLinear],
                          "dropout": [Dropout], "container": [ModuleList, Sequential],
                          "activation": [MultiheadAttention], "sparse": [Embedding],
                          "normalization": [LayerNorm]}.items():
    for _class in _classes:
        _class.__module__ = f"torch.nn.modules.{_module}"
del _module, _classes, _class


def __getattr__(name):
    from .. import _missing

    raise _missing("nn", name, "module 'torch.nn'")
