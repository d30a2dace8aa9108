// Misuses of creation (torch.tensor, zeros, ones, rand, randn, empty, stack, cat) throw AttentionError with a
// message naming the operation, the argument, what was expected and what was received (support.mjs's
// misuseTests); a tensor over the size limit is refused before anything is allocated or drawn.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadBuilds, misuseTests, throwsAttention } from './support.mjs';

for (const [flavour, torch] of await loadBuilds()) {
  describe(`errors: creation (${flavour})`, () => {
    const misuse = misuseTests(torch);

    // ------------------------------------------------------------ sizes that are not non-negative integers
    for (const [label, make, op, position, shown] of [
      ["zeros('a')", () => torch.zeros('a'), 'zeros', 0, "'a'"],
      ['ones(NaN)', () => torch.ones(2, NaN), 'ones', 1, 'NaN'],
      ['rand(2.5)', () => torch.rand(2.5), 'rand', 0, '2\\.5'],
      ['empty(undefined)', () => torch.empty(undefined), 'empty', 0, 'undefined'],
      ['zeros([2, Infinity])', () => torch.zeros([2, Infinity]), 'zeros', 1, 'Infinity'],
    ]) {
      misuse(`size: ${label}`, {
        run: make,
        message: new RegExp(`^${op}: size at position ${position} must be a non-negative integer, got ${shown}$`),
      });
    }
    misuse('size: randn(-1)', { // a value rule: the core's
      run: () => torch.randn(-1),
      message: /^randn: sizes must be non-negative, got \[-1\]$/,
    });

    // ------------------------------------------------------------ nested arrays
    misuse('tensor: ragged rows', {
      run: () => torch.tensor([[1, 2], [3]]),
      message: /^tensor: nested arrays are ragged: expected length 2 at \[1\], got length 1$/,
    });
    misuse('tensor: a number where a row should be', {
      run: () => torch.tensor([[1, 2], 3]),
      message: /^tensor: nested arrays are ragged: expected length 2 at \[1\], got 3$/,
    });
    misuse('tensor: ragged deeper down', {
      run: () => torch.tensor([[[1], [2]], [[3], [4, 5]]]),
      message: /^tensor: nested arrays are ragged: expected length 1 at \[1\]\[1\], got length 2$/,
    });
    misuse('tensor: a string element', {
      run: () => torch.tensor([[1, 2], [3, 'a']]),
      message: /^tensor: element \[1\]\[1\] must be a number, a BigInt or a boolean, got 'a'$/,
    });
    misuse('tensor: numbers mixed with booleans', {
      run: () => torch.tensor([true, 1]),
      message: /^tensor: numbers and booleans cannot be mixed$/,
    });
    // ------------------------------------------------------------ lists of tensors
    misuse('stack: shapes differ', {
      run: () => torch.stack([torch.ones(2), torch.ones(3)]),
      message: /^stack expects each tensor to be equal size, but got \[2\] at entry 0 and \[3\] at entry 1$/,
    });
    misuse('cat: shapes differ off the cat dim', {
      run: () => torch.cat([torch.ones(2, 2), torch.ones(3, 3)]),
      message: /^Sizes of tensors must match except in dimension 0\. Expected size 2 but got size 3 for tensor number 1 in the list\.$/,
    });
    misuse('stack: an empty list', {
      run: () => torch.stack([]),
      message: /^stack: expected a non-empty array of tensors/,
    });
    misuse('cat: dim out of range', {
      run: () => torch.cat([torch.ones(2, 2), torch.ones(2, 2)], 2),
      message: /^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$/,
    });
    misuse('stack: dim out of range', {
      run: () => torch.stack([torch.ones(2, 2), torch.ones(2, 2)], -4),
      message: /^Dimension out of range \(expected to be in range of \[-3, 2\], but got -4\)$/,
    });
    // ------------------------------------------------------------ over the tensor size limit
    misuse('zeros over the 1 GiB tensor limit', {
      run: () => torch.zeros(2 ** 15, 2 ** 15),
      message: /^zeros: shape \[32768,32768\] is too large: one tensor may hold at most 268435456 elements \(1024 MiB\)$/,
    });
    misuse('rand over the tensor limit (nothing drawn)', {
      setup: () => torch.manualSeed(5),
      run: () => torch.rand(2 ** 29),
      message: [/^rand: shape \[536870912\] is too large/, /268435456 elements/],
    });
    test('a refused rand draws nothing', () => {
      torch.manualSeed(5);
      throwsAttention(() => torch.randn(2 ** 20, 2 ** 10), /too large/);
      assert.equal(torch.rngDraws(), 0);
    });
  });
}
