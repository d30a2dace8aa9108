// The chapter's Python, written from the settings. Each step's `code(settings)` (web/steps/) returns its lines
// with the live values in them; the step shows them (render/code.js) and the notebook's cells and the
// "Copy as PyTorch" scripts are put together from them (notebook/chapter-cells.js). A line is a string, or
//   printOf(result, expr)       `print(expr)`: prints one result the step shows (its `show` names it), so
//                               that every step's script prints that step's numbers;
//   printAlso(expr, comment)    `print(expr)` of something the step says in words (an allclose, a shape);
//   definition(name, lines)     a class several steps use: in full in a script or notebook where it is
//                               first needed, on a step in full only on its home step (a pointer elsewhere).

/** A number as typed: two decimals where that is exact, else JavaScript's shortest form (the same double). */
export const decimal = (v) => (Number(v.toFixed(2)) === v ? v.toFixed(2) : String(v));

/** A Python float literal: 0.5 -> '0.5', 1 -> '1.0'. */
export const pyFloat = (v) => (Number.isInteger(v) ? v.toFixed(1) : String(v));

/** The lines that make `inputs`: the typed rows, or the seeded draw. */
export function inputsLines(s) {
  if (s.inputs === 'rand' || s.inputs === 'randn') {
    return [`torch.manual_seed(${s.inputSeed})`, `inputs = torch.${s.inputs}(${s.tokens.length}, ${s.embeddings[0].length})`];
  }
  return ['inputs = torch.tensor([', ...s.embeddings.map((row, i) => `    [${row.map(decimal).join(', ')}],  # ${s.tokens[i]}`), '])'];
}

/** The modules' context_length argument: the book's batch.shape[1], or the number set. */
export const contextLengthArg = (s) => (s.context_length == null ? 'batch.shape[1]' : String(s.context_length));

/** `, qkv_bias=True` when the settings switch the biases on (the book leaves them off). */
export const biasArg = (s) => (s.qkv_bias ? ', qkv_bias=True' : '');

/** A line that prints the result `result` of the step: print(expr). */
export const printOf = (result, expr) => ({ print: expr, result });

/** A line that prints what the step says in words (an allclose, a shape), not one of its tensors. */
export const printAlso = (expr, comment) => ({ print: expr, result: null, comment });

/** A class used by several steps, written once at its home step. */
export const definition = (name, home, lines) => ({ definition: name, home, lines });

/** A step's lines for these settings (entries as above). */
export const stepLines = (step, settings) => (typeof step.code === 'function' ? step.code(settings) : step.code ?? []);

/** One entry as the lines of a program: prints as print(...), a definition in full. */
export function programLines(entry) {
  if (typeof entry === 'string') return [entry];
  if ('print' in entry) return [`print(${entry.print})${entry.comment ? `  # ${entry.comment}` : ''}`];
  return [...entry.lines, ''];
}
