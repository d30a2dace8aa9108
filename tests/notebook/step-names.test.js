// The page and the notebook agree: every name a step's code defines (an assignment, a class, an import) exists
// in the notebook after its cells up to that step have run, and holds the same value as after the step's own
// "Copy as PyTorch" script (the lines the page shows, as one program): tensors to the last bit, with their shape.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadNotebook } from '../../notebook/index.js';
import { STEPS } from '../../web/steps/index.js';
import { stepLines } from '../../web/python.js';
import { chapterCells, scriptForStep } from '../../web/notebook/chapter-cells.js';

import { SETTINGS } from './chapter-settings.mjs';

/** The top-level names a step's lines define, in order: `a = …`, `a, b, _ = …`, `class A`, `def f`, `import x as y`. */
export function definedNames(step, settings) {
  const names = [];
  for (const entry of stepLines(step, settings)) {
    if (entry.definition) names.push(entry.definition);
    if (typeof entry !== 'string') continue;
    const assigned = /^([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)\s*=(?!=)/.exec(entry);
    const defined = /^(?:class|def)\s+([A-Za-z_]\w*)/.exec(entry);
    const imported = /^import\s+[\w.]+(?:\s+as\s+(\w+))?$/.exec(entry);
    if (assigned) names.push(...assigned[1].split(',').map((n) => n.trim()));
    else if (defined) names.push(defined[1]);
    else if (imported) names.push(imported[1] ?? entry.split(/\s+/)[1].split('.')[0]);
  }
  return [...new Set(names.filter((n) => n !== '_'))];
}

// Each name's value as one line of text: a tensor's shape and every float (Python's repr, exact), a number
// or string as itself, anything else (a module, a class) by its type. Defined in the namespace under a name
// no step uses.
const DIGEST = `
def __digest__(names):
    out = []
    for n in names:
        if n not in globals():
            out.append(f"{n}: missing")
            continue
        v = globals()[n]
        if hasattr(v, "tolist") and hasattr(v, "shape"):
            out.append(f"{n}: tensor {list(v.shape)} {v.tolist()!r}")
        elif isinstance(v, (int, float, str, bool)):
            out.append(f"{n}: {v!r}")
        else:
            out.append(f"{n}: {type(v).__name__}")
    print("\\n".join(out))
`;

let nb;
before(async () => { nb = await loadNotebook(); });
after(() => nb?.close());

async function run(code) {
  const { output, error } = await nb.run(code);
  assert.equal(error, null, error?.traceback);
  return output;
}
const digest = async (names) => (names.length ? run(`${DIGEST}\n__digest__(${JSON.stringify(names)})`) : '');

test('the names are read from the step lines: step 41 defines mha and context_vecs', () => {
  const step = STEPS.find((s) => s.id === 'mha-output');
  assert.deepEqual(definedNames(step, SETTINGS["the book's"]), ['MultiHeadAttention', 'mha', 'context_vecs']);
});

// The book's settings and one far from them (other sizes, biases, heads, dropout): enough to catch a name the
// notebook's cells leave out; steps.test.js checks what every cell prints under all eight.
for (const label of ["the book's", Object.keys(SETTINGS)[1]]) {
  const settings = SETTINGS[label];
  describe(`every name a step defines, under ${label} settings`, () => {
    const inCells = []; // the digest after the notebook's cells up to each step
    before(async () => {
      await nb.restart();
      await nb.setProfile(settings.profile);
      for (const [i, cell] of chapterCells(settings).entries()) {
        await run(cell.code.join('\n'));
        inCells.push(await digest(definedNames(STEPS[i], settings)));
      }
    });
    STEPS.forEach((step, i) => {
      test(`step ${i + 1} (${step.id})`, async () => {
        const names = definedNames(step, settings);
        assert.doesNotMatch(inCells[i], /: missing$/m, `after the notebook's cells up to step ${i + 1}`);
        await nb.restart();
        await run(scriptForStep(step.id, settings));
        assert.equal(inCells[i], await digest(names), `step ${i + 1}: the notebook's values differ from the step's script`);
        assert.equal(inCells[i].split('\n').filter(Boolean).length, names.length);
      });
    });
  });
}
