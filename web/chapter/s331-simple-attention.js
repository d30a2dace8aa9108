// 3.3.1 A simple self-attention without trainable weights, in two sections: simpleAttention, the dot product
// of x1 and x2 and the inputs (all the page's first step draws), then simpleAttentionQuery, the scores, weights
// and context vector of one query (the book's x(2), or the word the settings choose), against every token. The
// page starts on the first alone, so that the second's kernels are compiled after its first paint.
// Reads torch, settings, words and the helpers; returns for later sections the inputs (as a tensor, as
// nested arrays and as row views), n and d_in, then the query's row q.
import * as explain from '../explain.js';
import { row, col, whole } from '../operands.js';
import { queryIndex } from '../state.js';

/** The input embeddings: as typed, or drawn by torch.rand / torch.randn(n, d_in) under their own seed. */
function embeddings({ torch, settings }) {
  if (settings.inputs === 'typed') return torch.tensor(settings.embeddings);
  const [n, d] = [settings.tokens.length, settings.embeddings[0].length];
  torch.manualSeed(settings.inputSeed);
  return settings.inputs === 'randn' ? torch.randn(n, d) : torch.rand(n, d);
}

function drawnBy(settings) {
  const { inputs, inputSeed } = settings;
  if (inputs === 'typed') return undefined;
  const [n, d] = [settings.tokens.length, settings.embeddings[0].length];
  if (inputs === 'rand') return (values) => explain.randDraws({ seed: inputSeed, start: 0, shape: [n, d], values });
  return () => explain.copiedFrom(([i, j]) => `number ${i * d + j} of torch.randn(${n}, ${d}) after torch.manual_seed(${inputSeed}): normally distributed, mean 0, standard deviation 1`);
}

export default function simpleAttention(chapter) {
  const { torch, settings, results, show, features, words } = chapter;
  const x1 = show('x1', torch.tensor([0.4, 0.1, 0.8]), { cols: features(3) });
  const x2 = show('x2', torch.tensor([0.5, 0.8, 0.6]), { cols: features(3) });
  show('dot_x1_x2', torch.dot(x1, x2), {
    label: 'torch.dot(x1, x2)',
    explain: (out) => () => [explain.dotLine('x1 · x2', results.x1.values, results.x2.values, out)],
    operands: () => [whole('x1', 1), whole('x2', 1)],
  });

  const inputs = show('inputs', embeddings(chapter), { rows: words, cols: features(settings.embeddings[0].length), explain: drawnBy(settings) });
  const inputRows = results.inputs.values;
  const [n, d_in] = [inputRows.length, inputRows[0].length];
  // The rows of inputs, taken once: every loop over the tokens in this and later sections walks these views.
  const tokens = [...inputs];
  return { inputs, inputRows, tokens, n, d_in };
}

/** 3.3.1 for one query: its scores against every token, normalized three ways, and its context vector. */
export function simpleAttentionQuery(chapter) {
  const { torch, settings, results, show, features, words, inputs, inputRows, tokens, d_in } = chapter;
  const q = queryIndex(settings); // the chosen query word (the book's x(2)), or the last when there are fewer
  const copiedRow = (out) => (i) => [`row ${q} (“${words[q]}”) of inputs: ${explain.fmt(out[i[0]])}`];
  const query = show('query', tokens[q], { cols: features(d_in), explain: copiedRow, operands: ([j]) => [['inputs', [q, j]]] });

  // one dot product per token, written into an empty tensor like the book's loop
  const scores2 = torch.empty(inputs.shape[0]);
  tokens.forEach((x_i, i) => scores2.set(i, x_i.dot(query)));
  show('attn_scores_2', scores2, {
    cols: words,
    explain: (out) => explain.rowDots(inputRows, results.query.values, out, { name: `ω${q + 1}` }),
    operands: ([i]) => [row('inputs', i), whole('query', 1)],
  });
  const scoreValues = results.attn_scores_2.values;
  const fromScores = () => [whole('attn_scores_2', 1)];
  const sumOf = (name) => ({ label: `${name}.sum()`, explain: (out) => explain.sumOf(results[name].values, out), operands: () => [whole(name, 1)] });

  const tmp = show('attn_weights_2_tmp', scores2.div(scores2.sum()), { cols: words, explain: (out) => explain.divideBySum(scoreValues, out), operands: fromScores });
  show('attn_weights_2_tmp_sum', tmp.sum(), sumOf('attn_weights_2_tmp'));

  const exps = scores2.exp(); // exp(x) once, for both sides of exp(x) / exp(x).sum(0)
  const naive = show('attn_weights_2_naive', exps.div(exps.sum(0)), { cols: words, explain: (out) => explain.naiveSoftmax(scoreValues, out), operands: fromScores });
  show('attn_weights_2_naive_sum', naive.sum(), sumOf('attn_weights_2_naive'));

  const weights2 = show('attn_weights_2', torch.softmax(scores2, 0), { cols: words, explain: (out) => explain.softmax(scoreValues, out), operands: fromScores });
  show('attn_weights_2_sum', weights2.sum(), sumOf('attn_weights_2'));

  const context2 = torch.zeros(...query.shape);
  tokens.forEach((x_i, i) => context2.add_(weights2.at(i).mul(x_i)));
  show('context_vec_2', context2, {
    cols: features(d_in),
    explain: (out) => explain.weightedSum(results.attn_weights_2.values, inputRows, out, { name: `z${q + 1}` }),
    operands: ([j]) => [whole('attn_weights_2', 1), col('inputs', j)],
  });

  return { q };
}
