// 3.3.1 — one query, six dot products.
import { printOf } from '../python.js';
import { queryIndex } from '../state.js';
import { fmt } from '../explain.js';
import { sizes } from './words.js';

export default {
  id: 'scores-x2',
  section: '3.3.1',
  query: true, // follows one query token, x(2)
  title: 'Scores of x(2) against every token',
  prose: [
    'Take the second token, x(2), as the query. Its attention score with token i is the dot product of the two ' +
      'embeddings, ω2i = x(2) · x(i), so a loop over the rows of `inputs` gives six scores.',
    'A dot product is a measure of similarity: it grows when two vectors point the same way and have large ' +
      'entries. Hover over a score to see its three products.',
    'The scores are raw numbers with no common scale yet; the next steps turn them into weights.',
  ],
  formula: (s) => String.raw`\omega_{2i} = \mathbf{x}^{(2)} \cdot \mathbf{x}^{(i)} = \sum_{k=1}^{${sizes(s).d}} x^{(2)}_k \, x^{(i)}_k`,
  code: (s) => [
    `query = inputs[${queryIndex(s)}]`,
    'attn_scores_2 = torch.empty(inputs.shape[0])',
    'for i, x_i in enumerate(inputs):',
    '    attn_scores_2[i] = torch.dot(x_i, query)',
    printOf('query', 'query'),
    printOf('attn_scores_2', 'attn_scores_2'),
  ],
  highlight: [0, 3],
  show: ['query', 'attn_scores_2'],
  note: (r, s) => {
    const scores = r.attn_scores_2.values;
    const best = scores.indexOf(Math.max(...scores));
    const who = best === 1 ? 'the query token itself' : `“${s.tokens[best]}”`;
    return `The largest score, ${fmt(scores[best])}, is with ${who}.`;
  },
};
