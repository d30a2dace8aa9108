// The notebook's Python files: path in Pyodide's file system -> file in notebook/python/. session.js writes them
// there at start-up; the site's build puts their sources into the worker's script (vite.config.js).
// Each file sits at the same path in notebook/python/, except the one in RENAMED.
const SAME_PATH = [
  'cells.py',
  'torch/__init__.py',
  'torch/_core.py',
  'torch/_tensor.py',
  'torch/nn/__init__.py',
  'torch/nn/functional.py',
  'torch/nn/init.py',
  'torch/nn/attention.py',
  'torch/nn/sparse.py',
  'torch/nn/normalization.py',
  'torch/serialization.py',
  'torch/_pytorch_names.py',
];
const RENAMED = {
  // What importlib.metadata.version("torch") reads: the release this torch follows. The source is a .txt outside
  // any *.dist-info folder, so that a host Python never takes it for a package.
  'torch-1.13.1.dist-info/METADATA': 'torch-dist-info.txt',
};
// In this order (a snapshot's key hashes the paths as listed).
export const PYTHON_FILES = { ...Object.fromEntries(SAME_PATH.map((path) => [path, path])), ...RENAMED };
