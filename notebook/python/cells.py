"""Runs notebook cells the way Jupyter shows them: one namespace for every cell; a cell's output is what it
prints, then the repr of its last statement when that is a bare expression whose value is not None; an
error ends the cell with a short traceback through the learner's own lines.

Plain Python with no dependency, so the same file runs the page's cells (over the notebook's torch) and
tests/golden/gen_notebooks.py (over PyTorch itself)."""
import ast
import builtins
import io
import linecache
import os
import signal
import sys
import traceback


class Notebook:
    def __init__(self):
        self.namespace = {"__name__": "__main__", "__builtins__": __builtins__}
        self.count = 0

    def run(self, source, stream=None, on_stop=None):
        """Runs one cell: returns (output, error), error None or a dict: type, message, line, traceback.
        `stream`, if given, is also called with each piece of text as the cell prints it; `on_stop`, if given,
        is called when Python takes a Stop (SIGINT), just before the KeyboardInterrupt is raised."""
        self.count += 1
        filename = f"<cell {self.count}>"
        # The traceback module reads a cell's lines from here, also for functions it defined.
        lines = source.splitlines(keepends=True)
        linecache.cache[filename] = (len(source), None, lines, filename)

        out = _Output(stream)
        stdout, stderr, stdin = sys.stdout, sys.stderr, sys.stdin
        sys.stdout = sys.stderr = out
        sys.stdin = _NO_INPUT
        error = None
        handler = _taken_by(on_stop) if on_stop is not None else None
        previous_handler = signal.signal(signal.SIGINT, handler) if handler is not None else None
        try:
            tree = ast.parse(source, filename, "exec")
            last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            if last is not None:
                tree.body.pop()
            exec(compile(tree, filename, "exec"), self.namespace)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), filename, "eval"), self.namespace)
                if value is not None:
                    self.namespace["_"] = value
                    print(repr(value))
        except KeyboardInterrupt as stopped:  # the Stop button
            error = describe(stopped, filename)
            error["message"] = "the cell was stopped"
            error["traceback"] += ": the cell was stopped"
        except BaseException as e:  # noqa: BLE001  (the learner's error, shown under the cell)
            error = describe(e, filename)
        finally:
            sys.stdout, sys.stderr, sys.stdin = stdout, stderr, stdin
            if handler is not None and signal.getsignal(signal.SIGINT) is handler:  # a cell's own one stays
                signal.signal(signal.SIGINT, previous_handler)
        return out.getvalue(), error


def _taken_by(on_stop):
    """A SIGINT handler that says it has taken the signal (the host can then tell a Stop that Python is
    acting on from one it never saw), then raises the KeyboardInterrupt as Python's own handler does."""

    def taken(signum, frame):
        on_stop()
        raise KeyboardInterrupt

    return taken


class _Output(io.StringIO):
    """What a cell prints: kept, and passed on as it comes when someone follows it."""

    def __init__(self, stream):
        super().__init__()
        self._stream = stream

    def write(self, text):
        if self._stream is not None and text:
            self._stream(text)
        return super().write(text)


class _NoInput(io.TextIOBase):
    """A cell's stdin: no one can type into a running cell, so input() fails at once and says why."""

    def readable(self):
        return True

    def readline(self, size=-1):
        raise EOFError("nothing to read: a notebook cell cannot read typed input (input(), sys.stdin); "
                       "give the value in the cell instead")

    read = readline


_NO_INPUT = _NoInput()


def describe(error, filename):
    """The error as the notebook shows it: its type, message, the line of this cell, and a traceback that
    keeps only the frames of cells (not those of torch or of this runner)."""
    kind = type(error).__name__
    if isinstance(error, SyntaxError) and error.filename == filename:
        text = (error.text or "").rstrip("\n")
        lines = ["  Cell " + _cell_label(filename) + f", line {error.lineno}"]
        if text:
            lines.append("    " + text.strip())
            if error.offset:
                indent = len(text) - len(text.lstrip())
                lines.append("    " + " " * max(error.offset - 1 - indent, 0) + "^")
        message = error.msg
        lines.append(f"{kind}: {message}")
        return {"type": kind, "message": message, "line": error.lineno, "traceback": "\n".join(lines)}

    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename.startswith("<cell ")]
    line = next((f.lineno for f in frames if f.filename == filename), None)
    try:
        message = str(error)
    except Exception as failed:  # noqa: BLE001  (a learner's __str__ that raises: the type still tells)
        message = f"<exception str() failed: {type(failed).__name__}>"
    shown = ["Traceback (most recent call last):"]
    for frame in frames:
        where = f"  Cell {_cell_label(frame.filename)}, line {frame.lineno}"
        if frame.name != "<module>":
            where += f", in {frame.name}"
        shown.append(where)
        if frame.line:
            shown.append("    " + frame.line.strip())
    shown.append(f"{kind}: {message}" if message else kind)
    return {"type": kind, "message": message, "line": line, "traceback": "\n".join(shown)}


def _cell_label(filename):
    return "[" + filename[len("<cell "):-1] + "]"


def as_utf8(result):
    """run's (output, error) with each text as UTF-8 bytes, for a host that reads them from their buffers
    because its own conversion of a long str cannot be trusted once memory is short (encoding them either
    works or raises MemoryError)."""
    output, error = result
    encode = lambda text: text.encode("utf-8", "surrogatepass")  # noqa: E731
    if error is not None:
        error = {key: encode(value) if isinstance(value, str) else value for key, value in error.items()}
    return encode(output), error


def cap_recursion_limit(ceiling):
    """Makes sys.setrecursionlimit stop at `ceiling`: deeper, the engine's stack would overflow before Python
    raises RecursionError, and that would end Python."""
    set_limit = sys.setrecursionlimit

    def setrecursionlimit(limit):
        set_limit(limit)  # Python's own checks of the value
        if sys.getrecursionlimit() > ceiling:
            set_limit(ceiling)

    setrecursionlimit.__doc__ = f"{set_limit.__doc__}\n\nHere at most {ceiling}."
    sys.setrecursionlimit = setrecursionlimit


def pristine():
    """A function that puts back what a cell may have changed of the interpreter as it is now: the loaded
    modules (modules imported since are dropped, so they load afresh), builtins, sys's attributes and path,
    the working directory and the recursion limit."""
    modules, loaded = sys.modules, dict(sys.modules)
    names, sys_names, path = dict(builtins.__dict__), dict(sys.__dict__), list(sys.path)
    cwd, limit = os.getcwd(), sys.getrecursionlimit()

    def restore():
        modules.clear()
        modules.update(loaded)
        builtins.__dict__.clear()
        builtins.__dict__.update(names)
        sys.__dict__.update(sys_names)
        sys.path[:] = path
        os.chdir(cwd)
        sys.setrecursionlimit(limit)

    return restore
