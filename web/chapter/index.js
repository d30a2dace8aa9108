// Every computation of chapter 3, in the chapter's order and with its seeds, from the page's settings:
// one module per section of the book, each computing its results with the take-apart explanations beside
// them. computeChapter() returns a map of named results; each step (web/steps/) shows some of them.
// A result is
//   { name, label, tensor, shape, values, book, rows, cols, axes, explain, operands, marks }
// where `book` is the chapter's printed text (used only with the book's settings), rows/cols label the
// last two axes with token words, `axes` (tensors of 3 or more dims) names every dim, e.g. ['batch',
// 'head', 'query', 'key'], explain(index) takes a cell apart, operands(index) names the cells of other
// results that went into it (web/operands.js), and marks(index) flags masked/dropped cells. explain() may
// run the chapter's modules, which a later computeChapter with other seeds or sizes deletes once it succeeds:
// take a result's cells apart before then.
// A few results are facts rather than tensors, { name, value }: causal_equal, scores_loop_equal,
// ex31_equal, bmm_heads_equal, mha_steps_equal (booleans from torch.allclose) and dropout_draws
// ({ default, mkl }: words each path drew); the exercises' checks ex31_try, ex32_try and ex33_try are
// functions that run a learner's answer through the core (chapter/exercises.js).
// Settings that a module rejects (heads that do not divide d_out,
// more words than context_length) throw the core's AttentionError, with error.settings naming them.
import { chapterContext } from './context.js';
import simpleAttention, { simpleAttentionQuery } from './s331-simple-attention.js';
import allTokens from './s332-all-tokens.js';
import trainableWeights from './s341-trainable-weights.js';
import attentionClasses from './s342-attention-classes.js';
import causalMask from './s351-causal-mask.js';
import dropout from './s352-dropout.js';
import causalAttention from './s353-causal-attention.js';
import stackingHeads from './s361-stacking-heads.js';
import weightSplits from './s362-weight-splits.js';
import exercises from './exercises.js';

// In the book's order: a section may use what an earlier one returned (inputs, the mask, ...), which is
// added to the context every section reads. 3.3.1 is two: the page's first step needs only the first.
export const SECTIONS = [simpleAttention, simpleAttentionQuery, allTokens, trainableWeights, attentionClasses, causalMask, dropout, causalAttention, stackingHeads, weightSplits, exercises];

export function computeChapter(torch, settings) {
  const chapter = chapterContext(torch, settings);
  for (const section of SECTIONS) Object.assign(chapter, section(chapter));
  chapter.done();
  return chapter.results;
}

/**
 * The chapter in two parts, so that a page can show one step before the whole chapter is computed: now, the
 * sections up to the one that makes the last of `first` (the results that step draws); finish() the rest,
 * returning the same results as computeChapter(). Until then `results` computes the rest on the first read
 * of a result it lacks, so that nothing drawn early can miss one; an error that reading meets is kept for
 * finish() to throw (the reader sees the result missing). The sections after `first` draw nothing without
 * a manual_seed of their own, so the parts give computeChapter()'s bits.
 */
export function startChapter(torch, settings, first) {
  const chapter = chapterContext(torch, settings);
  let next = 0;
  let failure = null;
  const finish = () => {
    if (failure) throw failure;
    try {
      for (; next < SECTIONS.length; next++) Object.assign(chapter, SECTIONS[next](chapter));
    } catch (error) {
      throw (failure = error);
    }
    chapter.done();
    return chapter.results;
  };
  for (; next < SECTIONS.length && !first.every((name) => name in chapter.results); next++) {
    Object.assign(chapter, SECTIONS[next](chapter));
  }
  const results = new Proxy(chapter.results, {
    get(target, name) {
      if (!(name in target) && next < SECTIONS.length && !failure && typeof name === 'string') {
        try {
          finish();
        } catch {
          // kept for finish()
        }
      }
      return target[name];
    },
  });
  return { results, finish };
}
