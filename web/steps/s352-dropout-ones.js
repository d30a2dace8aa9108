// 3.5.2 — dropout's mask, made visible on a matrix of ones.
import { printOf, pyFloat } from '../python.js';
import { fmt } from '../explain.js';
import { counted, sizes } from './words.js';

const PATHS = { '2 2 0 2 2 0': 'PyTorch’s default generator path, as in the book', '2 2 2 2 2 2': 'the MKL path' };

export default {
  id: 'dropout-ones',
  section: '3.5.2',
  title: (s) => `Dropout on a ${sizes(s).n} × ${sizes(s).n} matrix of ones`,
  prose: [
    'Dropout fights overfitting: during training it sets each element to 0 with probability p, so the model ' +
      'cannot lean too hard on any single unit. The survivors are scaled by 1/(1 − p), which keeps the expected ' +
      'value of every element unchanged. At inference time dropout is switched off.',
    'Applied to ones, the output shows the mask itself: every cell is either 0 or 1/(1 − p). Hover over a cell to ' +
      'see the random number that decided it.',
    'Which cells drop depends on the random generator, and there PyTorch builds differ. The generator profile ' +
      'in the settings picks one: the default (the book’s) or MKL, as in PyTorch’s Intel-MKL builds on Intel CPUs.',
  ],
  formula: String.raw`\operatorname{dropout}(x)_i = \frac{m_i \, x_i}{1 - p}, \quad m_i \sim \operatorname{Bernoulli}(1 - p)`,
  code: (s) => [
    `torch.manual_seed(${s.seed})`,
    `dropout = torch.nn.Dropout(${pyFloat(s.p)})`,
    `example = torch.ones(${s.tokens.length}, ${s.tokens.length})`,
    printOf('dropout_ones', 'dropout(example)'),
  ],
  highlight: [3],
  show: ['dropout_ones'],
  predict: {
    id: 'dropout-survivor',
    kind: 'number',
    question: (r, s) => `Dropout with p = ${s.p} zeroes some of these ones. What does a 1 that survives become?`,
    unit: 'A surviving 1 becomes',
    hides: ['dropout_ones'],
    hidesAlso: ['.formula', '.step > .prose:not(.lede)'], // they say 1/(1 − p)
    verdict: (guess, r, s) => {
      const kept = 1 / (1 - s.p);
      const n = r.dropout_ones.shape[1];
      const sums = r.dropout_ones.values.map((row) => row.reduce((a, b) => a + b, 0));
      const mean = sums.reduce((a, b) => a + b, 0) / sums.length;
      const close = guess !== null && Math.abs(guess - kept) <= 0.005 * kept;
      const notOneOverP = s.p === 0
        ? ' With p = 0 nothing is dropped and nothing is scaled.'
        : s.p === 0.5
        ? ' With p = 0.5, 1/p and 1/(1 − p) are both 2; try another p to tell them apart.'
        : ` Not 1/p = ${fmt(1 / s.p)}: what is divided out is the share that survives, 1 − p, not the share dropped.`;
      return {
        right: guess === null ? null : close,
        text: `A survivor becomes 1/(1 − p) = ${fmt(kept)}${guess !== null && !close ? ` (you said ${guess})` : ''}. On average a share 1 − p of a row’s ${n} ones survives, ` +
          `so scaling them by 1/(1 − p) keeps a row’s expected sum at ${n}, what it was before dropout: here the row sums are ${sums.map(fmt).join(', ')}, ` +
          `${fmt(mean)} on average.${notOneOverP}`,
      };
    },
  },
  controls: ['profile', 'p', 'seed'],
  note: (r, s) => {
    const cells = r.dropout_ones.values.flat();
    const dropped = cells.filter((v) => v === 0).length;
    if (s.p === 0 || s.p === 1) return `With p = ${s.p}, dropout draws no random numbers: ${s.p ? 'every' : 'no'} cell is dropped.`;
    let text = `${dropped} of ${counted(cells.length, 'cell')} dropped (p = ${s.p} expects about ${+(s.p * cells.length).toFixed(1)}); ` +
      `the kept ones hold ${fmt(1 / (1 - s.p))}.`;
    if (s.seed === 123 && s.p === 0.5) {
      const row0 = r.dropout_ones.values[0].map((v) => String(v)).join(' ');
      text += ` Row 0 reads ${row0}: ${PATHS[row0] ?? 'a mask of neither known path'}.`;
    }
    return text;
  },
};
