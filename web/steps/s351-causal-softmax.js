// 3.5.1 — one softmax gives the causal weights; both routes agree.
import { printAlso, printOf } from '../python.js';
import { closeness, maxAbsDiff, py } from '../explain.js';

export default {
  id: 'causal-softmax',
  section: '3.5.1',
  title: 'Softmax of the masked scores',
  prose: [
    'Softmax of the masked scores, scaled by √d_k as before, gives the causal weights in a single pass. The ' +
      'mask-then-renormalise weights of the earlier step are shown beside them for comparison.',
    'Hover over a masked cell to see how −∞ turns into a weight of exactly 0.',
  ],
  formula: String.raw`\mathbf{A}^{\text{causal}} = \operatorname{softmax}\!\left(\frac{\boldsymbol{\Omega}^{\text{masked}}}{\sqrt{d_k}}\right)`,
  code: [
    'attn_weights = torch.softmax(masked / keys.shape[-1]**0.5, dim=1)',
    printOf('causal_attn_weights', 'attn_weights'),
    printOf('masked_simple_norm', 'masked_simple_norm'),
    printAlso('torch.allclose(attn_weights, masked_simple_norm, atol=1e-6)'),
  ],
  highlight: [0, 3],
  show: ['causal_attn_weights', 'masked_simple_norm'],
  equivalence: {
    title: '−∞ before the softmax, and zeroing then renormalising after it',
    left: { code: 'torch.softmax(masked / d_k**0.5, dim=-1)', values: (r) => r.causal_attn_weights.values },
    right: { code: 'masked_simple / masked_simple.sum(dim=-1, keepdim=True)', values: (r) => r.masked_simple_norm.values },
    same: 'Both ways give every kept weight the same float32 value here: exp(−∞) = 0 leaves the kept scores to one ' +
      'softmax, and dividing the zeroed row by its sum happens to round to the same numbers.',
    differ: 'In exact arithmetic the two are equal. In float32 they round differently: the left takes one softmax ' +
      'over the kept scores, while the right takes a softmax over the whole row, zeroes the future and divides by ' +
      'the sum of what is left, a second rounding. So the last bits can differ, which is why the chapter compares ' +
      'them with allclose rather than ==.',
  },
  note: (r) =>
    `torch.allclose(attn_weights, masked_simple_norm, atol=1e-6) → ${py(r.causal_equal.value)}: the two routes are ` +
    `${closeness(maxAbsDiff(r.causal_attn_weights.values, r.masked_simple_norm.values))}.`,
};
