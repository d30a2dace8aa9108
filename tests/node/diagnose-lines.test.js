// A notebook cell's output against what the learner's machine printed (diagnose/lines.js): the same text is the
// same; a number that differs is marked on its own, at its place; a line of other text is marked whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { compareOutputs } from '../../diagnose/lines.js';

const OURS = 'tensor([[2., 2., 0., 2., 2., 0.],\n        [0., 0., 0., 2., 0., 2.]])\nJourney -> word 1: 0.2379\n';

test('the same printout, with other trailing spaces and line ends, is the same', () => {
  const result = compareOutputs(OURS, OURS.replace(/\n/g, '  \r\n'));
  assert.deepEqual([result.same, result.differing], [true, 0]);
});

test('each differing number is marked at its place, the rest of the line is not', () => {
  const yours = OURS.replace('[2., 2., 0., 2., 2., 0.]', '[2., 2., 2., 2., 2., 2.]');
  const result = compareOutputs(OURS, yours);
  assert.equal(result.same, false);
  assert.equal(result.differing, 2);
  const marked = result.lines[0].parts.filter((p) => p.differs).map((p) => p.text);
  assert.deepEqual(marked, ['2.', '2.']);
  assert.deepEqual(result.lines.map((l) => l.differs), [true, false, false]);
  assert.equal(result.lines[0].parts.map((p) => p.text).join(''), yours.split('\n')[0]);
});

test('a line with other text, or a line more or less, is marked whole and names what was printed here', () => {
  const result = compareOutputs(OURS, 'tensor([[2., 2., 0., 2., 2., 0.],\n        [0., 0., 0., 2., 0., 2.]])\nJourney -> token 1: 0.2379\nextra');
  assert.deepEqual(result.lines.map((l) => l.differs), [false, false, true, true]);
  assert.equal(result.lines[2].ours, 'Journey -> word 1: 0.2379');
  assert.equal(result.lines[3].ours, null);
  assert.ok(result.lines[3].parts.every((p) => p.differs));
});
