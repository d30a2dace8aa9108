// The walk-through as Python, put together from the steps' own lines (each step's code(settings), web/steps/):
// the notebook's cells (one per step, "Run this code yourself") and each step's "Copy as PyTorch" script.
// Both make, and print, the numbers the page shows under the same settings.
import { STEPS } from '../steps/index.js';
import { resolveStep } from '../steps/words.js';
import { changedValues } from '../state.js';
import { programLines, stepLines } from '../python.js';

const IMPORTS = ['import torch', 'import torch.nn as nn'];

/**
 * The chapter's program from its first step up to `last`, one block of lines per step: a comment naming the
 * step, then its lines. A class several steps use is written where it is first needed. `prints(step)` says
 * whether the step's print lines are kept.
 */
function program(settings, last, prints) {
  const defined = new Set();
  const blocks = [];
  for (const step of STEPS.slice(0, last + 1)) {
    const { title } = resolveStep(step, settings);
    const lines = [`# ${step.section} ${title}`];
    for (const entry of stepLines(step, settings)) {
      if (entry.print && !prints(step)) continue;
      if (entry.definition && defined.has(entry.definition)) continue;
      if (entry.definition) defined.add(entry.definition);
      lines.push(...programLines(entry));
    }
    while (lines.at(-1) === '') lines.pop();
    blocks.push({ step: step.id, lines: lines.length > 1 ? lines : [] }); // a step with nothing left to run adds nothing
  }
  blocks[0].lines.unshift(...IMPORTS, '');
  return blocks;
}

const indexOf = (stepId) => {
  const i = STEPS.findIndex((s) => s.id === stepId);
  if (i < 0) throw new Error(`no step named ${stepId}`);
  return i;
};

/** The notebook's cells under `settings`: [{ step, code }], one per step, each printing what its step shows. */
export function chapterCells(settings) {
  return program(settings, STEPS.length - 1, () => true).map(({ step, lines }) => ({ step, code: lines }));
}

/** The cells a step's "Run this code yourself" opens: the chapter's, up to the step's own. */
export function cellsForStep(stepId, settings) {
  return program(settings, indexOf(stepId), () => true).map(({ lines }) => lines.join('\n'));
}

/**
 * A step's "Copy as PyTorch" script: the chapter's lines up to the step, printing only what this step shows
 * (in the order the page shows it). Run with PyTorch, it prints the step's numbers.
 */
export function scriptForStep(stepId, settings) {
  const last = indexOf(stepId);
  const step = STEPS[last];
  const header = [
    `# Chapter 3, step ${last + 1} of ${STEPS.length} (${step.section}): ${resolveStep(step, settings).title}`,
    `# Settings: ${changedValues(settings).length ? `the book's, except ${changedValues(settings).join('; ')}` : "the book's"}.`,
    '# Run it with PyTorch (CPU): it prints the numbers this step shows, in the same order.',
  ];
  if (settings.profile === 'mkl') {
    header.push('# The page shows the dropout masks of an Intel-MKL build (PyTorch 1.13 on an Intel CPU); other builds draw other masks.');
  }
  const blocks = program(settings, last, (s) => s === step);
  const body = blocks.filter(({ lines }) => lines.length).map(({ lines }) => lines.join('\n'));
  return `${header.join('\n')}\n\n${body.join('\n\n')}\n`;
}
