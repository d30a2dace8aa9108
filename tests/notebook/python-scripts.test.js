// "Copy as PyTorch": every step's own script (web/notebook/chapter-cells.js scriptForStep, also the step's
// data-python attribute), run by PyTorch itself (Debian's python3-torch 1.13, /usr/bin/python3), prints every
// result the step shows, in the page's order and as the page shows it, under the book's settings and others.
// One Python process (importing torch takes seconds) runs every settings' scripts one after another, each in
// a namespace of its own and after a manual_seed of its own, so a draw that a script does not seed itself
// cannot give the page's numbers.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { STEPS, shownResults } from '../../web/steps/index.js';
import { scriptForStep } from '../../web/notebook/chapter-cells.js';
import { SETTINGS, assertPrintsInOrder, printedResults } from './chapter-settings.mjs';

const PYTHON = '/usr/bin/python3';
// whether torch is there, without importing it (which takes seconds)
const probe = spawnSync(PYTHON, ['-c', "import importlib.util, sys; sys.exit(importlib.util.find_spec('torch') is None)"]);
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
            exec(compile(script, f'<script {i + 1}>', 'exec'), {'__name__': '__main__'})
    except Exception:
        error = traceback.format_exc()
    runs.append({'stdout': out.getvalue(), 'error': error})
print(json.dumps(runs))
`;

test('each step prints what it draws (its show list, and its biases with qkv_bias), in the order it draws them', () => {
  for (const settings of Object.values(SETTINGS)) {
    for (const step of STEPS) {
      const printed = printedResults(step, settings);
      const shown = shownResults(step, settings);
      const expected = step.printsOneOf ? shown.filter((name) => !step.printsOneOf.includes(name) || printed.includes(name)) : shown;
      assert.deepEqual(printed, expected, `${step.id}: prints ${printed.join(', ')}; draws ${shown.join(', ')}`);
      if (step.printsOneOf) assert.equal(printed.filter((n) => step.printsOneOf.includes(n)).length, 1, step.id);
    }
  }
});

describe('each step’s script, run by PyTorch', { skip: noTorch }, () => {
  const scripts = Object.values(SETTINGS).map((settings) => STEPS.map((step) => scriptForStep(step.id, settings)));
  let torch, runs;
  before(async () => {
    torch = await loadAttention();
    const run = spawnSync(PYTHON, ['-c', RUNNER], { input: JSON.stringify(scripts.flat()), encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 26 });
    assert.equal(run.status, 0, run.stderr);
    runs = JSON.parse(run.stdout);
  });

  Object.entries(SETTINGS).forEach(([label, settings], k) => {
    describe(`${label} settings`, () => {
      // PyTorch here is a default (non-MKL) build: it prints the default build's dropout masks whatever the
      // profile, so the numbers its scripts print are the page's under the default profile.
      const oracle = { ...settings, profile: 'default' };
      let results;
      before(() => { results = computeChapter(torch, oracle); });
      STEPS.forEach((step, i) => {
        test(step.id, () => {
          const script = scripts[k][i];
          const { stdout, error } = runs[k * STEPS.length + i];
          assert.equal(error, null, `${step.id}'s script failed:\n${error}\n${script}`);
          assert.match(script, new RegExp(`^# Chapter 3, step ${i + 1} of ${STEPS.length} \\(${step.section}\\)`));
          if (settings.profile === 'mkl') assert.match(script, /Intel-MKL build/);
          const found = assertPrintsInOrder(torch, stdout, step, oracle, results);
          assert.equal(found, shownResults(step, settings).length - (step.printsOneOf ? step.printsOneOf.length - 1 : 0),
            `${step.id} prints ${found} of the tensors it draws`);
        });
      });
    });
  });
});
