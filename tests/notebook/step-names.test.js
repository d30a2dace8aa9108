// The page and the notebook agree: every name a step's code defines (an assignment, a class, an import) exists
// in the notebook after its cells up to that step have run, and holds the same value as after the step's own
// "Copy as PyTorch" script (the lines the page shows, as one program): tensors to the last bit, with their shape.
// Each script runs from a fresh start made without restarting Python (see FRESH_START): a restart imports
// torch anew, which took more of the 82 scripts' time than the scripts themselves.
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

// A fresh start for each step's script, in the same Python: everything a restart resets that a script can
// change is put back explicitly, torch kept imported (importing it again is what makes a restart slow):
// - module-level names: the namespace is emptied to what a new notebook's holds (__name__, __builtins__);
// - the interpreter: the loaded modules, builtins, sys's attributes and path, the working directory and the
//   recursion limit, by the same cells.pristine() a restart uses, taken once torch is imported;
// - torch itself: every binding of its modules and every attribute of its classes, as imported (so grad mode,
//   _GradMode.enabled, is on again, and a function replaced by a script comes back);
// - print options: torch.set_printoptions(profile="default"), the core call a restart makes (sci_mode back
//   to automatic too);
// - the generator: a random seed from the test, as a restart seeds it, so that a script drawing numbers
//   before its own torch.manual_seed still fails;
// - the profile: set again by the test (nb.setProfile) before each script; a restart keeps it, but a script
//   can reach the core and change it;
// - the default dtype: this torch keeps float32 and refuses any other, so there is nothing to put back
//   (checked all the same).
// It lives in a module of its own, so that emptying the namespace leaves it in place.
const FRESH_START = `
import sys, types
fresh_start = types.ModuleType("__fresh_start__")
sys.modules[fresh_start.__name__] = fresh_start
exec(compile("""
import sys, types
import cells, torch, torch.nn

restore_interpreter = None
namespace_builtins = None
torch_modules = {n: m for n, m in sys.modules.items() if isinstance(m, types.ModuleType) and n.split(".")[0] == "torch"}
module_bindings = {m: dict(vars(m)) for m in torch_modules.values()}
class_attributes = {c: dict(vars(c)) for m in torch_modules.values() for c in vars(m).values()
                    if isinstance(c, type) and c.__module__.split(".")[0] == "torch"}
missing = object()

def reset(namespace, seed):
    stdio = sys.stdout, sys.stderr, sys.stdin  # the running cell's
    restore_interpreter()
    sys.stdout, sys.stderr, sys.stdin = stdio
    for module, bindings in module_bindings.items():
        vars(module).clear()
        vars(module).update(bindings)
    for cls, attributes in class_attributes.items():
        for name in [n for n in vars(cls) if n not in attributes]:
            delattr(cls, name)
        for name, value in attributes.items():
            if vars(cls).get(name, missing) is not value:
                setattr(cls, name, value)
    namespace.clear()
    namespace.update(__name__="__main__", __builtins__=namespace_builtins)
    torch.set_printoptions(profile="default")
    torch.manual_seed(seed)
    assert torch.get_default_dtype() is torch.float32 and torch.is_grad_enabled()
""", "<fresh start>", "exec"), vars(fresh_start))
fresh_start.namespace_builtins = globals()["__builtins__"]
fresh_start.restore_interpreter = fresh_start.cells.pristine()  # taken last: the module above is kept
del sys, types, fresh_start
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

/** Python as a restart leaves it, but for torch, already imported (FRESH_START, run once after a restart). */
async function freshStart(profile) {
  await nb.setProfile(profile);
  const seed = crypto.getRandomValues(new BigUint64Array(1))[0];
  await run(`__import__("sys").modules["__fresh_start__"].reset(globals(), ${seed})`);
}

test('the names are read from the step lines: step 41 defines mha and context_vecs', () => {
  const step = STEPS.find((s) => s.id === 'mha-output');
  assert.deepEqual(definedNames(step, SETTINGS["the book's"]), ['MultiHeadAttention', 'mha', 'context_vecs']);
});

test('a fresh start leaves nothing of the script before it', async () => {
  await nb.restart();
  await run(FRESH_START);
  await nb.setProfile('mkl');
  const seeded = await run(`import builtins, sys, colorsys, torch, torch.nn as nn
left = 1
torch.manual_seed(1)
print(torch.rand(4).tolist())
torch.set_printoptions(precision=1, sci_mode=True)
torch.no_grad().__enter__()
torch.tensor, torch.left, nn.Linear.forward, builtins.left = None, 1, None, 1
sys.path.append("/elsewhere")`);
  await freshStart('default');
  const after = await run(`print(sorted(globals()))
import builtins, sys, torch, torch.nn as nn
print(torch.rand(4).tolist())
print(torch.tensor([1.23456]))
print(torch.is_grad_enabled(), torch.backends.mkl.is_available(), nn.Linear.forward is None)
print([hasattr(m, "left") for m in (torch, builtins)], "/elsewhere" in sys.path, "colorsys" in sys.modules)`);
  const [names, drawn, ...rest] = after.trim().split('\n');
  assert.equal(names, "['__builtins__', '__name__']");
  assert.notEqual(drawn, seeded.trim(), 'the generator was not seeded afresh');
  assert.deepEqual(rest, ['tensor([1.2346])', 'True False False', '[False, False] False False']);
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
      await nb.restart();
      await run(FRESH_START);
    });
    STEPS.forEach((step, i) => {
      test(`step ${i + 1} (${step.id})`, async () => {
        const names = definedNames(step, settings);
        assert.doesNotMatch(inCells[i], /: missing$/m, `after the notebook's cells up to step ${i + 1}`);
        await freshStart(settings.profile);
        await run(scriptForStep(step.id, settings));
        assert.equal(inCells[i], await digest(names), `step ${i + 1}: the notebook's values differ from the step's script`);
        assert.equal(inCells[i].split('\n').filter(Boolean).length, names.length);
      });
    });
  });
}
