// 3.3.2 Attention weights for all input tokens: the double loop of dot products, then the same scores as
// one matmul, their softmax along each row and all context vectors at once.
// Reads the inputs, inputRows, tokens and d_in of 3.3.1; adds nothing for later sections.
import * as explain from '../explain.js';
import { row, col } from '../operands.js';

const transpose = (m) => m[0].map((_, j) => m.map((r) => r[j]));
// an explain() over columns, from one written for rows: index [i, j] is row j, column i of the transpose
const transposed = (explainRows) => ([i, j]) => explainRows([j, i]).map((line) => line.replaceAll('row', 'column'));

export default function allTokens(chapter) {
  const { torch, results, show, fact, features, words, lazy, inputs, inputRows, tokens, d_in } = chapter;
  // the book's double loop of torch.dot; each number goes straight into its cell of a new tensor (the same
  // float32 as writing it with set(), without n² more calls into the core)
  const inputsT = inputs.T;
  const scoresExplain = lazy(() => explain.matmul(inputRows, inputsT.toArray(), results.attn_scores.values, { name: 'ω', aName: 'x', bName: 'x' }));
  const scoreOperands = ([i, j]) => [row('inputs', i), row('inputs', j)];
  const scoresLoop = torch.tensor(tokens.map((x_i) => tokens.map((x_j) => x_i.dot(x_j).toArray())));
  show('attn_scores_loop', scoresLoop, { label: 'attn_scores (loop)', rows: words, cols: words, explain: () => scoresExplain, operands: scoreOperands });
  const scores = show('attn_scores', inputs.matmul(inputsT), { rows: words, cols: words, explain: () => scoresExplain, operands: scoreOperands });
  const weights = show('attn_weights', torch.softmax(scores, 1), {
    rows: words,
    cols: words,
    explain: (out) => explain.softmax(results.attn_scores.values, out),
    operands: ([i]) => [row('attn_scores', i)],
  });
  // the mistake: softmax over dim=0, down the columns (each column sums to 1, the rows no longer do)
  show('mistake_softmax_dim0', torch.softmax(scores, 0), { label: 'torch.softmax(attn_scores, dim=0)', rows: words, cols: words, explain: (out) => transposed(explain.softmax(transpose(results.attn_scores.values), transpose(out))) });
  show('attn_weights_row_sums', weights.sum(1), {
    label: 'attn_weights.sum(dim=1)',
    cols: words,
    explain: (out) => explain.sumOf(results.attn_weights.values, out),
    operands: ([i]) => [row('attn_weights', i)],
  });
  fact('scores_loop_equal', torch.allclose(scoresLoop, scores));
  show('all_context_vecs', weights.matmul(inputs), {
    rows: words,
    cols: features(d_in),
    explain: (out) => explain.weightedSum(results.attn_weights.values, inputRows, out),
    operands: ([i, j]) => [row('attn_weights', i), col('inputs', j)],
  });
}
