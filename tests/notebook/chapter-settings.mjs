// What the tests of the chapter's cells share: the settings they run under, which of the page's results each
// step's cell prints, and how the page's values look when printed.

import { bookSettings } from '../../web/state.js';

// Which printed tensor of which cell is which of the page's results (web/chapter/).
export const SHOWN = {
  'embeddings': ['inputs'],
  'context-z2': ['context_vec_2'],
  'all-context': ['attn_scores', 'attn_weights', 'all_context_vecs'],
  'qkv-weights': ['W_query', 'keys'],
  'self-attention-v2': ['sa_v1_out', 'sa_v2_out'],
  'ex31-transfer': ['ex31_out_v1'],
  'causal-softmax': ['causal_weights', 'masked_simple_norm', 'masked_scores', 'causal_attn_weights'],
  'dropout-weights': ['dropout_ones', 'dropout_weights'],
  'causal-attention': ['ca_context_vecs'],
  'wrapper': ['wrapper_out', 'wrapper_out_d1'],
  'mha-output': ['mha_out'],
};

export const SETTINGS = {
  "the book's": bookSettings(),
  'other (seed 7, seedV2 1, d_out 4, 4 heads, p 0.2, qkv_bias, new words and numbers)': {
    ...bookSettings(), seed: 7, seedV2: 1, d_out: 4, heads: 4, p: 0.2, qkv_bias: true,
    tokens: ['the', 'cat', 'sat', 'on', 'a', 'mat'],
    embeddings: [[0.1, 0.2, 0.3], [0.9, 0.8, 0.7], [0.25, 0.5, 0.75], [1, 0, 0.5], [0.05, 0.95, 0.4], [0.6, 0.3, 0.1]],
  },
  'other (seed 0, seedV2 5, d_out 3, 3 heads, p 0.1)': { ...bookSettings(), seed: 0, seedV2: 5, d_out: 3, heads: 3, p: 0.1 },
  'four words of five numbers, d_out 6, 3 heads, context_length 10': {
    ...bookSettings(), d_out: 6, heads: 3, context_length: 10,
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
};


/** The page's values printed by the core (PyTorch's format), without the closing parenthesis: a print of the
 * same tensor in Python starts so, whatever grad_fn follows. */
export const printedByPage = (torch, result) => torch.tensor(result.values).toString().replace(/\)$/, '');
