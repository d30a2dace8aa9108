"""Writes chapter-start.ipynb as Jupyter does: runs its cells with PyTorch (/usr/bin/python3) the way an IPython
kernel shows them (stdout as a stream, the last bare expression as an execute_result, an error as IPython's
coloured traceback) and saves the notebook as nbformat 4.5 JSON in nbformat's own layout (one-space indents,
sorted keys, a final newline).

    /usr/bin/python3 tests/notebook/jupyter/make_ipynb.py
"""
import ast
import contextlib
import io
import json
import pathlib
import traceback

import torch

HERE = pathlib.Path(__file__).parent

CELLS = [
    ("markdown", "# Attention by hand\n\nThe book's six words, then their attention weights."),
    ("code", "import torch\ntorch.manual_seed(123)\ninputs = torch.rand(6, 3)\ninputs.shape"),
    ("code", "attn_scores = inputs @ inputs.T\nattn_weights = torch.softmax(attn_scores, dim=-1)\nprint(attn_weights[1])\nattn_weights.sum(dim=-1)"),
    ("markdown", "A mistake: a matrix product of mismatched shapes."),
    ("code", "inputs @ inputs"),
    ("code", "for i in range(3):\n    print(i, end=' ')\nprint()"),
    ("raw", "not run"),
]

RED, CYAN, RESET = "\x1b[0;31m", "\x1b[0;36m", "\x1b[0m"


def lines(text):
    return text.splitlines(keepends=True)


def run(code, namespace, count):
    """The outputs Jupyter saves for one cell."""
    tree = ast.parse(code)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    out, outputs = io.StringIO(), []
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(tree, f"<cell {count}>", "exec"), namespace)
            value = eval(compile(ast.Expression(last.value), f"<cell {count}>", "eval"), namespace) if last else None
        if out.getvalue():
            outputs.append({"name": "stdout", "output_type": "stream", "text": lines(out.getvalue())})
        if value is not None:
            outputs.append({"data": {"text/plain": lines(repr(value))}, "execution_count": count, "metadata": {}, "output_type": "execute_result"})
    except Exception as error:  # noqa: BLE001 - a learner's error is an output
        if out.getvalue():
            outputs.append({"name": "stdout", "output_type": "stream", "text": lines(out.getvalue())})
        frames = traceback.format_exception_only(type(error), error)
        outputs.append({
            "ename": type(error).__name__,
            "evalue": str(error),
            "output_type": "error",
            "traceback": [
                f"{RED}---------------------------------------------------------------------------{RESET}",
                f"{RED}{type(error).__name__}{RESET}                              Traceback (most recent call last)",
                f"Cell {CYAN}In[{count}], line 1{RESET}\n{RED}----> 1{RESET} {code.splitlines()[0]}\n",
                f"{RED}{type(error).__name__}{RESET}: {''.join(frames).split(': ', 1)[-1].strip()}",
            ],
        })
    return outputs


def main():
    namespace, count, cells = {}, 0, []
    for i, (kind, source) in enumerate(CELLS):
        cell = {"cell_type": kind, "id": f"c{i:02d}-jupyter", "metadata": {}, "source": lines(source)}
        if kind == "code":
            count += 1
            cell["execution_count"] = count
            cell["outputs"] = run(source, namespace, count)
        cells.append(cell)
    notebook = {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python", "version": "3.11.2", "mimetype": "text/x-python", "file_extension": ".py"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(notebook, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    (HERE / "chapter-start.ipynb").write_text(text, encoding="utf-8")
    print(f"wrote {HERE / 'chapter-start.ipynb'} (torch {torch.__version__})")


if __name__ == "__main__":
    main()
