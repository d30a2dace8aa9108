// What the tests of the chapter's Python share: the settings they run under, and what a step's lines print
// (each print of a result the step shows, as the page's values look when printed).
import assert from 'node:assert/strict';

import { bookSettings } from '../../web/state.js';
import { stepLines } from '../../web/python.js';

export const SETTINGS = {
  "the book's": bookSettings(),
  'other (seed 7, seedV2 1, d_out 4, 4 heads, p 0.2, qkv_bias, new words and numbers, x(5) as the query)': {
    ...bookSettings(), seed: 7, seedV2: 1, d_out: 4, heads: 4, p: 0.2, qkv_bias: true, query: 5,
    tokens: ['the', 'cat', 'sat', 'on', 'a', 'mat'],
    embeddings: [[0.1, 0.2, 0.3], [0.9, 0.8, 0.7], [0.25, 0.5, 0.75], [1, 0, 0.5], [0.05, 0.95, 0.4], [0.6, 0.3, 0.1]],
  },
  'other (seed 0, seedV2 5, d_out 3, 3 heads, p 0.1)': { ...bookSettings(), seed: 0, seedV2: 5, d_out: 3, heads: 3, p: 0.1 },
  'four words of five numbers, d_out 6, 3 heads, context_length 10, query x(9), past the last word': {
    ...bookSettings(), d_out: 6, heads: 3, context_length: 10, query: 9,
    tokens: ['we', 'read', 'the', 'book'],
    embeddings: [[0.1, -0.2, 0.3, 0.4, 0.5], [1.5, 0.25, -1, 0, 2], [0.3, 0.3, 0.3, 0.3, 0.3], [-0.7, 0.8, 0.05, 0.6, -0.1]],
  },
  'one word of two numbers': { ...bookSettings(), tokens: ['alone'], embeddings: [[0.6, -0.4]] },
  'seven words drawn by torch.randn(7, 4) under seed 42': {
    ...bookSettings(), inputs: 'randn', inputSeed: 42, d_out: 4,
    tokens: ['a', 'b', 'c', 'd', 'e', 'f', 'g'], embeddings: Array.from({ length: 7 }, () => [0, 0, 0, 0]),
  },
  'five words drawn by torch.rand(5, 3) under seed 3': {
    ...bookSettings(), inputs: 'rand', inputSeed: 3,
    tokens: ['v', 'w', 'x', 'y', 'z'], embeddings: Array.from({ length: 5 }, () => [0, 0, 0]),
  },
  'the MKL profile, seed 1, p 0.3, one head, context_length 8': { ...bookSettings(), profile: 'mkl', seed: 1, p: 0.3, heads: 1, context_length: 8 },
};


/** The page's values printed by the core (PyTorch's format), without the closing parenthesis: a print of the
 * same tensor in Python starts so, whatever grad_fn follows. */
export const printedByPage = (torch, result) => torch.tensor(result.values).toString().replace(/\)$/, '');

/** The results a step's lines print, in order: [resultName, ...] (prints of other things left out). */
export const printedResults = (step, settings) => stepLines(step, settings).filter((e) => e.print && e.result).map((e) => e.result);

/**
 * Asserts that `output` holds, in order, each result the step prints as the page shows it (`results` from
 * computeChapter under the same settings). Returns how many were found.
 */
export function assertPrintsInOrder(torch, output, step, settings, results) {
  let from = 0;
  const names = printedResults(step, settings);
  for (const name of names) {
    const printed = printedByPage(torch, results[name]);
    const at = output.indexOf(printed, from);
    assert.ok(at >= 0, `${step.id}: ${name} as the page shows it\n${printed}\nis not printed${from ? ' after the step’s earlier prints' : ''}:\n${output}`);
    from = at + printed.length;
  }
  return names.length;
}
