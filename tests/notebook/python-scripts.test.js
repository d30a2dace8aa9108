// "Copy as PyTorch": each step's script (web/notebook/chapter-cells.js scriptForStep, also the step's data-python
// attribute) run by PyTorch itself (Debian's python3-torch 1.13, /usr/bin/python3) prints the numbers the page
// shows, under the book's settings and others. Each step's script is the first part of the last step's, so
// running that one script per setting runs every step's lines in order.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';

import { loadAttention } from '../../wasm/index.js';
import { computeChapter } from '../../web/chapter/index.js';
import { STEPS } from '../../web/steps/index.js';
import { scriptForStep } from '../../web/notebook/chapter-cells.js';
import { SETTINGS, SHOWN, printedByPage } from './chapter-settings.mjs';

const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' });
const noTorch = probe.status === 0 ? false : `PyTorch is not installed for ${PYTHON} (apt-get install python3-torch to run this)`;

const body = (script) => script.slice(script.indexOf('\n\n') + 2); // without the header comment

describe('each step’s script, run by PyTorch', { skip: noTorch }, () => {
  let torch;
  before(async () => { torch = await loadAttention(); });

  for (const [label, settings] of Object.entries(SETTINGS)) {
    test(`${label} settings`, () => {
      const last = scriptForStep(STEPS[STEPS.length - 1].id, settings);
      for (const step of STEPS) {
        assert.ok(body(last).startsWith(body(scriptForStep(step.id, settings))), `${step.id}: not a first part`);
      }
      const run = spawnSync(PYTHON, ['-'], { input: last, encoding: 'utf8', timeout: 120_000 });
      assert.equal(run.status, 0, run.stderr);
      const results = computeChapter(torch, settings);
      let checked = 0;
      for (const [step, names] of Object.entries(SHOWN)) {
        for (const name of names) {
          if (!results[name]) continue; // not computed with these settings (e.g. d_out not a multiple of heads)
          const printed = printedByPage(torch, results[name]);
          assert.ok(run.stdout.includes(printed), `${step}: ${name} as the page shows it\n${printed}\nis not printed by PyTorch`);
          checked++;
        }
      }
      assert.ok(checked >= 15, `only ${checked} results checked`);
    });
  }
});
