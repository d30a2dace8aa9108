// The notebook's Python files: path in Pyodide's file system -> file in notebook/python/. session.js writes them
// there at start-up; the site's build puts their sources into the worker's script (vite.config.js).
export const PYTHON_FILES = {
  'cells.py': 'cells.py',
  'torch/__init__.py': 'torch/__init__.py',
  'torch/_core.py': 'torch/_core.py',
  'torch/_tensor.py': 'torch/_tensor.py',
  'torch/nn/__init__.py': 'torch/nn/__init__.py',
  'torch/nn/functional.py': 'torch/nn/functional.py',
  'torch/nn/init.py': 'torch/nn/init.py',
  'torch/nn/attention.py': 'torch/nn/attention.py',
  'torch/nn/sparse.py': 'torch/nn/sparse.py',
  'torch/nn/normalization.py': 'torch/nn/normalization.py',
  'torch/serialization.py': 'torch/serialization.py',
  'torch/_pytorch_names.py': 'torch/_pytorch_names.py',
  // What importlib.metadata.version("torch") reads: the release this torch follows. The source is a .txt outside
  // any *.dist-info folder, so that a host Python never takes it for a package.
  'torch-1.13.1.dist-info/METADATA': 'torch-dist-info.txt',
};
