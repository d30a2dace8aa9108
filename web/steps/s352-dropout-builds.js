// 3.5.2 — why another PyTorch install prints another dropout mask.
import { printAlso, printOf, pyFloat  } from '../python.js';
import { counted } from './words.js';
export default {
  id: 'dropout-builds',
  section: '3.5.2',
  title: 'Why another PyTorch build gives another mask',
  prose: [
    'Run the same two lines on two installations and the masks can differ, with no bug anywhere. PyTorch’s ' +
      'default CPU path decides each element on its own: it takes two 32-bit words from the Mersenne Twister, ' +
      'forms a double-precision uniform number U from them, and keeps the element when U < 1 − p. A 6 × 6 tensor ' +
      'uses 72 words.',
    'PyTorch builds linked with Intel’s MKL library, running on an Intel CPU, take another path, at least in ' +
      'PyTorch 1.13 (later releases changed which builds use it). They draw a single 32-bit word and use it ' +
      'to seed MKL’s own generator, which then makes every decision. Same seed, ' +
      'different stream, different mask; and because only one word is used, anything drawn afterwards shifts ' +
      'as well.',
    'A fingerprint tells a notebook’s path: after seed 123, row 0 of Dropout(0.5) on ones(6, 6) reads 2 2 0 2 2 0 ' +
      'on the default path (the book’s printout) and 2 2 2 2 2 2 on the MKL path. Hover over a cell of either ' +
      'mask to see how it was decided.',
  ],
  // One PyTorch prints one of the two masks: its own build's.
  code: (s) => [
    `torch.manual_seed(${s.seed})`,
    printOf(`dropout_ones_${s.profile}`, `torch.nn.Dropout(${pyFloat(s.p)})(torch.ones(${s.tokens.length}, ${s.tokens.length}))`),
    printAlso('torch.backends.mkl.is_available()', 'True on an MKL build, which on an Intel CPU takes the MKL path'),
  ],
  highlight: [1],
  printsOneOf: ['dropout_ones_default', 'dropout_ones_mkl'],
  show: ['dropout_ones_default', 'dropout_ones_mkl'],
  controls: ['seed', 'p'],
  note: (r) => {
    const a = r.dropout_ones_default.values.flat();
    const b = r.dropout_ones_mkl.values.flat();
    const differ = a.filter((v, i) => v !== b[i]).length;
    const { default: words, mkl } = r.dropout_draws.value;
    return `The masks differ in ${differ} of ${counted(a.length, 'cell')}. The default path drew ${words} words, the MKL path ${mkl}.`;
  },
};
