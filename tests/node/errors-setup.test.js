// Misuses of what sets a session up (loadAttention, the generator's seed and profile, the print options) throw
// AttentionError with a message naming the call, the argument, what was expected and what was received, and
// leave the generator as it was.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { AttentionError, loadAttention } from '../../wasm/index.js';
import { loadBuilds, misuseTests, throwsAttention } from './support.mjs';

for (const [flavour, torch] of await loadBuilds()) {
  describe(`errors: loading, the generator and printing (${flavour})`, () => {
    const misuse = misuseTests(torch);

    // ------------------------------------------------------------ the generator
    misuse('manualSeed: above 2^64 - 1', {
      run: () => torch.manualSeed(2n ** 64n),
      message: /^manualSeed: seed must be in \[-2\^63, 2\^64 - 1\], got 18446744073709551616$/,
    });
    misuse('manualSeed: below -2^63', {
      run: () => torch.manualSeed(-(2n ** 63n) - 1n),
      message: /^manualSeed: seed must be in \[-2\^63, 2\^64 - 1\], got -9223372036854775809$/,
    });
    misuse('manualSeed: a string', {
      run: () => torch.manualSeed('123'),
      message: /^manualSeed: expected an integer or a BigInt seed, got string$/,
    });
    for (const bad of [1.5, NaN]) {
      misuse(`manualSeed(${bad})`, {
        run: () => torch.manualSeed(bad),
        message: [/^manualSeed: /, new RegExp(`got ${String(bad).replace('.', '\\.')}`)],
      });
    }
    misuse("setRngProfile('intel')", {
      run: () => torch.setRngProfile('intel'),
      message: /^setRngProfile: profile must be 'default' or 'mkl', got 'intel'$/,
    });
    misuse('setRngProfile(3)', {
      run: () => torch.setRngProfile(3),
      message: /^setRngProfile: profile must be 'default' or 'mkl', got 3$/,
    });
    test('the generator is untouched by a refused seed', () => {
      torch.manualSeed(42);
      throwsAttention(() => torch.manualSeed(2n ** 64n), /^manualSeed/);
      assert.equal(torch.initialSeed(), 42n);
      assert.equal(torch.getRngProfile(), 'default');
      throwsAttention(() => torch.setRngProfile('intel'));
      assert.equal(torch.getRngProfile(), 'default');
    });
    // ------------------------------------------------------------ print options
    misuse('setPrintOptions(3)', {
      run: () => torch.setPrintOptions(3),
      message: /^setPrintOptions: expected an options object, got 3$/,
    });
    misuse("setPrintOptions({ precision: 'x' })", {
      run: () => torch.setPrintOptions({ precision: 'x' }),
      message: /^setPrintOptions: precision must be a number, got string$/,
    });
    misuse('setPrintOptions({ precision: 1.5 })', {
      run: () => torch.setPrintOptions({ precision: 1.5 }),
      message: [/^setPrintOptions: /, /precision/, /1\.5/],
    });
    // ------------------------------------------------------------ loading
    test('loadAttention with an unknown flavour rejects with an AttentionError', async () => {
      await assert.rejects(loadAttention({ flavour: 'avx' }), (e) => {
        assert.ok(e instanceof AttentionError);
        assert.match(e.message, /^loadAttention: flavour must be 'simd', 'simd-threads' or 'scalar', got 'avx'$/);
        return true;
      });
    });
  });
}
