// The walk through chapter 3, in order. Each step is plain data in a file of its own:
//   id         stable name, used in the URL (#step=<id>) and as data-step
//   section    the chapter's section number, e.g. '3.5.2' (data-section)
//   title      a short heading
//   prose      paragraphs of plain text written for this page; `backticks` mark code
//   formula    optional KaTeX source
//   code       the PyTorch this step runs, with the settings written in: (settings) -> lines, or the lines.
//              The one copy of the chapter's Python: the page shows it and the notebook's cells and the
//              "Copy as PyTorch" scripts are made of it (web/python.js: printOf(result, expr) prints each
//              result in `show`, in order; definition() writes a class that several steps use once)
//   highlight  the 0-based lines of code being executed, or 'all'
//   printsOneOf optional result names of which one PyTorch prints only one (its own build's dropout mask)
//   show       names of results from computeChapter() (web/chapter/), drawn in this order
//   biases     optional result names shown after `show` when the settings' qkv_bias is on (the bias vectors);
//              shownResults() says what a step draws under given settings, and its code prints the same
//   view       optional extra picture: 'embeddings' (bars per token), 'context' (inputs beside context) or
//              'overview' (where attention sits in a GPT-style model) or 'gpt-block' (the next chapter's
//              transformer block around multi-head attention, with its shapes; after the recap)
//   recap      optional rows { name, adds }: the chapter's classes and what each adds (a table)
//   note       optional function(results, settings) -> text shown under the tensors (e.g. an equality)
//   mistakes   optional [{ id, question, right, wrong, code: { right, wrong }, why(results, settings) }]: "What if…"
//              switches showing a learner's mistake beside the right result (render/mistake.js)
//   equivalence optional { title, left, right, same, differ }: two ways the chapter says give one result, both
//              computed live and compared bit for bit (render/equivalence.js)
//   layout     optional { fact, view, storage, viewLabel, storageLabel }: the view/transpose explorer
//              (render/layout.js) of the layout fact `fact` (mha_layout), the view and the tensor it reads
//   predict    optional { id, kind: 'choice' | 'number', question(results, settings), options(results, settings)
//              (a choice's [{ value, label }]), unit (a number's label), hides: [result names], hidesAlso:
//              [selectors of other parts that tell the answer], verdict(guess,
//              results, settings) -> { right, text } (guess null when skipped) }: asked before those results are
//              shown (render/predict.js)
//   exercise   optional { id, title, task(settings), fields, check(answer, results, settings) -> { solved, text },
//              solution(results, settings), hides, hidesAlso }: one of the chapter's exercises, posed before the
//              results and parts (selectors) that solve it (render/exercise.js; checks in chapter/exercises.js)
//   query      true on the steps that follow one query token: x(2), or the word the settings' query names (the
//              last word when there are fewer)
//   weights    with view 'context': the result whose weights the picture draws beside each input
//   context    with view 'context': the result the picture draws beside the inputs
// title, prose (or any of its paragraphs) and formula may be functions of the settings where they name sizes
// ("six tokens"): steps/words.js resolveStep() writes them for the current settings.
//   controls   optional keys of the settings (web/state.js SETTINGS) that this step is about, e.g. ['profile',
//              'p', 'seed'] for dropout; a renderer may offer these controls beside the step
// Results of 3 or more dims may carry `axes`, a name per dim (['batch', 'head', 'query', 'key']), for
// captioning the slices; rows/cols always label the last two dims.
import dotProduct from './s331-dot-product.js';
import embeddings from './s331-embeddings.js';
import scoresX2 from './s331-scores-x2.js';
import normaliseBySum from './s331-normalise-by-sum.js';
import softmaxNaive from './s331-softmax-naive.js';
import softmaxTorch from './s331-softmax-torch.js';
import contextZ2 from './s331-context-z2.js';
import allScores from './s332-all-scores.js';
import allWeights from './s332-all-weights.js';
import rowSums from './s332-row-sums.js';
import allContext from './s332-all-context.js';
import qkvWeights from './s341-qkv-weights.js';
import qkvX2 from './s341-qkv-x2.js';
import keysValues from './s341-keys-values.js';
import score22 from './s341-score-22.js';
import scoresQ2 from './s341-scores-q2.js';
import scaledSoftmax from './s341-scaled-softmax.js';
import contextQ2 from './s341-context-q2.js';
import selfAttentionV1 from './s342-self-attention-v1.js';
import selfAttentionV2 from './s342-self-attention-v2.js';
import ex31Weights from './s342-ex31-weights.js';
import ex31Transfer from './s342-ex31-transfer.js';
import causalWeights from './s351-causal-weights.js';
import causalTrilMask from './s351-causal-tril-mask.js';
import causalMaskedWeights from './s351-causal-masked-weights.js';
import causalRenormalise from './s351-causal-renormalise.js';
import causalMinusInf from './s351-causal-minus-inf.js';
import causalSoftmax from './s351-causal-softmax.js';
import dropoutOnes from './s352-dropout-ones.js';
import dropoutWeights from './s352-dropout-weights.js';
import dropoutBuilds from './s352-dropout-builds.js';
import batch from './s353-batch.js';
import causalAttention from './s353-causal-attention.js';
import wrapper from './s361-wrapper.js';
import ex32 from './s361-ex32-d-out-1.js';
import mhaSplit from './s362-mha-split.js';
import bmmExample from './s362-bmm-example.js';
import bmmPerHead from './s362-bmm-per-head.js';
import mhaWeights from './s362-mha-weights.js';
import mhaMerge from './s362-mha-merge.js';
import mhaOutput from './s362-mha-output.js';

export const STEPS = [
  // 3.3.1 attention over raw embeddings, for one query
  dotProduct, embeddings, scoresX2, normaliseBySum, softmaxNaive, softmaxTorch, contextZ2,
  // 3.3.2 every token as a query
  allScores, allWeights, rowSums, allContext,
  // 3.4.1 trainable weights, step by step
  qkvWeights, qkvX2, keysValues, score22, scoresQ2, scaledSoftmax, contextQ2,
  // 3.4.2 compact classes, Exercise 3.1
  selfAttentionV1, selfAttentionV2, ex31Weights, ex31Transfer,
  // 3.5.1 the causal mask
  causalWeights, causalTrilMask, causalMaskedWeights, causalRenormalise, causalMinusInf, causalSoftmax,
  // 3.5.2 dropout
  dropoutOnes, dropoutWeights, dropoutBuilds,
  // 3.5.3 a compact causal attention class
  batch, causalAttention,
  // 3.6.1 stacking heads, Exercise 3.2
  wrapper, ex32,
  // 3.6.2 weight splits
  mhaSplit, bmmExample, bmmPerHead, mhaWeights, mhaMerge, mhaOutput,
];

/** The results a step draws under `settings`, in order: its `show`, then its `biases` when qkv_bias is on. */
export const shownResults = (step, settings) => [...(step.show ?? []), ...(settings.qkv_bias ? step.biases ?? [] : [])];
