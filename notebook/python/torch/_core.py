"""The one place where this torch calls the attention core (the JavaScript API of wasm/api, registered by
the notebook as the module `_attention_api`). Every value is computed there, by the same WebAssembly as
the page; this package only decides which operation runs, the way PyTorch's Python layer does.

The core's errors arrive as a JavaScript AttentionError; `call` raises them as the Python exception
PyTorch raises for the same mistake (RuntimeError, IndexError for an index out of range, MemoryError when
the core's heap cannot grow)."""
import gc

from pyodide.ffi import JsException, JsProxy, to_js

import _attention_api as api  # noqa: F401  (registered by notebook/session.js)


def python_error(error):
    message = getattr(error, "message", None) or str(error)
    if message.startswith("AttentionError: "):
        message = message[len("AttentionError: "):]
    if "out of range" in message or "out of bounds" in message:
        return IndexError(message)
    if "out of memory" in message:
        gc.collect()  # frees the tensors that only reference cycles still held
        usage = api.memoryUsage()
        return MemoryError(f"{message} (the core's heap has grown to {usage.heapBytes >> 20} MB, "
                           f"{usage.allocatedBytes >> 20} MB of it in use)")
    return RuntimeError(message)


def call(function, *args):
    """function(*args) in the core; its error becomes a Python exception."""
    try:
        return function(*args)
    except JsException as error:
        raise python_error(error) from None


def is_js(value):
    return isinstance(value, JsProxy)
