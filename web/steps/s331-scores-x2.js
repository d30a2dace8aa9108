// 3.3.1 — one query, six dot products.
import { printOf } from '../python.js';
import { queryIndex } from '../state.js';
import { fmt } from '../explain.js';
import { count, queryLine, sizes, theQuery } from './words.js';

export default {
  id: 'scores-x2',
  section: '3.3.1',
  query: true, // follows one query token, x(2)
  title: (s) => `Scores of ${theQuery(s).x} against every token`,
  prose: [
    (s) => {
      const { i, x, nth, word } = theQuery(s);
      return `Take the ${nth} token, ${x} (“${word}”), as the query. Its attention score with token j is the dot product of ` +
        `the two embeddings, ω${i}j = ${x} · x(j), so a loop over the rows of \`inputs\` gives ${count(sizes(s).n)} score${sizes(s).n === 1 ? '' : 's'}.`;
    },
    'A dot product is a measure of similarity: it grows when two vectors point the same way and have large ' +
      'entries. Hover over a score to see its three products.',
    'The scores are raw numbers with no common scale yet; the next steps turn them into weights.',
  ],
  formula: (s) => { const q = theQuery(s).i; return String.raw`\omega_{${q}i} = \mathbf{x}^{(${q})} \cdot \mathbf{x}^{(i)} = \sum_{k=1}^{${sizes(s).d}} x^{(${q})}_k \, x^{(i)}_k`; },
  code: (s) => [
    queryLine('query', s),
    'attn_scores_2 = torch.empty(inputs.shape[0])',
    'for i, x_i in enumerate(inputs):',
    '    attn_scores_2[i] = torch.dot(x_i, query)',
    printOf('query', 'query'),
    printOf('attn_scores_2', 'attn_scores_2'),
  ],
  highlight: [0, 3],
  show: ['query', 'attn_scores_2'],
  predict: {
    id: 'top-score',
    kind: 'choice',
    question: (r, s) => `Before you see the scores: which word will the query ${theQuery(s).x}, “${theQuery(s).word}”, score highest against? ` +
      '(Its numbers are just below; every embedding is on the step before.)',
    options: (r, s) => s.tokens.map((word, i) => ({ value: i, label: `x(${i + 1}) “${word}”` })),
    hides: ['attn_scores_2'],
    verdict: (guess, r, s) => {
      const scores = r.attn_scores_2.values;
      const best = scores.indexOf(Math.max(...scores));
      const q = queryIndex(s);
      const yours = guess === null || guess === best ? '' : ` Your pick, x(${guess + 1}) “${s.tokens[guess]}”, scores ${fmt(scores[guess])}.`;
      const why = best === q
        ? 'A vector’s dot product with itself is its squared length, and nothing points more its way than itself; another word wins only when it is longer and points nearly the same way.'
        : `A dot product grows with both vectors’ lengths and with how much they point the same way: “${s.tokens[best]}” wins on both counts here, ahead of the query itself (${fmt(scores[q])}).`;
      return { right: guess === best, text: `The highest score, ${fmt(scores[best])}, is with x(${best + 1}) “${s.tokens[best]}”.${yours} ${why}` };
    },
  },
  note: (r, s) => {
    const scores = r.attn_scores_2.values;
    const best = scores.indexOf(Math.max(...scores));
    const who = best === queryIndex(s) ? 'the query token itself' : `“${s.tokens[best]}”`;
    return `The largest score, ${fmt(scores[best])}, is with ${who}.`;
  },
};
