// The changes the search tries, each with the sentence and the line of code a learner reads:
//   seed     another value for one of the chapter's torch.manual_seed calls
//   profile  the other PyTorch build's dropout masks
//   draws    the generator moved on by whole draws after a manual_seed (something created once more first)
//   setting  another d_out, number of heads, dropout p or qkv_bias
//   mistake  one of the page's "What if…" mistakes (compared as the wrong result; nothing is recomputed)
// A change is { kind, name, from, to, text, code: { from, to } } plus what the search applies: `settings`
// (changed keys) or `draws` ({ point, count }).
import { SETTINGS } from '../web/state.js';

// Seeds people write, tried before the range 0..10,000.
export const COMMON_SEEDS = [42, 0, 1, 1234, 123, 789, 2023, 2024, 2025, 2026, 3407, 12345, 7, 10, 100, 2, 3, 5, 99, 2021, 2022, 1000, 777, 666, 31337];
export const SEED_RANGE = 10_000;

// What each seed of the settings seeds, as a learner's code has it.
const SEEDED = {
  seed: 'the weights (W_query, SelfAttention_v1, CausalAttention, the multi-head classes) and dropout',
  seedV2: 'SelfAttention_v2',
  inputSeed: 'the drawn embeddings',
};

export const seedKeys = (settings) => ['seed', 'seedV2', ...(settings.inputs !== 'typed' ? ['inputSeed'] : [])];

export function seedChange(key, from, to) {
  return {
    kind: 'seed',
    name: key,
    from,
    to,
    text: `Your numbers are what this step prints after \`torch.manual_seed(${to})\` for ${SEEDED[key]}; the book uses ${from}.`,
    code: { from: `torch.manual_seed(${from})`, to: `torch.manual_seed(${to})` },
    settings: { [key]: to },
  };
}

const BUILDS = {
  default: 'the default PyTorch build (pip on Linux or macOS, Debian’s python3-torch, or any build on an AMD CPU)',
  mkl: 'a PyTorch build with Intel MKL on an Intel CPU (the official pip or conda packages on Windows or Linux)',
};

export function profileChange(from) {
  const to = from === 'default' ? 'mkl' : 'default';
  return {
    kind: 'profile',
    name: 'profile',
    from,
    to,
    text: `Your numbers are what this step prints with the dropout masks of ${BUILDS[to]}; the same seed draws other masks in ${BUILDS[from]}. Nothing in your code is wrong.`,
    code: { from: `torch.backends.mkl.is_available()  # ${from === 'mkl'}`, to: `torch.backends.mkl.is_available()  # ${to === 'mkl'} (on an Intel CPU)` },
    settings: { profile: to },
  };
}

const SETTING_CODE = {
  d_out: (v) => `d_out = ${v}`,
  heads: (v) => `num_heads = ${v}`,
  p: (v) => `dropout = ${v}`,
  qkv_bias: (v) => `qkv_bias = ${v ? 'True' : 'False'}`,
};

export function settingChange(key, from, to) {
  const why = {
    d_out: ' (MultiHeadAttention’s d_out is all heads’ width together; the wrapper’s is one head’s)',
    heads: '',
    p: '',
    qkv_bias: to ? ' (each nn.Linear then draws a bias after its weight, and the later weights move on)' : '',
  }[key];
  return {
    kind: 'setting',
    name: key,
    from,
    to,
    text: `Your numbers are what this step prints with ${SETTINGS[key].name} ${show(to)}${why}; the page uses ${show(from)}.`,
    code: { from: SETTING_CODE[key](from), to: SETTING_CODE[key](to) },
    settings: { [key]: to },
  };
}
const show = (v) => (v === true ? 'True' : v === false ? 'False' : String(v));

/** The other values of d_out, heads, p and qkv_bias worth trying. */
export function settingChanges(settings) {
  const { d_out, heads, p, qkv_bias } = settings;
  const other = (list, v) => [...new Set(list)].filter((x) => x !== v);
  return [
    ...other([d_out * heads, d_out / heads, 1, 2, 3, 4, 6, 8, 2 * d_out].filter((v) => Number.isInteger(v) && v >= 1 && v <= 64), d_out).map((v) => settingChange('d_out', d_out, v)),
    ...other([1, 2, 3, 4, 8], heads).map((v) => settingChange('heads', heads, v)),
    ...other([0, 0.1, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.75, 0.8, 0.9], p).map((v) => settingChange('p', p, v)),
    settingChange('qkv_bias', qkv_bias, !qkv_bias),
  ];
}

/** What a learner creates in the chapter, with the numbers it draws, for these settings. */
export function creations(settings) {
  const n = settings.tokens.length;
  const d_in = settings.embeddings[0].length;
  const { d_out, heads } = settings;
  const b = settings.qkv_bias ? d_out : 0;
  const bias = settings.qkv_bias ? ', qkv_bias=True' : '';
  const linear = d_in * d_out + b;
  return [
    { what: `torch.rand(${d_in}, ${d_out})`, count: d_in * d_out },
    { what: `SelfAttention_v1(${d_in}, ${d_out})`, count: 3 * d_in * d_out },
    { what: `SelfAttention_v2(${d_in}, ${d_out}${bias})`, count: 3 * linear },
    { what: `MultiHeadAttentionWrapper(${d_in}, ${d_out}, …, ${heads}${bias})`, count: 3 * linear * heads },
    { what: `MultiHeadAttention(${d_in}, ${d_out}, …, ${heads}${bias})`, count: 3 * linear + d_out * d_out + d_out },
    { what: `torch.rand(${n}, ${d_in})`, count: n * d_in },
  ];
}

/**
 * draws changes: at each seed point of the watched run, the draws of what follows it once more (a cell run
 * twice), then each thing the chapter creates.
 */
export function drawsChanges(run, settings, { ownOnly = false } = {}) {
  const changes = [];
  for (const point of run.seedPoints) {
    if (point.next === null) continue;
    const what = run.results[point.next]?.label ?? point.next;
    const options = [{ what: null, count: point.draws }, ...(ownOnly ? [] : creations(settings))];
    const seen = new Set();
    for (const { what: made, count } of options) {
      if (count <= 0 || seen.has(count)) continue;
      seen.add(count);
      const as = made ? `\`${made}\` had been created once more before it (or another class’s layers first)` : `the cell had run twice (its ${count} draws once more)`;
      changes.push({
        kind: 'draws',
        name: point.key ?? 'seed',
        from: 0,
        to: count,
        text: `Your numbers are what this step prints when the generator has already drawn ${count} numbers after \`torch.manual_seed(${point.value})\` before ${what}: as if ${as}.`,
        code: { from: `torch.manual_seed(${point.value})`, to: `torch.manual_seed(${point.value}); ${made ?? '…'}  # ${count} more draws` },
        draws: { point, count },
      });
    }
  }
  return changes;
}

export function mistakeChange(mistake) {
  return {
    kind: 'mistake',
    name: mistake.id,
    from: mistake.code.right,
    to: mistake.code.wrong,
    text: `Your numbers are what this step prints with a mistake: ${mistake.question.replace(/\?$/, '')}. The book writes \`${mistake.code.right}\`.`,
    code: { from: mistake.code.right, to: mistake.code.wrong },
  };
}

/**
 * Mistakes the page has no switch for, each made from results the chapter computes anyway: { id, question,
 * code, step, from (the results it is made of), make(torch, tensors) }.
 */
export const DERIVED_MISTAKES = [
  {
    id: 'fill-zero',
    question: 'the future was filled with 0 instead of −∞ before the softmax',
    code: { right: 'attn_scores.masked_fill(mask.bool(), -torch.inf)', wrong: 'attn_scores.masked_fill(mask.bool(), 0)' },
    step: 'causal-softmax',
    from: ['causal_scores', 'causal_mask', 'causal_keys'],
    make: (torch, { causal_scores: s, causal_mask: m, causal_keys: k }) => torch.softmax(s.maskedFill(m.bool(), 0).div(k.shape[1] ** 0.5), -1),
  },
  {
    id: 'divide-by-d_k',
    question: 'the masked scores were divided by d_k instead of √d_k',
    code: { right: 'attn_scores / keys.shape[-1]**0.5', wrong: 'attn_scores / keys.shape[-1]' },
    step: 'causal-softmax',
    from: ['masked_scores', 'causal_keys'],
    make: (torch, { masked_scores: s, causal_keys: k }) => torch.softmax(s.div(k.shape[1]), -1),
  },
  {
    id: 'divide-by-d_k-q2',
    question: 'the scores were divided by d_k instead of √d_k',
    code: { right: 'attn_scores_2 / d_k**0.5', wrong: 'attn_scores_2 / d_k' },
    step: 'scaled-softmax',
    from: ['attn_scores_2_qk', 'keys'],
    make: (torch, { attn_scores_2_qk: s, keys: k }) => torch.softmax(s.div(k.shape[1]), -1),
  },
];

// The classes of 3.4.2 as their forward runs, with one of the learner mistakes put in (the chapter's own lines
// otherwise): part is the kept part holding the module, qkv its projections of x.
const CLASSES = [
  { name: 'SelfAttention_v1', part: 'sa_v1', module: (p) => p.sa_v1, step: 'self-attention-v1', qkv: (m, x) => [x.matmul(m.W_query), x.matmul(m.W_key), x.matmul(m.W_value)] },
  { name: 'SelfAttention_v2', part: 'sa_v2', module: (p) => p.sa_v2, step: 'self-attention-v2', qkv: (m, x) => [m.W_query.forward(x), m.W_key.forward(x), m.W_value.forward(x)] },
];
const IN_FORWARD = [
  { id: 'softmax-dim0', question: 'the softmax ran over dim=0', code: ['torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)', 'torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=0)'], weights: (torch, q, k) => torch.softmax(q.matmul(k.T).div(k.shape[1] ** 0.5), 0) },
  { id: 'no-scaling', question: 'the scores were not divided by √d_k', code: ['torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)', 'torch.softmax(attn_scores, dim=-1)'], weights: (torch, q, k) => torch.softmax(q.matmul(k.T), -1) },
  { id: 'divide-by-d_k', question: 'the scores were divided by d_k instead of √d_k', code: ['attn_scores / keys.shape[-1]**0.5', 'attn_scores / keys.shape[-1]'], weights: (torch, q, k) => torch.softmax(q.matmul(k.T).div(k.shape[1]), -1) },
  { id: 'scores-from-values', question: 'the scores used the values instead of the keys', code: ['attn_scores = queries @ keys.T', 'attn_scores = queries @ values.T'], weights: (torch, q, k, v) => torch.softmax(q.matmul(v.T).div(k.shape[1] ** 0.5), -1) },
];

/** Each mistake inside each class's forward: { id, question, code, step, part, name, make(torch, module, inputs) }. */
export const CLASS_MISTAKES = CLASSES.flatMap((c) =>
  IN_FORWARD.map((m) => ({
    id: `${m.id}-in-${c.part}`,
    question: `${m.question} in ${c.name}.forward`,
    code: { right: m.code[0], wrong: m.code[1] },
    step: c.step,
    part: c.part,
    module: c.module,
    make: (torch, module, x) => {
      const [q, k, v] = c.qkv(module, x);
      return m.weights(torch, q, k, v).matmul(v);
    },
  })),
);
