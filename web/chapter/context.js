// What every section of web/chapter/ works with: the torch API, the settings, the results so far and the
// helpers that record a result (show), keep modules between recomputes (keep) and build take-apart
// explanations. Each section returns what later sections use (inputs, the causal mask, the batch...), and
// computeChapter() adds it here.
import * as explain from '../explain.js';
import { BOOK_PRINTS } from '../book.js';

// The chapter's modules, with what they drew, kept from one recompute to the next while the settings their
// weights depend on stay the same (an edit of an embedding or a word): the same seeds would draw the same
// weights again. Skipping those draws changes no other number: every later draw in the chapter follows a
// manual_seed of its own, and these modules draw nothing in forward (no dropout, or dropout 0).
// When those settings change, the modules are replaced, and deleted once a recompute with the new ones has
// succeeded (until then the results shown, which take cells apart with them, are the old ones): the garbage
// collector does not see the wasm memory a module holds (64 MB for 16 heads with context_length 1024).
const kept = new WeakMap(); // torch -> { key, parts, modules, replaced: the modules of earlier settings }

// A kept part's modules: the part itself, or those among its fields.
const modulesIn = (torch, part) =>
  [part, ...(part?.constructor === Object ? Object.values(part) : [])].filter((v) => v instanceof torch.nn.Module);

function keeper(torch, settings) {
  const { seed, seedV2, d_out, heads, qkv_bias, embeddings, context_length } = settings;
  const key = JSON.stringify([seed, seedV2, d_out, heads, qkv_bias, context_length, embeddings.length, embeddings[0]?.length]);
  let entry = kept.get(torch);
  if (entry?.key !== key) {
    const replaced = entry ? [...entry.replaced, ...entry.modules] : [];
    kept.set(torch, (entry = { key, parts: new Map(), modules: [], replaced }));
  }
  return {
    // make() seeds and builds exactly as the chapter does at that point; it runs only when nothing is kept
    keep(name, make) {
      if (!entry.parts.has(name)) {
        const part = make();
        entry.parts.set(name, part);
        entry.modules.push(...modulesIn(torch, part));
      }
      return entry.parts.get(name);
    },
    deleteReplaced() {
      for (const module of entry.replaced.splice(0)) module.delete();
    },
  };
}

export function chapterContext(torch, settings) {
  const results = {};
  const { keep, deleteReplaced } = keeper(torch, settings);
  const chapter = { torch, settings, results, words: settings.tokens, keep };
  /** Once every section has succeeded: these results replace the last ones, so the modules only those used go. */
  chapter.done = deleteReplaced;

  /**
   * Records a result: show(name, tensor, { label, rows, cols, axes, marks, explain, operands }).
   * `explain` is made from the result's own values: explain(values) -> (index) -> lines, as the helpers of
   * explain.js are. `operands(index)` lists the cells of other results that went into a cell, as
   * [[sourceName, pattern], ...] (web/operands.js).
   */
  chapter.show = (name, tensor, { explain: explainOf, ...extra } = {}) => {
    const values = tensor.toArray();
    results[name] = {
      name,
      label: name,
      tensor,
      shape: tensor.shape,
      values,
      book: BOOK_PRINTS[name] ?? null,
      ...extra,
    };
    if (explainOf) results[name].explain = explainOf(values);
    return tensor;
  };
  /** A result that is a fact rather than a tensor, e.g. torch.allclose(...) -> True. */
  chapter.fact = (name, value) => (results[name] = { name, value });

  // Axis labels, made once per recompute and shared by the results that use them (nothing changes them).
  const labels = new Map();
  const labelled = (key, make) => labels.get(key) ?? labels.set(key, make()).get(key);
  chapter.dims = (n, prefix) => labelled(`${prefix}${n}`, () => Array.from({ length: n }, (_, i) => `${prefix}${i}`));
  chapter.features = (n) => chapter.dims(n, 'd');
  // columns that hold several heads side by side: h0·o0, h0·o1, h1·o0, ...
  chapter.headCols = (heads, width) =>
    labelled(`h${heads}·${width}`, () => Array.from({ length: heads * width }, (_, k) => `h${Math.floor(k / width)}·o${k % width}`));

  // An explain() whose operands are built on the first hover, not on every recompute.
  chapter.lazy = (make) => {
    let built = null;
    return (index) => (built ??= make())(index);
  };
  // The weights a module computes inside forward(), rebuilt with the same ops so its output can be taken
  // apart; a causal one needs the mask that 3.5.1 leaves (future).
  chapter.attend = (q, k, causal = false) => {
    const scores = q.matmul(k.transpose(-2, -1));
    return torch.softmax((causal ? scores.maskedFill(chapter.future, -Infinity) : scores).div(k.shape[k.ndim - 1] ** 0.5), -1);
  };
  chapter.projections = (m, x) => [m.W_query.forward(x), m.W_key.forward(x), m.W_value.forward(x)];
  // explain() for an nn.Linear's output.
  chapter.linearOf = (layer, x, name, what) => (out) =>
    chapter.lazy(() => explain.linear(x.toArray(), layer.weight.toArray(), layer.bias?.toArray() ?? null, out, { name, what }));
  // explain() for a module's output: each cell is a weighted sum of its value rows.
  chapter.contextOf = (parts, causal = false) => (out) =>
    chapter.lazy(() => {
      const [q, k, v] = parts();
      return explain.weightedSum(chapter.attend(q, k, causal).toArray(), v.toArray(), out);
    });
  // explain() for heads concatenated along the last dim: find the head, then take its cell apart.
  chapter.concatOf = (parts, width) => () => (index) => {
    const col = index[index.length - 1];
    const h = Math.floor(col / width);
    const lines = parts[h]([...index.slice(0, -1), col % width]);
    return explain.withUses([`column ${col} is column ${col % width} of head ${h}`, ...lines], lines.uses ?? []);
  };
  /**
   * Runs make(), which builds or runs a module; when the core rejects the settings (an AttentionError, e.g. too
   * many words for context_length), the error names the settings to blame, for the page to show it beside them.
   */
  chapter.rejectable = (keys, make) => {
    try {
      return make();
    } catch (error) {
      if (error?.name === 'AttentionError') error.settings = keys;
      throw error;
    }
  };
  /** The modules' context_length: the setting, or the book's batch.shape[1] (the number of words). */
  chapter.contextLength = () => settings.context_length ?? settings.tokens.length;
  return chapter;
}
