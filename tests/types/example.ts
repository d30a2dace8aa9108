// A typed walk through chapter 3 that uses every entry of the API, checked by `tsc -p tests/types` against
// wasm/index.d.ts (never run). The @ts-expect-error lines are misuses the declarations must refuse.
import { loadAttention, AttentionError } from '../../wasm/index.js';
import type {
  AttentionPath,
  Backend,
  CausalAttention,
  DType,
  DTypeOptions,
  Dropout,
  Flavour,
  Linear,
  LinearParameters,
  LoadOptions,
  MemoryUsage,
  Module,
  MultiHeadAttention,
  MultiHeadAttentionWrapper,
  NestedData,
  OpArgument,
  OpEntry,
  Operand,
  PrintOptions,
  QKVParameters,
  RngProfile,
  Scalar,
  ScalarKind,
  SelfAttention_v1,
  SelfAttention_v2,
  ShapeArgs,
  Tensor,
  TensorData,
  Torch,
  ValuesIndices,
} from '../../wasm/index.js';
// The package's "exports" map leads to the same declarations.
import type { Torch as PackageTorch } from 'attention-lab';

// ---- compile-time assertions
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T>(value: T): T {
  return value;
}
const assertTrue = <T extends true>(): T | undefined => undefined;

assertTrue<Equals<PackageTorch, Torch>>();
assertTrue<Equals<ReturnType<typeof loadAttention>, Promise<Torch>>>();
assertTrue<Equals<Parameters<typeof loadAttention>, [options?: LoadOptions]>>();
assertTrue<Equals<NonNullable<LoadOptions['flavour']>, Flavour>>();
assertTrue<Equals<Flavour, 'simd' | 'simd-threads' | 'scalar'>>();
assertTrue<Equals<NonNullable<LoadOptions['threads']>, number>>();
assertTrue<Equals<Backend, 'wasm-simd128' | 'wasm-scalar'>>();
assertTrue<Equals<DType, 'float32' | 'bool' | 'int64' | 'float64' | 'int32'>>();
assertTrue<Equals<RngProfile, 'default' | 'mkl'>>();
assertTrue<Equals<ReturnType<Torch['initialSeed']>, bigint>>();
assertTrue<Equals<ReturnType<Torch['memoryUsage']>, MemoryUsage>>();
assertTrue<Equals<Linear['bias'], Tensor | null>>();
assertTrue<Equals<MultiHeadAttention['out_proj']['bias'], Tensor>>();
assertTrue<Equals<ReturnType<Tensor['add_']>, Tensor>>();

const BOOK: NestedData = [
  [0.43, 0.15, 0.89],
  [0.55, 0.87, 0.66],
  [0.57, 0.85, 0.64],
  [0.22, 0.58, 0.33],
  [0.77, 0.25, 0.1],
  [0.05, 0.8, 0.55],
];

async function main(flavour?: Flavour): Promise<string[]> {
  const printed: string[] = [];
  const show = (t: Tensor): void => void printed.push(t.toString());

  const torch: Torch = await loadAttention(flavour ? { flavour } : undefined);
  const scalar = await loadAttention({ flavour: 'scalar' });
  const backend: Backend = torch.backend;
  printed.push(backend, scalar.backend);

  // ---- generator
  torch.manualSeed(123);
  torch.manualSeed(2n ** 64n - 1n);
  const seed: bigint = torch.initialSeed();
  torch.setRngProfile('mkl');
  const profile: RngProfile = torch.getRngProfile();
  torch.setRngProfile('default');
  const draws: number = torch.rngDraws();
  printed.push(`${seed} ${profile} ${draws}`);

  // ---- creation
  const inputs: Tensor = torch.tensor(BOOK);
  const flags: Tensor = torch.tensor([true, false]);
  const copy: Tensor = torch.tensor(inputs);
  const shapes: Tensor[] = [
    torch.rand(2, 3),
    torch.randn([4]),
    torch.ones(inputs.shape),
    torch.zeros(),
    torch.empty(6),
  ];
  const sizes: ShapeArgs = [2, 3];
  const fromArgs: Tensor = torch.zeros(...sizes);
  const batch: Tensor = torch.stack([inputs, copy]);
  const joined: Tensor = torch.cat([inputs, inputs], -1);
  shapes.forEach(show);
  show(flags);
  show(fromArgs);
  show(joined);

  // ---- tensor properties
  const shape: number[] = inputs.shape;
  const dtype: DType = inputs.dtype;
  const ndim: number = inputs.ndim;
  const numel: number = inputs.numel();

  // dtypes: a BigInt is a Python int, a number a Python float, a boolean a Python bool
  const ids: Tensor = torch.arange(6n);
  const ints: Tensor = torch.tensor([[1n, 2n], [3n, 4n]]);
  const doubles: Tensor = torch.tensor([0.1, 0.2], { dtype: 'float64' });
  const int64Options: DTypeOptions = { dtype: 'int64' };
  const counts: Tensor = torch.zeros(2, 3, int64Options);
  const grid: Tensor[] = [torch.ones([2, 2], { dtype: 'bool' }), torch.empty(0, { dtype: 'float64' }),
    torch.full([2], 7n), torch.arange(0, 1, 0.25), torch.linspace(0, 1, 5, { dtype: 'float64' }),
    torch.eye(2), torch.eye(2, 3, { dtype: 'int64' })];
  const half: Scalar = torch.scalar(2, 'int');
  const operand: Operand = half;
  const sums: Tensor[] = [ids.add(operand), ids.div(2n), ids.mul(0.5), ints.long(), ints.double(), ints.int(), doubles.to('float32'),
    ids.argmax(), ids.argmin(0, true), ids.max(), torch.argmax(ints, 1), torch.min(ints), flags.bitwiseAnd(true),
    flags.bitwiseOr(flags), ids.bitwiseXor(3n), flags.bitwiseNot(), ids.rsub(10n)];
  const best: ValuesIndices = ints.max(1, true);
  const worst: ValuesIndices = torch.min(ints, 0);
  const indices: Float32Array | Float64Array = best.indices.data;
  const kind: ScalarKind = half.kind;
  void [counts, grid, sums, worst, indices, kind];
  const allSizes: number[] = inputs.size();
  const rows: number = inputs.size(0);
  const values: Float32Array | Float64Array = inputs.data;
  const nested: TensorData = inputs.toArray();
  const requiresGrad: boolean = inputs.requiresGrad;
  const gradFn: string | null = inputs.gradFn;
  printed.push(`${shape} ${dtype} ${ndim} ${numel} ${allSizes} ${rows} ${values.length} ${String(nested)}`);
  printed.push(`${requiresGrad} ${gradFn ?? 'none'}`);

  // ---- 3.3: simplified self-attention, as a reader would loop
  const query = inputs.at(1);
  const attn_scores_2 = torch.empty(inputs.shape[0]!);
  let i = 0;
  for (const x_i of inputs) attn_scores_2.set(i++, torch.dot(x_i, query));
  const attn_weights_2 = torch.softmax(attn_scores_2, 0);
  const total: number = attn_weights_2.sum().item();
  const context_vec_2 = torch.zeros(query.shape);
  for (const [j, x_j] of [...inputs].entries()) context_vec_2.add_(attn_weights_2.at(j).mul(x_j));
  show(context_vec_2);
  printed.push(String(total));
  const naive = torch.exp(attn_scores_2).div(torch.sum(torch.exp(attn_scores_2), 0));
  show(naive.exp().sub(1).pow(2).add(0.5));
  show(inputs.matmul(inputs.T).softmax(-1).sum(-1, true));
  show(inputs.at(0).dot(inputs.at(1)));
  show(inputs.select(1, 0).bool());
  show(inputs.slice(0, 1, 3).transpose(0, 1).contiguous().view(-1).reshape([2, 3]).flatten().clone());
  const strides: number[] = inputs.T.stride();
  const offset: number = inputs.at(1).storageOffset() + inputs.stride(0);
  const packed: boolean = inputs.T.isContiguous();
  show(torch.tensor([strides.length, offset, Number(packed)]));
  show(inputs.view(3, 6).reshape(-1));
  // past the book's lines: shape ops (arrays of views), reductions over dims, element-wise math, products
  const pair = torch.stack([inputs, inputs]);
  const slices: Tensor[] = pair.unbind(0);
  const pieces: Tensor[] = [...pair.chunk(3, 2), ...pair.split(2, 1), ...torch.splitWithSizes(pair, [1, 2], 2)];
  show(torch.cat([...slices, ...pieces].map((t) => t.flatten(0, -1).slice(0, 0, 1))));
  show(pair.permute(2, 0, 1).movedim(0, 2).flatten(1).unsqueeze(0).squeeze(0).squeeze());
  show(inputs.slice(0, 0, 6, 2).expand(2, 3, 3).repeat(1, 1, 2));
  show(inputs.indexMask(inputs.gt(0.5)).add(inputs.indexSelect(0, [0, 2]).sum([0, 1])));
  inputs.clone().indexPutMask_(inputs.gt(0.5), torch.tensor(0)).indexPutRows_(1, [0], torch.tensor(1));
  show(torch.mean(inputs, [0, 1], true).add(inputs.var(1, 0)).add(torch.std(inputs)).add(inputs.amax(1)));
  show(inputs.max().add(torch.min(inputs)).add(inputs.amin([0], true)).add(inputs.prod(0)).add(inputs.cumsum(0)));
  show(inputs.abs().log().sqrt().rsqrt().clamp(0, 1).logSoftmax(-1).isclose(inputs, { atol: 1e-3 }).float());
  show(torch.where(inputs.gt(0.5), inputs, torch.zeros(1)));
  const equalInputs: boolean = torch.equal(inputs, copy) && inputs.equal(copy);
  printed.push(String(equalInputs));
  show(torch.bmm(pair, pair.transpose(1, 2)).baddbmm(pair, pair.transpose(1, 2), { beta: 0.5, alpha: 2 }));
  show(torch.einsum('bij,bkj->bik', [pair, pair]));
  const scores = torch.empty(6, 6);
  scores.set([0, 0], 1.5).set([0, 1], true).zero_();

  // ---- 3.4: trainable weights
  torch.manualSeed(123);
  const sa_v1: SelfAttention_v1 = new torch.SelfAttention_v1(3, 2);
  const wq: Tensor = sa_v1.W_query;
  show(wq);
  show(sa_v1.forward(inputs));
  torch.manualSeed(789);
  const sa_v2: SelfAttention_v2 = new torch.SelfAttention_v2(3, 2, true);
  const q: LinearParameters = sa_v2.W_query;
  const bias: Tensor | null = q.bias;
  if (bias !== null) bias.zero_();
  // Exercise 3.1: assignment copies in after a shape check
  sa_v1.W_query = sa_v2.W_query.weight.T;
  sa_v1.W_key = sa_v2.W_key.weight.T;
  sa_v1.W_value = sa_v2.W_value.weight.T;
  sa_v2.W_key.bias?.zero_();
  sa_v2.W_value.bias?.zero_();
  const same: boolean = torch.allclose(sa_v1.forward(inputs), sa_v2.forward(inputs), { rtol: 1e-5, atol: 1e-6 });
  printed.push(String(same && torch.allclose(inputs, copy)));

  // ---- 3.5: causal mask and dropout
  const keys = inputs.matmul(sa_v2.W_key.weight.T);
  const attn_scores = inputs.matmul(sa_v2.W_query.weight.T).matmul(keys.T);
  const context_length = attn_scores.shape[0]!;
  const mask_simple = torch.tril(torch.ones(context_length, context_length));
  const mask = torch.triu(torch.ones(context_length, context_length), 1);
  const masked = attn_scores.maskedFill(mask.bool(), -Infinity);
  attn_scores.maskedFill_(mask.bool(), -Infinity);
  const weights = torch.softmax(masked.div(keys.shape.at(-1)! ** 0.5), 1).mul(mask_simple);
  torch.manualSeed(123);
  const dropout: Dropout = new torch.nn.Dropout(0.5);
  const training: boolean = dropout.training;
  show(dropout.forward(torch.ones(6, 6)));
  show(dropout.eval().forward(weights));
  show(dropout.train().forward(weights));
  show(dropout.train(false).forward(weights));
  printed.push(`${training} ${dropout.p}`);

  // ---- 3.5.3 and 3.6: batched modules
  torch.manualSeed(123);
  const ca: CausalAttention = new torch.CausalAttention(3, 2, batch.shape[1]!, 0.0);
  const caWithBias: CausalAttention = new torch.CausalAttention(3, 2, 6, 0.1, true);
  show(ca.forward(batch));
  show(caWithBias.eval().forward(batch));
  printed.push(`${ca.d_out} ${ca.context_length} ${ca.W_value.weight.shape}`);
  const wrapper: MultiHeadAttentionWrapper = new torch.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 2);
  const heads: readonly QKVParameters[] = wrapper.heads;
  heads[0]!.W_query.weight = torch.zeros(2, 3);
  show(wrapper.forward(batch));
  printed.push(String(wrapper.num_heads));
  const mha: MultiHeadAttention = new torch.MultiHeadAttention(3, 2, 6, 0.0, 2, false);
  mha.out_proj.weight = torch.ones(2, 2);
  mha.out_proj.bias.add_(1);
  show(mha.forward(batch));
  printed.push(`${mha.d_out} ${mha.num_heads} ${mha.head_dim} ${mha.context_length}`);
  // the fast path on the book's sizes, and one head's weights for the first two queries
  const path: AttentionPath = 'fast';
  show(mha.eval().setAttentionPath(path).forward(batch));
  show(mha.attentionWeights(batch, 1, 2));
  mha.setAttentionPath('auto').train();
  const linear: Linear = new torch.nn.Linear(3, 2, false);
  linear.weight = torch.rand(2, 3);
  show(linear.forward(inputs));
  printed.push(`${linear.inFeatures} ${linear.outFeatures} ${linear.bias === null}`);
  const modules: Module[] = [sa_v1, sa_v2, ca, wrapper, mha, linear, dropout];
  for (const m of modules) m.train().eval();
  printed.push(String(modules.every((m) => m instanceof torch.nn.Module)));

  // ---- printing, memory, errors
  const options: PrintOptions = { precision: 2, sciMode: false, threshold: 1000, edgeitems: 3, linewidth: 80 };
  torch.setPrintOptions(options);
  torch.setPrintOptions({ profile: 'short', sciMode: null });
  torch.setPrintOptions();
  const usage: MemoryUsage = torch.memoryUsage();
  printed.push(`${usage.heapBytes} ${usage.allocatedBytes}`);
  try {
    torch.matmul(torch.ones(6, 3), torch.ones(2, 3));
  } catch (e) {
    if (e instanceof AttentionError) printed.push(e.name, e.message);
    if (e instanceof torch.AttentionError) printed.push(e.message);
  }
  const isTensor: boolean = inputs instanceof torch.Tensor;
  printed.push(String(isTensor));
  expectType<Tensor>(batch.at(0));
  expectType<Tensor>(torch.dot(inputs.at(0), inputs.at(1)).unsqueeze(0));

  // ---- the op table the methods and functions are made from
  const table: readonly OpEntry[] = torch.ops;
  const views = table.filter((entry) => entry.view).map((entry) => entry.name);
  const kinds = new Set(table.flatMap((entry) => entry.args.map((argument: OpArgument) => argument.kind)));
  printed.push(`${views.join(' ')}; ${[...kinds].join(' ')}`);

  // ---- freeing a module now rather than when it is collected
  const scratch = new torch.nn.Linear(2, 2);
  scratch.delete();
  const disposable: Disposable = new torch.nn.Dropout(0.1);
  disposable[Symbol.dispose]();

  return printed;
}

// Misuses the declarations refuse (type-checked, never called).
export async function refused(
  torch: Torch,
  inputs: Tensor,
  sa_v1: SelfAttention_v1,
  sa_v2: SelfAttention_v2,
): Promise<void> {
  // @ts-expect-error: the legacy constructor takes sizes or nested arrays
  new torch.Tensor({});
  // @ts-expect-error: nn.Module is a base class
  new torch.nn.Module('newLinear', 3, 2, true);
  // @ts-expect-error: no such flavour
  await loadAttention({ flavour: 'avx' });
  // @ts-expect-error: no such profile
  torch.setRngProfile('intel');
  // @ts-expect-error: seeds are numbers or BigInts
  torch.manualSeed('123');
  // @ts-expect-error: operands are tensors or numbers
  inputs.add('1');
  // @ts-expect-error: a mask is a tensor
  inputs.maskedFill([true], 0);
  // @ts-expect-error: sciMode, not sci_mode
  torch.setPrintOptions({ sci_mode: true });
  // @ts-expect-error: not an attention path
  sa_v2.setAttentionPath('flash');
  // @ts-expect-error: matmul takes a tensor
  inputs.matmul([[1, 2, 3]]);
  // @ts-expect-error: a bias may be null
  sa_v2.W_query.bias.zero_();
  // @ts-expect-error: parameters are tensors
  sa_v1.W_key = [[1, 2]];
  // @ts-expect-error: shape is read-only
  inputs.shape = [3, 6];
  // @ts-expect-error: the backend is read-only
  torch.backend = 'wasm-scalar';
  // @ts-expect-error: strings are not tensor data
  torch.tensor(['a']);
  // @ts-expect-error: no int16 dtype
  torch.zeros(2, { dtype: 'int16' });
  // @ts-expect-error: modules take numbers
  new torch.MultiHeadAttention(3, 2, 6, '0.1', 2);
}

export default main;
