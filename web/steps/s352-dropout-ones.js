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
      'value of every element unchanged; with p = 0.5 they double. At inference time dropout is switched off.',
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
