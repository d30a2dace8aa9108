// attention-lab/diagnose: why a learner's printout differs from the page's. diagnose({ printed, settings, step })
// finds the chapter results that print exactly as pasted under the settings plus the fewest changes
// (search.js), each change with a sentence and the line of code that differs.
import { loadAttention } from '../wasm/index.js';
import { STEPS } from '../web/steps/index.js';
import { bookSettings, decodeSettings, validateSettings, SETTINGS } from '../web/state.js';
import { parsePrinted, DiagnoseError } from './parse.js';
import { search, warmUp as warmSearch } from './search.js';

export { DiagnoseError, parsePrinted };

/** The page's settings from a link's parameters ('d_out=4&heads=2', with or without '#') or an object. */
export function settingsFrom(given) {
  if (given === undefined || given === null) return bookSettings();
  let settings;
  if (typeof given === 'string') {
    const { settings: read, dropped } = decodeSettings(new URLSearchParams(given.replace(/^[#?]/, '')));
    if (dropped.length) throw new DiagnoseError(`These settings could not be read: ${dropped.join(', ')}.`);
    const unknown = [...new URLSearchParams(given.replace(/^[#?]/, '')).keys()].filter(
      (k) => k !== 'step' && !Object.entries(SETTINGS).some(([key, s]) => (s.param ?? key) === k),
    );
    if (unknown.length) throw new DiagnoseError(`Unknown setting${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`);
    settings = read;
  } else if (typeof given === 'object') {
    const unknown = Object.keys(given).filter((k) => !(k in SETTINGS));
    if (unknown.length) throw new DiagnoseError(`Unknown setting${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`);
    settings = { ...bookSettings(), ...structuredClone(given) };
    if (given.tokens && !given.embeddings) settings.embeddings = settings.tokens.map((_, i) => bookSettings().embeddings[i] ?? Array(3).fill(0));
  } else throw new DiagnoseError('settings must be a link’s parameters (a string) or an object of the page’s settings.');
  const problems = Object.values(validateSettings(settings));
  if (problems.length) throw new DiagnoseError(problems.join(' '));
  return settings;
}

let torchPromise = null;

/**
 * @param {{ printed: string, settings?: string | object, step?: string }} request
 * @returns {Promise<{ exact: object[], nearest: object | null }>}
 */
export async function diagnose({ printed, settings, step } = {}) {
  const paste = parsePrinted(printed);
  const used = settingsFrom(settings);
  if (step !== undefined && step !== null && !STEPS.some((s) => s.id === step)) {
    throw new DiagnoseError(`There is no step “${String(step).slice(0, 40)}”; the steps are ${STEPS.map((s) => s.id).join(', ')}.`);
  }
  const torch = await (torchPromise ??= loadAttention());
  try {
    return await search(torch, used, paste, { step: step ?? null });
  } catch (error) {
    // the learner's own settings do not run (heads that do not divide d_out, ...): the core's message says why
    if (error?.name === 'AttentionError') throw new DiagnoseError(`These settings do not run in the chapter’s classes: ${error.message}`);
    throw error;
  }
}

/**
 * Readies the search before the first diagnose(): loads the core and runs a short search whose answer is dropped,
 * so that the first paste finds the code compiled. It changes no answer. `stillWanted` is asked between its stages;
 * false ends it there (a search is waiting). Settings it cannot run are left for diagnose() to report.
 * @param {{ settings?: string | object, stillWanted?: () => boolean }} options
 */
export async function warmUp({ settings, stillWanted = () => true } = {}) {
  const torch = await (torchPromise ??= loadAttention());
  if (!stillWanted()) return;
  try {
    await warmSearch(torch, settingsFrom(settings), { stillWanted });
  } catch {
    // (diagnose() says what is wrong with these settings when it is asked)
  }
}
