// "What my machine printed" under a notebook cell: the learner pastes their own output; each run of the cell
// compares its output with it line by line (diagnose/lines.js), marks the numbers that differ and, where they
// differ, re-runs the notebook's cells up to this one under the other PyTorch build's dropout masks to say
// whether those explain it.
import { loadNotebook } from '../../notebook/index.js';
import { compareOutputs } from '../../diagnose/lines.js';
import './printed.css';

const BUILD = {
  default: 'the default PyTorch build (pip on Linux or macOS, or any build on an AMD CPU)',
  mkl: 'an Intel MKL build on an Intel CPU (the official pip or conda packages on Windows or Linux)',
};

let fieldCount = 0;

const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

/** The field under a code cell; its text is the cell's `printed` (kept with the notebook, filled from .ipynb outputs). */
export function printedField(cell, changed) {
  const id = `nb-printed-${++fieldCount}`;
  const area = el('textarea', { id, class: 'nb-printed-field', rows: '4', spellcheck: 'false', autocomplete: 'off' });
  area.value = cell.printed ?? '';
  area.addEventListener('input', () => {
    cell.printed = area.value === '' ? undefined : area.value;
    changed();
  });
  cell.printedResult = el('div', { class: 'nb-printed-result', 'aria-live': 'polite' });
  const box = el(
    'details',
    { class: 'nb-printed' },
    el('summary', {}, 'What my machine printed'),
    el('label', { for: id }, 'Paste what this cell printed on your machine; running the cell compares it line by line.'),
    area,
  );
  if (cell.printed) box.open = true;
  return [box, cell.printedResult];
}

/**
 * After a run: compares `output` with the cell's printed text and, where they differ, tries the other build.
 * `sources` are the code of the notebook's code cells up to and with this one; `profile` the build in use.
 */
export async function comparePrinted(cell, output, { sources, profile }) {
  const box = cell.printedResult;
  if (!box) return;
  if (!cell.printed?.trim()) {
    box.replaceChildren();
    return;
  }
  const here = compareOutputs(output, cell.printed);
  if (here.same) {
    box.replaceChildren(el('p', { class: 'nb-printed-same' }, 'Same as what your machine printed, line by line.'));
    return;
  }
  const other = profile === 'mkl' ? 'default' : 'mkl';
  const status = el('p', { class: 'nb-printed-status' }, `Trying the dropout masks of ${BUILD[other]}: running cells 1 to ${sources.length} again…`);
  box.replaceChildren(
    el('p', {}, `${here.differing} number${here.differing === 1 ? '' : 's'} of what your machine printed differ from this run (marked):`),
    renderLines(here.lines),
    status,
  );
  status.replaceChildren(await otherBuild(sources, cell.printed, profile, other));
}

async function otherBuild(sources, printed, profile, other) {
  let nb = null;
  try {
    nb = await loadNotebook({ profile: other });
    let last = null;
    for (const code of sources) {
      last = await nb.run(code);
      if (last.error) return `Under ${BUILD[other]} a cell stops with ${last.error.type} (line ${last.error.line}), so the other build’s masks could not be tried.`;
    }
    if (compareOutputs(last.output, printed).same) {
      return `The other build’s dropout masks explain it: your machine prints exactly this under ${BUILD[other]}, where the same seed draws other masks. Choose that build under “PyTorch build” above to run as your machine does.`;
    }
    return `Not the other build’s masks either: under ${BUILD[other]} this cell prints other numbers too. Tried: this notebook as it is (${BUILD[profile]}) and under ${BUILD[other]}; the differences are in the code or its inputs (a seed, the order cells ran in, a size).`;
  } catch (error) {
    return `The other build could not be tried: ${error.message}`;
  } finally {
    await nb?.close();
  }
}

function renderLines(lines) {
  const pre = el('pre', { class: 'nb-printed-lines' });
  for (const line of lines) {
    const row = el('span', { class: line.differs ? 'is-different' : 'is-same' });
    for (const p of line.parts) row.append(p.differs ? el('mark', {}, p.text) : p.text);
    if (line.differs && line.ours !== null && !line.parts.some((p) => p.number && p.differs)) row.append(`   ← here: ${line.ours}`);
    pre.append(row, '\n');
  }
  return pre;
}
