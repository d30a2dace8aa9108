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

// The chapter's classes as their forward runs, with one learner mistake put in (the chapter's own lines
// otherwise): part is the kept part holding the module, input the result it runs on, kT how its code transposes
// the keys, heads the width of one head's columns in its output (for a printout of one head).
const linear = (l, x) => l.forward(x);
const CLASSES = [
  { name: 'SelfAttention_v1', part: 'sa_v1', output: 'sa_v1_out', module: (p) => p.sa_v1, step: 'self-attention-v1', input: 'inputs', kT: '.T', qkv: (m) => [m.W_query, m.W_key, m.W_value], project: (w, x) => x.matmul(w) },
  { name: 'SelfAttention_v2', part: 'sa_v2', output: 'sa_v2_out', module: (p) => p.sa_v2, step: 'self-attention-v2', input: 'inputs', kT: '.T', qkv: (m) => [m.W_query, m.W_key, m.W_value], project: linear },
  { name: 'CausalAttention', part: 'ca', output: 'ca_context_vecs', step: 'causal-attention', input: 'batch', kT: '.transpose(1, 2)', causal: true, qkv: (m) => [m.W_query, m.W_key, m.W_value], project: linear },
  { name: 'MultiHeadAttentionWrapper', part: 'wrapper', output: 'wrapper_out', step: 'wrapper', input: 'batch', kT: '.transpose(1, 2)', causal: true, wrapper: true, qkv: (m) => [m.W_query, m.W_key, m.W_value], project: linear },
  { name: 'MultiHeadAttention', part: 'mha', output: 'mha_out', step: 'mha-output', input: 'batch', kT: '.transpose(2, 3)', causal: true, split: true, qkv: (m) => [m.W_query, m.W_key, m.W_value], project: linear },
];
// Each mistake changes one stage of the forward; `causal` ones exist only where there is a mask, `square` ones
// (weight without .T) only where they can run: nn.Linear's weight is d_out x d_in, so x @ weight needs d_in = d_out.
const MASK = 'attn_scores.masked_fill_(mask_bool, -torch.inf)';
const IN_FORWARD = [
  { id: 'softmax-dim0', question: 'the softmax ran over dim=0', code: () => ['torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)', 'torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=0)'], dim: 0 },
  { id: 'no-scaling', question: 'the scores were not divided by √d_k', code: () => ['torch.softmax(attn_scores / keys.shape[-1]**0.5, dim=-1)', 'torch.softmax(attn_scores, dim=-1)'], scale: (s) => s },
  { id: 'divide-by-d_k', question: 'the scores were divided by d_k instead of √d_k', code: () => ['attn_scores / keys.shape[-1]**0.5', 'attn_scores / keys.shape[-1]'], scale: (s, d_k) => s.div(d_k) },
  { id: 'scores-from-values', question: 'the scores used the values instead of the keys', code: (c) => [`attn_scores = queries @ keys${c.kT}`, `attn_scores = queries @ values${c.kT}`], scoresFromValues: true },
  { id: 'masked-fill-copy', causal: true, question: 'masked_fill was called without the underscore (its masked copy thrown away)', code: () => [MASK, 'attn_scores.masked_fill(mask_bool, -torch.inf)'], mask: (s) => s },
  { id: 'fill-zero', causal: true, question: 'the future was filled with 0 instead of −∞ before the softmax', code: () => [MASK, 'attn_scores.masked_fill_(mask_bool, 0)'], mask: (s, future) => s.maskedFill(future, 0) },
  { id: 'mask-after-softmax', causal: true, question: 'the mask was applied after the softmax, without renormalising the rows', code: () => [MASK, 'attn_weights = attn_weights.masked_fill(mask_bool, 0)  # after the softmax'], mask: (s) => s, after: (w, future) => w.maskedFill(future, 0) },
  { id: 'weight-without-T', square: true, question: 'the projections multiplied by W.weight without .T', code: () => ['queries = self.W_query(x)', 'queries = x @ self.W_query.weight'], project: (l, x) => (l.bias ? x.matmul(l.weight).add(l.bias) : x.matmul(l.weight)) },
];

// One forward of `c` on x with mistake `m`, step for step as the chapter's classes compute it.
function forward(torch, c, m, module, x) {
  const attend = (mod) => {
    const project = m.project ?? c.project;
    let [q, k, v] = c.qkv(mod).map((w) => project(w, x));
    if (c.split) {
      const [b, n] = x.shape;
      [q, k, v] = [q, k, v].map((t) => t.view(b, n, module.num_heads, module.head_dim).transpose(1, 2));
    }
    const last = (t) => t.transpose(t.shape.length - 2, t.shape.length - 1);
    const n = q.shape[q.shape.length - 2];
    const future = c.causal ? torch.triu(torch.ones(n, n), 1).bool() : null;
    let scores = q.matmul(last(m.scoresFromValues ? v : k));
    if (c.causal) scores = (m.mask ?? ((s) => s.maskedFill(future, -Infinity)))(scores, future);
    const d_k = k.shape[k.shape.length - 1];
    let weights = torch.softmax((m.scale ?? ((s) => s.div(d_k ** 0.5)))(scores, d_k), m.dim ?? -1);
    if (m.after) weights = m.after(weights, future);
    let context = weights.matmul(v);
    if (c.split) {
      const [b, n2] = x.shape;
      context = module.out_proj.forward(context.transpose(1, 2).contiguous().view(b, n2, module.d_out));
    }
    return context;
  };
  return c.wrapper ? torch.cat(module.heads.map(attend), -1) : attend(module);
}
const canRun = (c, m, module) =>
  (!m.causal || c.causal) && (!m.square || (c.project === linear && (c.wrapper ? module.heads[0] : module).W_query.weight.shape.every((d, _, s) => d === s[0])));
// the width of one head's columns in the class's output
const headWidth = (c, module) => (c.split ? module.head_dim : c.wrapper ? module.heads[0].W_query.weight.shape[0] : null);

/**
 * Each mistake inside each class's forward: { id, question, code, step, part, output (the class's right result), input,
 * make(torch, module, x) }
 * (make returns null where the mistake cannot run with this module's sizes).
 */
export const CLASS_MISTAKES = CLASSES.flatMap((c) =>
  IN_FORWARD.filter((m) => !m.causal || c.causal).map((m) => {
    const [right, wrong] = m.code(c);
    return {
      id: `${m.id}-in-${c.part}`,
      question: `${m.question} in ${c.name}.forward`,
      code: { right, wrong },
      step: c.step,
      part: c.part,
      output: c.output,
      input: c.input,
      make: (torch, part, x) => {
        const module = c.module?.(part) ?? part;
        return canRun(c, m, module) ? Object.assign(forward(torch, c, m, module, x), { headWidth: headWidth(c, module) }) : null;
      },
    };
  }),
);

// The dropout rates a learner may have built a class with before running it in training mode.
const TRAINING_P = [0.1, 0.2, 0.5];
// context_length is no change worth trying: the classes slice their mask to the tokens given
// (mask[:num_tokens, :num_tokens]), so any context_length >= the number of words prints the same numbers.
const TRAINED = [
  { name: 'CausalAttention', part: 'ca', output: 'ca_context_vecs', step: 'causal-attention', build: (torch, s, d_in, ctx, p) => new torch.CausalAttention(d_in, s.d_out, ctx, p, s.qkv_bias) },
  { name: 'MultiHeadAttentionWrapper', part: 'wrapper', output: 'wrapper_out', step: 'wrapper', build: (torch, s, d_in, ctx, p) => new torch.MultiHeadAttentionWrapper(d_in, s.d_out, ctx, p, s.heads, s.qkv_bias) },
  { name: 'MultiHeadAttention', part: 'mha', output: 'mha_out', step: 'mha-output', build: (torch, s, d_in, ctx, p) => new torch.MultiHeadAttention(d_in, s.d_out, ctx, p, s.heads, s.qkv_bias) },
];

/**
 * Each class built with dropout and run in training mode (a module is in training mode until .eval()), for
 * the settings' p and the common rates: { id, label, step, part, output, input, change, make(torch, module, x, settings) }.
 * make builds the module anew after its manual_seed, as the learner's cell does, and draws the mask under the
 * settings' build.
 */
export function trainingTargets(settings) {
  const rates = [...new Set([settings.p, ...TRAINING_P])].filter((p) => p > 0 && p < 1);
  return TRAINED.flatMap((c) =>
    rates.map((p) => ({
      id: `training-${c.part}-${p}`,
      label: `${c.part}(batch), dropout ${p}, training mode`,
      step: c.step,
      part: c.part,
      output: c.output,
      input: 'batch',
      change: {
        kind: 'setting',
        name: 'training',
        from: false,
        to: true,
        text: `Your numbers are what this step prints with ${c.name} built with dropout ${p} and run in training mode, which drops attention weights at random; the book builds it with dropout 0.0 (or call \`.eval()\` before using it).`,
        code: { from: `${c.part} = ${c.name}(…, 0.0, …)`, to: `${c.part} = ${c.name}(…, ${p}, …)  # training mode` },
      },
      make: (torch, module, x, s) => {
        torch.manualSeed(s.seed);
        const m = c.build(torch, s, x.shape[2], s.context_length ?? x.shape[1], p);
        try {
          torch.setRngProfile(s.profile);
          return Object.assign(m.forward(x), { headWidth: c.part === 'mha' ? s.d_out / s.heads : c.part === 'wrapper' ? s.d_out : null });
        } finally {
          torch.setRngProfile('default');
          m.delete();
        }
      },
    })),
  );
}
