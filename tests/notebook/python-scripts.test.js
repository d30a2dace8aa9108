// "Copy as PyTorch": every step's own script (web/notebook/chapter-cells.js scriptForStep, also the step's
// data-python attribute), run by PyTorch itself (Debian's python3-torch 1.13, /usr/bin/python3), prints every
// result the step shows, in the page's order and as the page shows it, under the book's settings and others.
// One Python process per settings runs the 41 scripts one after another, each in a namespace of its own and
// after a manual_seed of its own, so a draw that a script does not seed itself cannot give the page's numbers.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { STEPS } from '../../web/steps/index.js';
import { scriptForStep } from '../../web/notebook/chapter-cells.js';
import { SETTINGS, assertPrintsInOrder, printedResults } from './chapter-settings.mjs';

const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
const noTorch = probe.status === 0 ? false : `PyTorch is not installed for ${PYTHON} (apt-get install python3-torch to run this)`;

// Runs each script of a JSON list as its own program: [{ stdout, error }].
const RUNNER = String.raw`
import contextlib, io, json, sys, traceback
import torch
runs = []
for i, script in enumerate(json.load(sys.stdin)):
    torch.manual_seed(1_000_003 + i)
    out = io.StringIO()
    error = None
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(script, f'<step {i + 1}>', 'exec'), {'__name__': '__main__'})
    except Exception:
        error = traceback.format_exc()
    runs.append({'stdout': out.getvalue(), 'error': error})
print(json.dumps(runs))
`;

test('each step prints what it shows, in the order the page shows it', () => {
  for (const settings of Object.values(SETTINGS)) {
    for (const step of STEPS) {
      const printed = printedResults(step, settings);
      const expected = step.printsOneOf
        ? step.show.filter((name) => !step.printsOneOf.includes(name) || printed.includes(name))
        : step.show;
      assert.deepEqual(printed, expected, `${step.id}: prints ${printed.join(', ')}; shows ${step.show.join(', ')}`);
      if (step.printsOneOf) assert.equal(printed.filter((n) => step.printsOneOf.includes(n)).length, 1, step.id);
    }
  }
});

describe('each step’s script, run by PyTorch', { skip: noTorch }, () => {
  let torch;
  before(async () => { torch = await loadAttention(); });

  for (const [label, settings] of Object.entries(SETTINGS)) {
    describe(`${label} settings`, () => {
      // PyTorch here is a default (non-MKL) build: it prints the default build's dropout masks whatever the
      // profile, so the numbers its scripts print are the page's under the default profile.
      const oracle = { ...settings, profile: 'default' };
      const scripts = STEPS.map((step) => scriptForStep(step.id, settings));
      let runs, results;
      before(() => {
        const run = spawnSync(PYTHON, ['-c', RUNNER], { input: JSON.stringify(scripts), encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 });
        assert.equal(run.status, 0, run.stderr);
        runs = JSON.parse(run.stdout);
        results = computeChapter(torch, oracle);
      });
      STEPS.forEach((step, i) => {
        test(step.id, () => {
          assert.equal(runs[i].error, null, `${step.id}'s script failed:\n${runs[i].error}\n${scripts[i]}`);
          assert.match(scripts[i], new RegExp(`^# Chapter 3, step ${i + 1} of ${STEPS.length} \\(${step.section}\\)`));
          if (settings.profile === 'mkl') assert.match(scripts[i], /Intel-MKL build/);
          const found = assertPrintsInOrder(torch, runs[i].stdout, step, oracle, results);
          assert.ok(found >= 1, `${step.id} prints nothing it shows`);
        });
      });
    });
  }
});
