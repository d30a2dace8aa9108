/// <reference lib="esnext.disposable" />
// Declarations for wasm/index.js: the attention core as a PyTorch-shaped JavaScript API.
//
//   import { loadAttention } from 'attention-lab';
//   const torch = await loadAttention();
//   torch.manualSeed(123);
//   const sa = new torch.SelfAttention_v1(3, 2);
//   console.log(sa.forward(inputs).toString());
//
// Tensors and modules are classes made by each loadAttention() call, so they are exported here as types
// only; reach the constructors through the loaded object (torch.Tensor, torch.nn.Linear, ...).

/** The one error type of the API. Its message names the operation, the argument, what was expected and
 * what was received, e.g. `matmul: shapes [6,3] and [2,3] cannot be multiplied (3 != 2)`. */
export declare class AttentionError extends Error {
  constructor(message: string);
  name: 'AttentionError';
}

/** Which WebAssembly build to load: SIMD128 kernels, the same on several threads (pthreads), or scalar ones. */
export type Flavour = 'simd' | 'simd-threads' | 'scalar';

export interface LoadOptions {
  /** Force a build; by default 'simd-threads' in Node, and in a cross-origin-isolated page given `threads`
   * (not in the single-file edition); else 'simd' where the engine validates SIMD128; else 'scalar'. */
  flavour?: Flavour;
  /** How many threads the threaded build runs on (1 to 256, the caller's included); by default the
   * machine's (os.availableParallelism(), navigator.hardwareConcurrency). More than 1 needs 'simd-threads'.
   * The results have the same bits on any number of threads. */
  threads?: number;
}

/** Loads the WebAssembly module and returns the API object. Rejects with an AttentionError on a bad flavour
 * or a bad thread count. */
export declare function loadAttention(options?: LoadOptions): Promise<Torch>;

/** The kernels the loaded build runs. */
export type Backend = 'wasm-simd128' | 'wasm-scalar';

/** float32 is the default; int64 values are exact up to 2^53 - 1 (beyond it the core refuses them); int32
 * values wrap around as PyTorch's do. */
export type DType = 'float32' | 'bool' | 'int64' | 'float64' | 'int32';

/** A creation function's last argument: the dtype of what it makes. */
export interface DTypeOptions {
  dtype?: DType;
}

/** The Python kind a number stands for in PyTorch's type promotion. */
export type ScalarKind = 'float' | 'int' | 'bool';

/** A number with its Python kind, made by torch.scalar(value, kind). */
export interface Scalar {
  readonly value: number;
  readonly kind: ScalarKind;
}

/**
 * The second operand of an element-wise op or comparison: a tensor, or a number standing for a Python one
 * (a number is a float, a BigInt an int, a boolean a bool, a Scalar what its kind says). As in PyTorch, the
 * number's kind, not its value, decides the result's dtype: an int64 tensor plus 1n stays int64, plus 1 (a
 * float) becomes float32.
 */
export type Operand = Tensor | number | bigint | boolean | Scalar;

/** PyTorch's dropout paths: 'default' (two words per element) or 'mkl' (Intel MKL builds: one word per call). */
export type RngProfile = 'default' | 'mkl';

/**
 * How CausalAttention and MultiHeadAttention compute attention: 'exact' (PyTorch's steps, the T×T weights,
 * PyTorch's bits), 'fast' (per head, tiled with an online softmax, never the masked half nor the T×T
 * weights; the projections keep PyTorch's bits, the attention agrees to a size-scaled tolerance; only when
 * dropout is inactive, i.e. eval mode or p = 0) or 'auto' (the default: 'fast' from 64 tokens on when
 * dropout is inactive, 'exact' otherwise, so every size the book prints is exact).
 */
export type AttentionPath = 'auto' | 'exact' | 'fast';

/** A number (float32), a BigInt (int64), a boolean (bool), or nested arrays of them (never ragged; numbers
 * and booleans not mixed; BigInts beside numbers make float32). */
export type NestedData = number | bigint | boolean | readonly NestedData[];

/** What Tensor.toArray() returns: a number (or boolean) for a 0-d tensor, nested arrays otherwise. */
export type TensorData = number | boolean | TensorData[];

/** A shape: sizes as separate arguments (`zeros(2, 3)`) or as one array (`zeros([2, 3])`, `zeros(t.shape)`). */
export type ShapeArgs = number[] | [shape: readonly number[]];

/** A shape, then optionally the dtype: `zeros(2, 3, { dtype: 'int64' })`. */
export type ShapeAndDType = ShapeArgs | [...sizes: number[], options: DTypeOptions] |
  [shape: readonly number[], options: DTypeOptions];

/** What max/min along a dim return: the values and the int64 indices where they are. */
export interface ValuesIndices {
  values: Tensor;
  indices: Tensor;
}

export interface PrintOptions {
  /** Digits after the decimal point (default 4), an integer in [0, 149]: by 149 every float32 is exact. */
  precision?: number;
  /** Above this many elements, print a summary (default 1000). */
  threshold?: number;
  /** Items shown at each end of a summarised dim (default 3), a non-negative integer. */
  edgeitems?: number;
  /** Characters per line (default 80), an integer; 0 or less puts one element per line, as in PyTorch. */
  linewidth?: number;
  /** true forces scientific notation, false forbids it; absent or null chooses (and is reset by every call). */
  sciMode?: boolean | null;
  /** Sets every option above first: 'default', 'short' (precision 2) or 'full' (no summary). */
  profile?: 'default' | 'short' | 'full';
}

export interface MemoryUsage {
  /** Size of the WebAssembly heap. */
  heapBytes: number;
  /** Bytes of it allocated right now (modules hold some; tensors live in JavaScript). */
  allocatedBytes: number;
}

/** A float32 (or bool) tensor whose values live in JavaScript: nothing to free. Views share storage. */
declare class Tensor implements Iterable<Tensor> {
  /**
   * PyTorch's legacy torch.Tensor(*sizes): float32 zeros of these sizes (PyTorch leaves them uninitialised);
   * with none, an empty 1-D tensor. torch.zeros and torch.tensor say what they make more plainly.
   */
  constructor(...sizes: number[]);
  /** PyTorch's legacy torch.Tensor(data): these nested values as float32 (booleans as 1 and 0). */
  constructor(data: readonly NestedData[]);

  /** The sizes, a fresh array each time. */
  readonly shape: number[];
  readonly dtype: DType;
  readonly ndim: number;
  /** True for module parameters and for results computed from them. */
  readonly requiresGrad: boolean;
  /** PyTorch's grad_fn name, e.g. 'MmBackward0', or null. */
  readonly gradFn: string | null;
  /** True for what nn.Parameter holds: it prints as "Parameter containing:". */
  readonly isParameter: boolean;
  numel(): number;
  /** All sizes, or the size of one dim (negative dims count from the end). */
  size(): number[];
  size(dim: number): number;

  /** A row-major copy of the values: a Float64Array for int64 and float64 tensors. */
  readonly data: Float32Array | Float64Array;
  /** The value of a one-element tensor. */
  item(): number;
  toArray(): TensorData;
  /** PyTorch's str(tensor), under the current print options. */
  toString(): string;
  bool(): Tensor;
  /** A float32 copy (torch's .float()). */
  float(): Tensor;
  /** An int64 copy, each value truncated toward 0 (torch's .long()). */
  long(): Tensor;
  /** A float64 copy (torch's .double()). */
  double(): Tensor;
  /** An int32 copy (torch's .int()): truncated toward 0, wrapped into 32 bits. */
  int(): Tensor;
  /** Itself when already of `dtype`, else a converted copy (torch's .to(dtype)). */
  to(dtype: DType): Tensor;

  // autograd flags: these share this tensor's storage
  /** The same values without grad_fn or requires_grad (torch's detach()). */
  detach(): Tensor;
  /** What torch.nn.Parameter(t, requires_grad) holds. */
  asParameter(requiresGrad?: boolean): Tensor;
  /** Sets requires_grad on a leaf tensor; returns it. */
  requiresGrad_(requiresGrad?: boolean): this;

  // views: they share this tensor's storage
  /** t[index] */
  at(index: number): Tensor;
  select(dim: number, index: number): Tensor;
  /** t[start:end:step] along dim (end defaults to the end, step to 1; a step must be positive). */
  slice(dim: number, start: number, end?: number, step?: number): Tensor;
  /** Iterates over dim 0, like `for x in t` (throws on a 0-d tensor). */
  [Symbol.iterator](): Iterator<Tensor>;
  readonly T: Tensor;
  transpose(dim0: number, dim1: number): Tensor;
  /** One size may be -1 (inferred). */
  view(...shape: ShapeArgs): Tensor;
  reshape(...shape: ShapeArgs): Tensor;
  /** Dims startDim..endDim (default: all) merged into one; a view where the strides allow. */
  flatten(startDim?: number, endDim?: number): Tensor;
  /** A view with its dims in the order `dims` names them. */
  permute(...dims: ShapeArgs): Tensor;
  /** A view with dim `source` moved to position `destination`. */
  movedim(source: number, destination: number): Tensor;
  /** A view without dim `dim` if its size is 1, or without every dim of size 1. */
  squeeze(dim?: number | null): Tensor;
  /** A view repeating size-1 dims (stride 0) to `size`; -1 keeps a size, new dims may lead. */
  expand(...size: ShapeArgs): Tensor;
  /** A copy tiled `repeats` times along each dim (new leading dims allowed). */
  repeat(...repeats: ShapeArgs): Tensor;
  /** The views t.select(dim, i) for every i. */
  unbind(dim?: number): Tensor[];
  /** `chunks` views along dim of ceil(size / chunks) each (fewer when they come out even). */
  chunk(chunks: number, dim?: number): Tensor[];
  /** Views of splitSize along dim, the last one smaller. */
  split(splitSize: number, dim?: number): Tensor[];
  /** Views of the given sizes along dim (they must add up to its size). */
  splitWithSizes(splitSizes: number | readonly number[], dim?: number): Tensor[];
  /** t[mask] for a bool mask over the leading dims: the rows it selects (a copy). */
  indexMask(mask: Tensor): Tensor;
  /** t[[i, j, ...]] along dim: a copy of those rows. */
  indexSelect(dim: number, index: number | readonly number[]): Tensor;
  /** A view with a new dim of size 1 at `dim` (in [-(ndim + 1), ndim]). */
  unsqueeze(dim: number): Tensor;
  contiguous(): Tensor;
  clone(): Tensor;
  /** The view's strides (elements between neighbours along each dim), or one dim's, as PyTorch's t.stride(). */
  stride(): number[];
  stride(dim: number): number;
  /** Where the view starts in its storage, as t.storage_offset(). */
  storageOffset(): number;
  /** Whether the strides are row-major for the shape, as t.is_contiguous(). */
  isContiguous(): boolean;

  // math
  matmul(other: Tensor): Tensor;
  dot(other: Tensor): Tensor;
  softmax(dim: number): Tensor;
  /** The sum of every element, or along a dim or a list of dims. */
  sum(dim?: number | readonly number[] | null, keepdim?: boolean): Tensor;
  /** The sum divided by the count (PyTorch's CPU order), of every element or along dims. */
  mean(dim?: number | readonly number[] | null, keepdim?: boolean): Tensor;
  /** Variance with Bessel's correction (1, PyTorch's unbiased default, or 0), every dim when dim is []. */
  var(dim?: number | readonly number[], correction?: number, keepdim?: boolean): Tensor;
  std(dim?: number | readonly number[], correction?: number, keepdim?: boolean): Tensor;
  /** The int64 index of the first largest (smallest) value: of every element flattened, or along dim. */
  argmax(dim?: number | null, keepdim?: boolean): Tensor;
  argmin(dim?: number | null, keepdim?: boolean): Tensor;
  /** The largest (smallest) value, 0-d (NaN if any); along dim, the values and their int64 indices. */
  max(): Tensor;
  max(dim: number, keepdim?: boolean): ValuesIndices;
  min(): Tensor;
  min(dim: number, keepdim?: boolean): ValuesIndices;
  /** The largest (smallest) values along dims (every dim when []). */
  amax(dim?: number | readonly number[], keepdim?: boolean): Tensor;
  amin(dim?: number | readonly number[], keepdim?: boolean): Tensor;
  prod(dim?: number | null, keepdim?: boolean): Tensor;
  /** Running sums along dim (accumulated in double, as PyTorch's CPU kernel). */
  cumsum(dim: number): Tensor;
  logSoftmax(dim: number): Tensor;
  abs(): Tensor;
  log(): Tensor;
  sqrt(): Tensor;
  /** 1 / sqrt(t) */
  rsqrt(): Tensor;
  /** Bounded below by min and above by max; NaN (the default) leaves that side open. */
  clamp(min?: number, max?: number): Tensor;
  /** Element-wise |a - b| <= atol + rtol * |b|, as a bool tensor. */
  isclose(other: Tensor, tolerances?: { rtol?: number; atol?: number }): Tensor;
  /** Same shape and the same values. */
  equal(other: Tensor): boolean;
  /** [B, n, m] @ [B, m, p]. */
  bmm(mat2: Tensor): Tensor;
  /** beta * this + alpha * (batch1 @ batch2), this broadcast to the product's shape. */
  baddbmm(batch1: Tensor, batch2: Tensor, scales?: { beta?: number; alpha?: number }): Tensor;
  /** The result's dtype is PyTorch's promotion of the operands' (Operand); div of integers is float32. */
  add(other: Operand): Tensor;
  sub(other: Operand): Tensor;
  mul(other: Operand): Tensor;
  div(other: Operand): Tensor;
  pow(other: Operand): Tensor;
  // logical on bool tensors, bitwise on int64 ones (PyTorch's & | ^ ~)
  bitwiseAnd(other: Operand): Tensor;
  bitwiseOr(other: Operand): Tensor;
  bitwiseXor(other: Operand): Tensor;
  bitwiseNot(): Tensor;
  exp(): Tensor;
  neg(): Tensor;
  /** 1 / t (PyTorch computes `n / t` as t.reciprocal() * n). */
  reciprocal(): Tensor;
  /** n - t, like Python's `n - t` on a tensor. */
  rsub(n: number | bigint | boolean | Scalar): Tensor;
  maskedFill(mask: Tensor, value: number): Tensor;

  // comparisons: bool tensors, never requiring grad (both sides compared in their promoted dtype)
  eq(other: Operand): Tensor;
  ne(other: Operand): Tensor;
  lt(other: Operand): Tensor;
  le(other: Operand): Tensor;
  gt(other: Operand): Tensor;
  ge(other: Operand): Tensor;

  // in place: each returns this tensor (a module parameter's storage is the module's: its next forward uses it)
  maskedFill_(mask: Tensor, value: number): this;
  add_(other: Operand): this;
  zero_(): this;
  fill_(value: number): this;
  /** t[mask] = value, the value broadcast to the selected rows. */
  indexPutMask_(mask: Tensor, value: Tensor): this;
  /** t[[i, j, ...]] = value along dim, the value broadcast to those rows. */
  indexPutRows_(dim: number, index: number | readonly number[], value: Tensor): this;
  /** Fills with draws from the default generator: `torch.rand`'s stream scaled to [from, to), bit for bit. */
  uniform_(from?: number, to?: number): this;
  /** Fills with draws from the default generator: `torch.randn`'s stream as `mean + std * z`, bit for bit. */
  normal_(mean?: number, std?: number): this;
  /** `t.set(i, v)` is `t[i] = v`; `t.set([i, j], v)` is `t[i, j] = v`. */
  set(index: number | readonly number[], value: number | bigint | boolean | Tensor): this;
}
export type { Tensor };

// ---------------------------------------------------------------- modules

/** The parameters of an nn.Linear inside a module. Reading gives the parameter itself, as in PyTorch: in-place
 * changes to it or to any view of it are the module's; assigning makes a new parameter of the value's
 * contents after a shape check. A parameter kept does not keep its module alive. */
export interface LinearParameters {
  /** Shape [out_features, in_features]. */
  weight: Tensor;
  /** Shape [out_features], or null without a bias. */
  bias: Tensor | null;
  /** This nn.Linear applied to x: x @ weight.T + bias, like calling sa_v2.W_query(x) in PyTorch. */
  forward(x: Tensor): Tensor;
}

/** The nn.Dropout inside a module (it follows the module's train()/eval()). */
export interface DropoutSubmodule {
  forward(x: Tensor): Tensor;
}

/** The query, key and value projections of SelfAttention_v2, CausalAttention and MultiHeadAttention. */
export interface QKVParameters {
  W_query: LinearParameters;
  W_key: LinearParameters;
  W_value: LinearParameters;
}

/** One head of MultiHeadAttentionWrapper: a CausalAttention's projections, its dropout and its forward. */
export interface CausalAttentionHead extends QKVParameters {
  dropout: DropoutSubmodule;
  forward(x: Tensor): Tensor;
}

/** The base class of every module: a C++ object freed once the wrapper is garbage-collected, or by delete(). */
declare abstract class Module {
  protected constructor(factory: never, ...args: never[]);
  forward(x: Tensor): Tensor;
  /** Training mode (the default) applies dropout; returns this module. */
  train(mode?: boolean): this;
  eval(): this;
  readonly training: boolean;
  /** Sets the attention path here and in every submodule (no effect on modules without causal attention). */
  setAttentionPath(path: AttentionPath): this;
  /** Frees the C++ module now instead of when this object is collected; using it afterwards throws. */
  delete(): void;
  /** delete(), for `using m = new torch.MultiHeadAttention(...)`. */
  [Symbol.dispose](): void;
}

declare class Linear extends Module implements LinearParameters {
  constructor(inFeatures: number, outFeatures: number, bias?: boolean);
  weight: Tensor;
  bias: Tensor | null;
  readonly inFeatures: number;
  readonly outFeatures: number;
}

declare class Dropout extends Module {
  constructor(p?: number);
  readonly p: number;
}

declare class SelfAttention_v1 extends Module {
  constructor(d_in: number, d_out: number);
  /** Shape [d_in, d_out]: x @ W. */
  W_query: Tensor;
  W_key: Tensor;
  W_value: Tensor;
  readonly d_out: number;
}

declare class SelfAttention_v2 extends Module implements QKVParameters {
  constructor(d_in: number, d_out: number, qkv_bias?: boolean);
  readonly W_query: LinearParameters;
  readonly W_key: LinearParameters;
  readonly W_value: LinearParameters;
  readonly d_out: number;
}

declare class CausalAttention extends Module implements QKVParameters {
  constructor(d_in: number, d_out: number, context_length: number, dropout: number, qkv_bias?: boolean);
  readonly W_query: LinearParameters;
  readonly W_key: LinearParameters;
  readonly W_value: LinearParameters;
  readonly dropout: DropoutSubmodule;
  readonly d_out: number;
  readonly context_length: number;
}

declare class MultiHeadAttentionWrapper extends Module {
  constructor(
    d_in: number,
    d_out: number,
    context_length: number,
    dropout: number,
    num_heads: number,
    qkv_bias?: boolean,
  );
  /** Each CausalAttention head: heads[i].W_query.weight, heads[i].forward(x), ... */
  readonly heads: readonly CausalAttentionHead[];
  readonly num_heads: number;
}

declare class MultiHeadAttention extends Module implements QKVParameters {
  constructor(
    d_in: number,
    d_out: number,
    context_length: number,
    dropout: number,
    num_heads: number,
    qkv_bias?: boolean,
  );
  readonly W_query: LinearParameters;
  readonly W_key: LinearParameters;
  readonly W_value: LinearParameters;
  /** nn.Linear(d_out, d_out), always with a bias. */
  readonly out_proj: LinearParameters & { bias: Tensor };
  readonly dropout: DropoutSubmodule;
  readonly d_out: number;
  readonly num_heads: number;
  readonly head_dim: number;
  readonly context_length: number;
  /**
   * One head's attention weights (before dropout) for the first `rows` queries of x: shape [b, rows, T], or
   * [rows, T] for a 2-D x. PyTorch's bits (the exact path's rows), computed from only what those rows need,
   * so it stays cheap at GPT-2 size while forward takes the fast path.
   */
  attentionWeights(x: Tensor, head: number, rows: number): Tensor;
}

export type {
  Module,
  Linear,
  Dropout,
  SelfAttention_v1,
  SelfAttention_v2,
  CausalAttention,
  MultiHeadAttentionWrapper,
  MultiHeadAttention,
};

// ---------------------------------------------------------------- the op table

/** One argument of an op: its name and the kind JavaScript checks (the core checks the value). */
export interface OpArgument {
  readonly name: string;
  /** A Tensor; a non-empty array of them; an integer; integers given as separate arguments or one array; a
   * number; a number other than NaN; anything, as a boolean; a Tensor or a number; an integer or an array of
   * them; a string; a number, BigInt or boolean (a Python float, int or bool); a dtype's name. */
  readonly kind: 'tensor' | 'tensors' | 'int' | 'sizes' | 'number' | 'probability' | 'bool' | 'operand' | 'dims'
    | 'string' | 'scalar' | 'dtype';
  /** How messages name it, when not by its name ('the operand'). */
  readonly says?: string;
  /** Its value when it is left out. */
  readonly default?: number | boolean | readonly number[];
  /** The export called instead, with the arguments before this one, when it is left out (or null). */
  readonly absent?: string;
  /** Given by name, in one object after the other arguments ({ rtol, atol }). */
  readonly named?: boolean;
}

/** One operation on tensors as wasm/api/ops.js declares it: the Tensor methods and torch functions that call
 * the core are made from these, and the notebook's torch makes its own from them. */
export interface OpEntry {
  readonly name: string;
  /** A Tensor method (the tensor is its input), a torch function, or both. */
  readonly on: readonly ('tensor' | 'torch')[];
  /** Every argument in order, the input first where there is one. */
  readonly args: readonly OpArgument[];
  /** The Embind export that computes it, when not its name. */
  readonly core?: string;
  /** Values passed to the core right after the input. */
  readonly fixed?: readonly number[];
  /** An Embind enum's value passed after the arguments: [enum, value name]. */
  readonly enum?: readonly [string, string];
  /** A tensor (the default), an array of them, a plain value, the input itself (changed in place), or
   * { values, indices } (unless the `absent` export ran). */
  readonly returns?: 'tensor' | 'tensors' | 'value' | 'self' | 'pair';
  /** True when a last { dtype } argument chooses the result's dtype. */
  readonly dtype?: boolean;
  /** True for a Tensor property rather than a method (t.T). */
  readonly getter?: boolean;
  /** True when the result always shares its input's storage. */
  readonly view?: boolean;
  /** What the notebook's torch makes of it, under PyTorch's (snake_case) name. */
  readonly notebook?: readonly ('method' | 'function')[];
}

// ---------------------------------------------------------------- the torch-like namespace

export interface Torch {
  /** The kernels the build runs ('wasm-simd128' for 'simd' and 'simd-threads'). */
  readonly backend: Backend;
  /** The build loaded. */
  readonly flavour: Flavour;
  /** How many threads its large products and the fast path's attention run on (1 but in 'simd-threads'). */
  readonly threads: number;
  /** torch.set_num_threads: in 'simd-threads' 1 to the threads it was loaded with (the same bits on any number),
   * only 1 elsewhere. */
  setNumThreads(threads: number): void;
  readonly AttentionError: typeof AttentionError;
  readonly Tensor: typeof Tensor;
  /** The op table the Tensor methods and the torch functions are made from. */
  readonly ops: readonly OpEntry[];

  // generator
  /** torch.manual_seed: an integer in [-2^63, 2^64 - 1] (a Number or a BigInt); only the low 32 bits seed. */
  manualSeed(seed: number | bigint): void;
  /** The last seed, as an unsigned 64-bit BigInt (a negative seed comes back as its two's complement). */
  initialSeed(): bigint;
  setRngProfile(profile: RngProfile): void;
  getRngProfile(): RngProfile;
  /** 32-bit words drawn since the last manualSeed. */
  rngDraws(): number;

  // creation
  /** From nested arrays of numbers (float32), BigInts (int64) or booleans (bool), or of the dtype given; a
   * tensor argument is cloned. */
  tensor(data: NestedData | Tensor, options?: DTypeOptions): Tensor;
  rand(...shape: ShapeArgs): Tensor;
  randn(...shape: ShapeArgs): Tensor;
  ones(...args: ShapeAndDType): Tensor;
  zeros(...args: ShapeAndDType): Tensor;
  empty(...args: ShapeAndDType): Tensor;
  /** torch.full: its dtype follows the value's kind (number float32, BigInt int64, boolean bool) unless given. */
  full(shape: readonly number[], value: number | bigint | boolean, options?: DTypeOptions): Tensor;
  /** torch.arange(end) or (start, end, step = 1): int64 when every argument is a BigInt, else float32 unless
   * given; ceil((end - start) / step) values, PyTorch's bits. */
  arange(end: number | bigint, options?: DTypeOptions): Tensor;
  arange(start: number | bigint, end: number | bigint, step?: number | bigint, options?: DTypeOptions): Tensor;
  /** torch.linspace: `steps` values from start to end with PyTorch's bits (float32 unless given). */
  linspace(start: number | bigint, end: number | bigint, steps: number, options?: DTypeOptions): Tensor;
  /** torch.eye(n, m = n). */
  eye(n: number, options?: DTypeOptions): Tensor;
  eye(n: number, m: number, options?: DTypeOptions): Tensor;
  /** A number standing for a Python float, int or bool where it is an operand. */
  scalar(value: number | bigint | boolean, kind: ScalarKind): Scalar;
  stack(tensors: readonly Tensor[], dim?: number): Tensor;
  cat(tensors: readonly Tensor[], dim?: number): Tensor;

  // functions
  /** Any integer diagonal (int64, as PyTorch): beyond the matrix it zeroes everything (triu) or keeps it (tril). */
  triu(input: Tensor, diagonal?: number): Tensor;
  tril(input: Tensor, diagonal?: number): Tensor;
  softmax(input: Tensor, dim: number): Tensor;
  matmul(input: Tensor, other: Tensor): Tensor;
  dot(input: Tensor, other: Tensor): Tensor;
  exp(input: Tensor): Tensor;
  neg(input: Tensor): Tensor;
  /** nn.functional.linear: x @ weight.T (+ bias), with nn.Linear's bits and grad_fn. */
  linear(input: Tensor, weight: Tensor, bias?: Tensor | null): Tensor;
  /** nn.functional.dropout: nn.Dropout's masks under the current RNG profile, without a module. */
  dropout(input: Tensor, p?: number, training?: boolean): Tensor;
  sum(input: Tensor, dim?: number | readonly number[] | null, keepdim?: boolean): Tensor;
  mean(input: Tensor, dim?: number | readonly number[] | null, keepdim?: boolean): Tensor;
  var(input: Tensor, dim?: number | readonly number[], correction?: number, keepdim?: boolean): Tensor;
  std(input: Tensor, dim?: number | readonly number[], correction?: number, keepdim?: boolean): Tensor;
  argmax(input: Tensor, dim?: number | null, keepdim?: boolean): Tensor;
  argmin(input: Tensor, dim?: number | null, keepdim?: boolean): Tensor;
  max(input: Tensor): Tensor;
  max(input: Tensor, dim: number, keepdim?: boolean): ValuesIndices;
  min(input: Tensor): Tensor;
  min(input: Tensor, dim: number, keepdim?: boolean): ValuesIndices;
  amax(input: Tensor, dim?: number | readonly number[], keepdim?: boolean): Tensor;
  amin(input: Tensor, dim?: number | readonly number[], keepdim?: boolean): Tensor;
  prod(input: Tensor, dim?: number | null, keepdim?: boolean): Tensor;
  cumsum(input: Tensor, dim: number): Tensor;
  logSoftmax(input: Tensor, dim: number): Tensor;
  abs(input: Tensor): Tensor;
  log(input: Tensor): Tensor;
  sqrt(input: Tensor): Tensor;
  rsqrt(input: Tensor): Tensor;
  clamp(input: Tensor, min?: number, max?: number): Tensor;
  /** condition ? input : other, element-wise, the three broadcast together; condition must be bool. */
  where(condition: Tensor, input: Tensor, other: Tensor): Tensor;
  isclose(input: Tensor, other: Tensor, tolerances?: { rtol?: number; atol?: number }): Tensor;
  equal(input: Tensor, other: Tensor): boolean;
  flatten(input: Tensor, startDim?: number, endDim?: number): Tensor;
  permute(input: Tensor, ...dims: ShapeArgs): Tensor;
  movedim(input: Tensor, source: number, destination: number): Tensor;
  squeeze(input: Tensor, dim?: number | null): Tensor;
  unbind(input: Tensor, dim?: number): Tensor[];
  chunk(input: Tensor, chunks: number, dim?: number): Tensor[];
  split(input: Tensor, splitSize: number, dim?: number): Tensor[];
  splitWithSizes(input: Tensor, splitSizes: number | readonly number[], dim?: number): Tensor[];
  bmm(input: Tensor, mat2: Tensor): Tensor;
  baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, scales?: { beta?: number; alpha?: number }): Tensor;
  /** Einstein summation over one or two tensors ('bij,bkj->bik'), lowered to permute, sum and bmm as PyTorch's. */
  einsum(equation: string, operands: readonly Tensor[]): Tensor;
  /** torch.allclose: |a - b| <= atol + rtol * |b| in float32 everywhere; infinities are close only to themselves. */
  allclose(input: Tensor, other: Tensor, tolerances?: { rtol?: number; atol?: number }): boolean;

  memoryUsage(): MemoryUsage;
  /**
   * torch.set_printoptions: sets the options given; sciMode goes back to automatic unless given. A value out of
   * its range (PrintOptions) throws an AttentionError and leaves every option as it was.
   */
  setPrintOptions(options?: PrintOptions): void;

  readonly nn: {
    readonly Linear: typeof Linear;
    readonly Dropout: typeof Dropout;
    readonly Module: typeof Module;
  };
  readonly SelfAttention_v1: typeof SelfAttention_v1;
  readonly SelfAttention_v2: typeof SelfAttention_v2;
  readonly CausalAttention: typeof CausalAttention;
  readonly MultiHeadAttentionWrapper: typeof MultiHeadAttentionWrapper;
  readonly MultiHeadAttention: typeof MultiHeadAttention;
}
