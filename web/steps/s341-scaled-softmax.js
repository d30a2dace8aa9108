// 3.4.1 — scaled dot-product attention weights.
import { printOf } from '../python.js';
import { theQuery } from './words.js';
export default {
  id: 'scaled-softmax',
  section: '3.4.1',
  query: true, // follows one query token, x(2)
  title: 'Scale by √d_k, then softmax',
  prose: [
    'Before softmax the scores are divided by √d_k, the square root of the keys’ width. Dot products of wider ' +
      'vectors tend to be larger, and large scores make softmax nearly one-hot: almost all weight on one token, ' +
      'with gradients so small that learning stalls. The division keeps the scores in a range where softmax ' +
      'stays smooth.',
    'This is where the name scaled dot-product attention comes from. Hover over a scaled score for the division ' +
      'and over a weight for the softmax.',
  ],
  formula: (s) => { const q = theQuery(s).i; return String.raw`\alpha_{${q}i} = \operatorname{softmax}_i\!\left(\frac{\omega_{${q}i}}{\sqrt{d_k}}\right)`; },
  code: [
    'd_k = keys.shape[-1]',
    'attn_weights_2 = torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)',
    printOf('attn_scores_2_scaled', 'attn_scores_2 / d_k**0.5'),
    printOf('attn_weights_2_qk', 'attn_weights_2'),
  ],
  highlight: [0, 1],
  show: ['attn_scores_2_scaled', 'attn_weights_2_qk'],
  mistakes: [
    {
      id: 'no-scaling',
      question: 'the scores were not divided by √d_k?',
      right: 'attn_weights_2_qk',
      wrong: 'mistake_unscaled',
      code: { right: 'torch.softmax(attn_scores_2 / d_k**0.5, dim=-1)', wrong: 'torch.softmax(attn_scores_2, dim=-1)' },
      why: (r, s) =>
        `Without the division the softmax sees scores ${Math.sqrt(s.d_out).toFixed(2)} times larger (√${s.d_out}), so the weights get ` +
        'sharper: the largest score takes more of the weight and the others less. With d_k = 2 the change is small; ' +
        'with GPT-2’s head size of 64 the scores grow 8 times, the softmax saturates and its gradients all but vanish.',
    },
  ],
  controls: ['d_out'],
  note: (r) => {
    const d_k = r.keys.shape[1];
    return `d_k = ${d_k}, so every score is divided by √${d_k} ≈ ${Math.sqrt(d_k).toFixed(4)}.`;
  },
};
