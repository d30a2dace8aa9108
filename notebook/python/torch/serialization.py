"""torch.save and torch.load for the notebook's files.

The file is this notebook's own format, not PyTorch's zip archive: UTF-8 JSON holding the object, with each
tensor as its dtype, shape, requires_grad flag and values (a float32 value goes through a Python float, which
holds it exactly, so a tensor comes back with the same bits). It round-trips tensors, parameters, and dicts
(OrderedDict too), lists, tuples, strings, numbers, booleans and None made of them: a state_dict, or a
checkpoint dict with a model's and its settings. A file PyTorch wrote cannot be read here, nor the other way."""
import json
from collections import OrderedDict

from ._tensor import Tensor

FORMAT = "attention-notebook torch.save"
VERSION = 1


def _encode(obj, path):
    from .nn import Parameter

    if isinstance(obj, Tensor):
        return {"__tensor__": {"dtype": repr(obj.dtype)[len("torch."):], "shape": list(obj.shape),
                               "values": obj.detach().reshape(-1).tolist(), "requires_grad": obj.requires_grad,
                               "parameter": isinstance(obj, Parameter)}}
    if isinstance(obj, (OrderedDict, dict)):
        for key in obj:
            if not isinstance(key, str):
                raise TypeError(f"torch.save: this notebook's format keeps dicts with str keys only, "
                                f"{path} has the key {key!r}")
        items = [[key, _encode(value, f"{path}[{key!r}]")] for key, value in obj.items()]
        return {"__dict__": items, "ordered": isinstance(obj, OrderedDict)}
    if isinstance(obj, (list, tuple)):
        items = [_encode(value, f"{path}[{i}]") for i, value in enumerate(obj)]
        return {"__tuple__": items} if isinstance(obj, tuple) else items
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    raise TypeError(f"torch.save: this notebook's format keeps tensors and dicts, lists and tuples of them, "
                    f"with str, int, float, bool and None; {path} is a {type(obj).__name__}")


def _decode(data):
    import torch
    from .nn import _StateDict  # an OrderedDict that prints as state_dict()'s does

    if isinstance(data, list):
        return [_decode(item) for item in data]
    if not isinstance(data, dict):
        return data
    if "__tensor__" in data:
        t = data["__tensor__"]
        dtype = getattr(torch, t["dtype"])
        shape = t["shape"]
        if t["values"]:
            tensor = torch.tensor(t["values"], dtype=dtype).reshape(shape)
        else:
            tensor = torch.empty(*shape, dtype=dtype)
        if t["parameter"]:
            return torch.nn.Parameter(tensor, requires_grad=t["requires_grad"])
        return tensor.requires_grad_(t["requires_grad"]) if t["requires_grad"] else tensor
    if "__tuple__" in data:
        return tuple(_decode(item) for item in data["__tuple__"])
    items = [(key, _decode(value)) for key, value in data["__dict__"]]
    return _StateDict(items) if data["ordered"] else dict(items)


def save(obj, f):
    """Writes obj to f (a path, or a file opened with "wb") in this notebook's format (not PyTorch's zip)."""
    text = json.dumps({"format": FORMAT, "version": VERSION, "object": _encode(obj, "the object")})
    if isinstance(f, str) or hasattr(f, "__fspath__"):
        with open(f, "w", encoding="utf-8") as out:
            out.write(text)
    else:
        f.write(text.encode("utf-8"))


def load(f, map_location=None, weights_only=False):
    """Reads what torch.save wrote in this notebook; map_location may only name the CPU."""
    if map_location is not None:
        from . import _cpu_only

        _cpu_only(map_location)
    if isinstance(f, str) or hasattr(f, "__fspath__"):
        with open(f, "rb") as source:
            raw = source.read()
    else:
        raw = f.read()
    if raw[:2] == b"PK":
        raise RuntimeError("torch.load: this file is PyTorch's zip format; this notebook's torch reads only the "
                           "files its own torch.save writes")
    try:
        stored = json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
        if stored.get("format") != FORMAT:
            raise ValueError
    except (ValueError, AttributeError, UnicodeDecodeError):
        raise RuntimeError("torch.load: this file was not written by this notebook's torch.save") from None
    return _decode(stored["object"])
