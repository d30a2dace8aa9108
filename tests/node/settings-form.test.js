// The settings form (web/render/settings.js) arranges the controls the schema (web/state.js SETTINGS) makes:
// every setting with a control of its own has one place in it, so that a setting added to the schema but not
// to the form is caught here rather than by a form that cannot read it.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { SETTINGS } from '../../web/state.js';
import { FIELDS, FORM_LAYOUT } from '../../web/render/settings.js';

test('every setting with a control stands once in the form, and nothing else does', () => {
  const placed = Object.values(FORM_LAYOUT).flat();
  assert.equal(new Set(placed).size, placed.length, `placed twice: ${placed.filter((k, i) => placed.indexOf(k) !== i)}`);
  assert.deepEqual([...placed].sort(), [...FIELDS].sort());
  assert.ok(FIELDS.length >= 10 && FIELDS.length < Object.keys(SETTINGS).length, 'the words and their numbers are the table’s');
});
