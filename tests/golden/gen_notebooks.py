#!/usr/bin/python3
"""Writes tests/golden/notebooks.json: what PyTorch 1.13 prints for each cell of the learners' notebooks in
tests/notebook/learners/*.py (cells separated by "# %%" lines; the lines before the first are a comment).

Run with Debian's torch:  /usr/bin/python3 tests/golden/gen_notebooks.py
The cells run through notebook/python/cells.py, the runner the page uses, so both sides show a cell the
same way (printed text, then the repr of a last bare expression; errors with their type and line).
For each notebook: a list of {code, output, error} with error null or {type, message, line}.
"""
import glob
import json
import os
import sys

import torch  # noqa: F401  (the real one: the cells import it themselves)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "notebook", "python"))
import cells  # noqa: E402

OUT = os.path.join(HERE, "notebooks.json")


def split_cells(text):
    parts, current = [], None
    for line in text.splitlines():
        if line.startswith("# %%"):
            if current is not None:
                parts.append("\n".join(current).strip("\n"))
            current = []
        elif current is not None:
            current.append(line)
    if current is not None:
        parts.append("\n".join(current).strip("\n"))
    return parts


def main():
    if torch.backends.mkl.is_available():
        sys.exit("this PyTorch uses MKL: its dropout masks are not the default build's (see torch-rng.md)")
    result = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "notebook", "learners", "*.py"))):
        notebook = cells.Notebook()
        torch.set_printoptions(profile="default")
        entries = []
        with open(path, encoding="utf-8") as f:
            for code in split_cells(f.read()):
                output, error = notebook.run(code)
                if error is not None:
                    error = {"type": error["type"], "message": error["message"], "line": error["line"]}
                entries.append({"code": code, "output": output, "error": error})
        result[os.path.basename(path)] = entries
    with open(OUT, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
