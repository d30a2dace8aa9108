// attention-lab/diagnose: which change of the chapter's code or settings prints exactly what a learner's
// PyTorch printed.

/** A change of one kind from the given settings, with a sentence and the line of code that differs. */
export interface Change {
  kind: 'seed' | 'profile' | 'draws' | 'mistake' | 'setting';
  /** the setting (seed, seedV2, inputSeed, profile, d_out, heads, p, qkv_bias, training), the seed a draws change follows, or the mistake's id */
  name: string;
  from: number | string | boolean;
  to: number | string | boolean;
  /** a sentence for the learner */
  text: string;
  /** the line as the settings have it, and as the learner's run had it */
  code: { from: string; to: string };
}

export interface Answer {
  /** the page's step (its id, as in #step=) that shows the result */
  step: string;
  /** the chapter's name of the result (web/chapter/) */
  result: string;
  /** how the page labels it, e.g. 'sa_v2(inputs)'; with the columns compared when the paste is one head's, e.g. 'mha(batch)[..., 2:4]' */
  label: string;
  /** the index of the part compared (of the label's columns, if any), when the paste is one copy of the batch, one head or one row; [] for the whole */
  at: number[];
  /** none: the paste is exactly what the given settings print */
  changes: Change[];
  cells: { equal: number; total: number };
  /** for the nearest answer: the first cell that differs, with what was pasted and what the result holds */
  firstDifference: { index: number[]; yours: string; ours: number } | null;
  /** whether each pasted number, in order, is equal to the result's (null for a torch.Size) */
  matches: boolean[] | null;
}

/** Page settings by the keys of the page's state (web/state.js SETTINGS), each optional. */
export interface DiagnoseSettings {
  seed?: number;
  seedV2?: number;
  p?: number;
  d_out?: number;
  heads?: number;
  profile?: 'default' | 'mkl';
  qkv_bias?: boolean;
  context_length?: number | null;
  tokens?: string[];
  inputs?: 'typed' | 'rand' | 'randn';
  inputSeed?: number;
  embeddings?: number[][];
  query?: number;
}

export interface DiagnoseRequest {
  /** what PyTorch printed: tensor(...), Parameter containing:, grad_fn=..., a 0-d tensor or a torch.Size */
  printed: string;
  /** a link's parameters ('d_out=4&heads=2') or the settings; the book's by default */
  settings?: string | DiagnoseSettings;
  /** one step's results only (a step id such as 'mha-output') */
  step?: string;
}

/** Exact answers, fewest changes first; with none, the nearest result and its first differing cell. */
export function diagnose(request: DiagnoseRequest): Promise<{ exact: Answer[]; nearest: Answer | null }>;

/**
 * Readies the search before the first diagnose() (loads the core, runs a short search whose answer is dropped);
 * changes no answer. `stillWanted` is asked between its stages: false ends it there.
 */
export function warmUp(options?: { settings?: string | DiagnoseSettings; stillWanted?: () => boolean }): Promise<void>;

/** Rejections of a paste or of settings, with a message that says what is wrong. */
export class DiagnoseError extends Error {
  name: 'DiagnoseError';
}

export interface PrintedNumber {
  text: string;
  value: number;
  decimals: number;
  scientific: boolean;
}

/** Reads a printout; throws a DiagnoseError when it is not one. */
export function parsePrinted(printed: string): { kind: 'tensor'; shape: number[]; numbers: PrintedNumber[] } | { kind: 'size'; shape: number[] };
