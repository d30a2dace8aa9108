// Python text written from the settings, shared by the code shown on the steps (render/code.js) and the
// scripts and notebook cells (notebook/chapter-cells.js), so that both make the numbers the page shows.
import { queryIndex } from './state.js';

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

/** `inputs[1]` for the query token of 3.3.1 and 3.4.1, `inputs[0]` when there is one word. */
export const queryRow = (s) => `inputs[${queryIndex(s)}]`;

/** The modules' context_length argument: the book's batch.shape[1], or the number set. */
export const contextLengthArg = (s) => (s.context_length == null ? 'batch.shape[1]' : String(s.context_length));
