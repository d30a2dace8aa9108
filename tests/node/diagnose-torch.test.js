// attention-lab/diagnose against what Debian's PyTorch 1.13 printed for the chapter's code run with one known
// change (tests/golden/gen_diagnose.py): a seed, draws, a mistake (inside each class too), a setting (training
// mode too), or none (one copy of the batch, one head's columns, two decimals). The change must be named first.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { diagnose } from '../../diagnose/index.js';
import golden from '../golden/diagnose.json' with { type: 'json' };

for (const { id, step, printed, change, settings } of golden.cases) {
  test(`${id}: ${change ? `${change.kind} ${change.name} → ${change.to}` : 'no change'}`, async () => {
    const { exact } = await diagnose({ printed, ...(step ? { step } : {}), ...(settings ? { settings } : {}) });
    assert.ok(exact.length > 0, 'an exact answer');
    const named = exact[0].changes.map(({ kind, name, to }) => ({ kind, name, to }));
    assert.deepEqual(named, change ? [change] : []);
    assert.equal(exact[0].cells.equal, exact[0].cells.total);
  });
}
