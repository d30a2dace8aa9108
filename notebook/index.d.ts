// Declarations for notebook/index.js: chapter-3 Python cells with PyTorch's exact output.
//
//   import { loadNotebook } from 'attention-lab/notebook';
//   const nb = await loadNotebook({ profile: 'default' });
//   const { output, error } = await nb.run('import torch\ntorch.manual_seed(123)\nprint(torch.rand(2))');
//   await nb.close();

/** Thrown by loadNotebook and the methods (bad arguments, a closed notebook, Python failing to load, the worker
 * ending under a call: the next call starts a new one). A learner's Python error is not thrown: it is the
 * `error` of run's result. */
export declare class NotebookError extends Error {
  constructor(message: string);
  name: 'NotebookError';
}

/** Which PyTorch build's dropout masks to reproduce: the default CPU build, or an Intel-MKL build. */
export type NotebookProfile = 'default' | 'mkl';

export interface NotebookOptions {
  /** Default 'default'. */
  profile?: NotebookProfile;
  /** The core's WebAssembly build; by default SIMD where the engine has it. */
  flavour?: 'simd' | 'scalar';
  /** The folder (URL) holding pyodide.mjs and its files. Browser default: pyodide/ beside the page (where
   * the built site puts it); Node default: the installed `pyodide` package. */
  pyodideURL?: string;
  /** Node only. Default false: a cell cannot run commands, read or write the host's files, open connections
   * or reach Node's globals (its `js` module holds plain JavaScript and timers). True gives it the rights of
   * the calling process: only for trusted code. */
  hostAccess?: boolean;
  /** Told each stage of loading, with the fraction done (0 to 1). */
  onProgress?: (message: string, fraction: number) => void;
  /** A snapshot that onSnapshot gave (or a promise of one, null when there is none): Python is restored from
   * it instead of started, when it was made from the same Pyodide, Python files and core; otherwise it is
   * refused (`snapshotRefused` says why) and Python starts as usual. Later starts (a Stop that must restart
   * Python) restore from it too. */
  snapshot?: ArrayBuffer | Uint8Array | PromiseLike<ArrayBuffer | Uint8Array | null> | null;
  /** The absolute address of a snapshot made by a build of the site (`notebook-python-snapshot.gz`, made under
   * Node by scripts/build-notebook-snapshot.mjs for the browser's SIMD core), read by the notebook's worker
   * beside Pyodide's files when `snapshot` gives none, as it arrives (Pyodide compiles meanwhile); refused like any
   * other when made from other files, and left for a start of Python when, once Pyodide is compiled, the rest
   * would take more than 4 s to download. */
  snapshotURL?: string | null;
  /** Called with a snapshot of Python (about 30 MB) taken at a start that restored none: cells and torch
   * imported, before any cell runs. Keep it (for example in the Cache Storage of the site's build) and give it
   * as `snapshot` next time. */
  onSnapshot?: (snapshot: Uint8Array) => void;
}

/** A Python error raised by a cell. */
export interface CellError {
  /** The exception's type: 'RuntimeError', 'NameError', 'SyntaxError', 'KeyboardInterrupt', ... */
  type: string;
  message: string;
  /** The line of the cell where it happened (1-based), or null when it is not in the cell. */
  line: number | null;
  /** A short traceback through the cells' own lines, ending with "Type: message". */
  traceback: string;
}

export interface CellResult {
  /** What Jupyter shows under the cell: what it printed, then the repr of its last bare expression (unless None). */
  output: string;
  error: CellError | null;
}

export interface Notebook extends AsyncDisposable {
  readonly profile: NotebookProfile;
  /** The core's kernels: 'wasm-simd128' or 'wasm-scalar'. */
  readonly backend: string;
  /** True when stop() keeps the namespace (KeyboardInterrupt); false when it must restart Python. */
  readonly interruptible: boolean;
  /** True when the last start restored Python from the snapshot given rather than starting it. */
  readonly restoredFromSnapshot: boolean;
  /** Which snapshot the last start restored Python from: 'given' (`snapshot`), 'build' (`snapshotURL`), or null. */
  readonly restoredFrom: 'given' | 'build' | null;
  /** Why the snapshot given was not used at the last start; null when it was, or none was given. */
  readonly snapshotRefused: string | null;
  /** Runs a cell in the notebook's one namespace; cells run one after another, in the order given.
   * onOutput receives what the cell prints while it runs, in pieces (the result's output holds all of it); if
   * it throws, that is reported once on the console and it hears no more of the cell. */
  run(code: string, options?: { onOutput?: (text: string) => void }): Promise<CellResult>;
  /** Dropout masks of the cells that follow come from this build's generator path. */
  setProfile(profile: NotebookProfile): Promise<void>;
  /** An empty namespace and an interpreter as it started, like restarting a Jupyter kernel (in a new worker
   * when a cell broke Python past repair). */
  restart(): Promise<void>;
  /** Stops the running cell (its result is a KeyboardInterrupt error; where Python must be restarted for it,
   * the result keeps what the cell printed through onOutput); the runs queued behind it end with a
   * KeyboardInterrupt without running. Python is restarted when it does not take the interrupt within 3 s (C
   * code that never checks), or does not end the cell within 20 s of taking it (a cell that catches it and runs
   * on). Resolves with what it did: 'interrupted' (the namespace kept), 'restarted' (a new Python), or 'idle'
   * (nothing was running). */
  stop(): Promise<'interrupted' | 'restarted' | 'idle'>;
  /** Ends the worker; later calls reject with a NotebookError. */
  close(): Promise<void>;
}

/** Loads Python (Pyodide) and the attention core in a worker; a fresh namespace each time. */
export declare function loadNotebook(options?: NotebookOptions): Promise<Notebook>;

/** The result of a run that Stop ended before it ran: a KeyboardInterrupt that says so, nothing printed. */
export declare function stoppedBeforeItRan(): CellResult;
