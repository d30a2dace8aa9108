// 3.5.2 — dropout on the causal attention weights.
import { printOf } from '../python.js';
export default {
  id: 'dropout-weights',
  section: '3.5.2',
  title: 'Dropout on the causal weights',
  prose: [
    'In attention, dropout is applied to the weights, after softmax. It removes some of the visible weights too ' +
      'and scales up the rest, so a row no longer sums to exactly 1; it does on average, which is all training ' +
      'needs. Cells above the diagonal were 0 already and stay 0.',
    'Reseeding first repeats the random numbers of the previous step, and the tensor has the same shape, so the ' +
      'mask is the same one: the cells dropped here are the cells dropped from the matrix of ones there. Hover over ' +
      'a cell for its random number and the scaling.',
  ],
  formula: String.raw`\operatorname{dropout}(\mathbf{A}^{\text{causal}})_{ij} = \frac{m_{ij} \, \alpha_{ij}}{1 - p}`,
  code: (s) => [`torch.manual_seed(${s.seed})`, printOf('dropout_weights', 'dropout(attn_weights)')],
  highlight: [1],
  show: ['dropout_weights'],
  controls: ['profile', 'p', 'seed'],
  note: (r) => {
    const v = r.dropout_weights.values;
    let visible = 0;
    let kept = 0;
    v.forEach((row, i) => row.forEach((x, j) => {
      if (j > i) return;
      visible += 1;
      if (x !== 0) kept += 1;
    }));
    const dropped = visible - kept;
    if (visible === 1) return `The one visible weight ${kept ? 'survives' : 'was dropped'}.`;
    return `${kept} of the ${visible} visible weights ${kept === 1 ? 'survives' : 'survive'}; ` +
      `${dropped} ${dropped === 1 ? 'was' : 'were'} dropped.`;
  },
};
