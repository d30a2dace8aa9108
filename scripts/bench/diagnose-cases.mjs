// The diagnose benchmark's cases (scripts/bench/diagnose.mjs), shared with the Node test that holds their answers
// to tests/golden/diagnose-answers.json: one printout per change of each kind, at the book's sizes and at 16
// words x 16 dims, each made with the project's API, and the step whose box it is pasted into (`nothingExplains`:
// a printout no change explains, for which every stage runs).
import { computeChapter } from '../../web/chapter/index.js';
import { bookSettings, zeros } from '../../web/state.js';

export function diagnoseCases(torch) {
  const printOf = (settings, name) => computeChapter(torch, settings)[name].tensor.toString();
  const book = bookSettings();
  const big = { ...bookSettings(), tokens: Array.from({ length: 16 }, (_, i) => `w${i}`), inputs: 'rand', embeddings: zeros(16, 16) };
  const altered = printOf(book, 'attn_weights_2').replace('0.2379', '0.2380');
  // a 6 x 2 printout that nothing explains: many results have its shape, and every seed of the range is tried for each
  const keysAltered = printOf({ ...book, seed: 4321 }, 'keys').replace('0.7321', '0.7322');
  torch.manualSeed(123);
  new torch.SelfAttention_v1(3, 2).delete();
  const v1Twice = new torch.SelfAttention_v1(3, 2).forward(torch.tensor(book.embeddings)).toString();
  const batch = torch.stack([torch.tensor(book.embeddings), torch.tensor(book.embeddings)], 0);
  torch.manualSeed(book.seed);
  const caTraining = new torch.CausalAttention(3, 2, 6, 0.1).forward(batch).toString();
  const secondHead = torch.tensor(computeChapter(torch, book).wrapper_out.tensor.toArray().map((copy) => copy.map((row) => row.slice(2, 4)))).toString();
  return [
    { what: 'book: no change', settings: book, step: 'self-attention-v2', printed: printOf(book, 'sa_v2_out') },
    { what: 'book: seed 42 (common)', settings: book, step: 'self-attention-v2', printed: printOf({ ...book, seedV2: 42 }, 'sa_v2_out') },
    { what: 'book: Intel MKL masks', settings: book, step: 'dropout-weights', printed: printOf({ ...book, profile: 'mkl' }, 'dropout_weights') },
    { what: 'book: cell run twice', settings: book, step: 'self-attention-v1', printed: v1Twice },
    { what: 'book: softmax over dim=0', settings: book, step: 'all-weights', printed: printOf(book, 'mistake_softmax_dim0') },
    { what: 'book: d_out 4 (MHA)', settings: book, step: 'mha-output', printed: printOf({ ...book, d_out: 4 }, 'mha_out') },
    { what: 'book: seed 4321 (range)', settings: book, step: 'self-attention-v2', printed: printOf({ ...book, seedV2: 4321 }, 'sa_v2_out') },
    { what: 'book: keys, seed 4321 (range)', settings: book, step: 'keys-values', printed: printOf({ ...book, seed: 4321 }, 'keys') },
    { what: 'book: weights, seedV2 4321', settings: book, step: 'causal-softmax', printed: printOf({ ...book, seedV2: 4321 }, 'causal_attn_weights') },
    { what: 'book: mha out, seed 2718', settings: book, step: 'mha-output', printed: printOf({ ...book, seed: 2718 }, 'mha_out') },
    { what: 'book: keys altered (none)', settings: book, step: 'keys-values', printed: keysAltered, nothingExplains: true },
    { what: 'book: CA training mode', settings: book, step: 'causal-attention', printed: caTraining },
    { what: "book: wrapper's 2nd head", settings: book, step: 'wrapper', printed: secondHead },
    { what: 'book: one number altered', settings: book, step: 'softmax-torch', printed: altered, nothingExplains: true },
    { what: '16×16: seed 42', settings: big, step: 'self-attention-v2', printed: printOf({ ...big, seedV2: 42 }, 'sa_v2_out') },
    { what: '16×16: Intel MKL masks', settings: big, step: 'dropout-weights', printed: printOf({ ...big, profile: 'mkl' }, 'dropout_weights') },
    { what: '16×16: d_out 4 (MHA)', settings: big, step: 'mha-output', printed: printOf({ ...big, d_out: 4 }, 'mha_out') },
    { what: '16×16: keys, seed 4321', settings: big, step: 'keys-values', printed: printOf({ ...big, seed: 4321 }, 'keys') },
    { what: '16×16: mha out, seed 2718', settings: big, step: 'mha-output', printed: printOf({ ...big, seed: 2718 }, 'mha_out') },
  ];
}

// What the Node test of the answers searches: the whole chapter, as the page's box does, but for a printout
// nothing explains, whose search runs every stage, only its step's results (the same stages, in a fraction of
// the time).
export const searchedStep = (c) => (c.nothingExplains ? c.step : undefined);
