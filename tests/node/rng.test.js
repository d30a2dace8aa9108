// PyTorch's CPU generator through the JS API: the test vectors of shared/docs/torch-rng.md §10 bit for bit
// (float32 bits read through a Uint32Array view), both dropout profiles, BigInt and negative seeds,
// initialSeed, and the draw counts of §7.
import { describe, test, afterEach } from 'node:test';
import assert from 'node:assert/strict';

import { bitsOfFloat, hex, hexOf, loadBuilds } from './support.mjs';

// torch-rng.md §10, row by row ("uniform_" has no JS entry point: its vectors reach the API through
// nn.Linear, whose weights are uniform_ draws).
const VECTORS = [
  {
    seed: 0,
    raw3: '8c7f0aac 97c4aa2f b716a675',
    rand4: '3efe1558 3f44aa2f 3db533a8 3e073300',
    linearW0: 'bb755400 3e89545e bed2b316 bebc6680',
    linearB: 'bef491b8 bea98b52 be530ee8',
    randn5: '3fc53f5c be963c50 c00b7149 3f1184b6',
    randn17: 'bf901b85 bfd91446 bf57fb33 3f6e8c30',
    randn66row0: 'bf901b85 bf93808a be804bd6 bede255d 3f594515 3f312783',
    defaultMask: '001000 110111 101111 001010 100001 001110',
    mklMask: '100110 011110 011101 000011 111000 010110',
  },
  {
    seed: 42,
    raw3: '5fe1dc66 cbea3db3 f362035c',
    rand4: '3f61dc66 3f6a3db3 3ec406b8 3f75950e',
    linearW0: '3ec3b8cc 3ed47b66 bdefe520 3eeb2a1c',
    linearB: '3ebd2294 3d8aae50 3e76e15c',
    randn5: '3eac62ae 3e03e69d 3e7016e7 3e6bdc6c',
    randn17: '3ff6a529 be236d85 3f5c1fb0 be9e9482',
    defaultMask: '111101 001111 001010 011011 110111 111100',
    mklMask: '001111 101010 001110 110101 101111 111010',
  },
  {
    seed: 123,
    raw3: 'b24bcdfe b6843d6d 49406d7e',
    rand4: '3e979bfc 3f043d6d 3e80dafc 3f304542',
    linearW0: 'be50c808 3c87ada0 be7e4a08 3e411508',
    linearB: 'bed94654 be9b523e be3bfe80',
    randn5: 'bde448df 3df680d9 bebd40bc be763021',
    randn17: '3eacbbc9 bf829ed3 c035c276 bf48ec26',
    defaultMask: '110110 000101 111101 011001 010101 011110',
    mklMask: null, // the spec gives none; §6 gives the fingerprint of its first row
  },
];

for (const [flavour, torch] of await loadBuilds()) {
  describe(`generator (${flavour})`, () => {
    afterEach(() => torch.setRngProfile('default'));

    // Dropout(0.5) on ones(6, 6) as rows of kept (1) / dropped (0).
    function dropoutMask() {
      const out = new torch.nn.Dropout(0.5).forward(torch.ones(6, 6));
      const rows = out.toArray().map((row) =>
        row
          .map((v) => {
            assert.ok(v === 2 || v === 0, `a dropout(0.5) output is 0 or 2, got ${v}`);
            return v === 2 ? '1' : '0';
          })
          .join(''),
      );
      return rows.join(' ');
    }

    for (const v of VECTORS) {
      describe(`seed ${v.seed}`, () => {
        test('rand(3) keeps the low 24 bits of the first three raw words', () => {
          torch.manualSeed(v.seed);
          const u = torch.rand(3).data;
          const raw = v.raw3.split(' ').map((w) => parseInt(w, 16));
          raw.forEach((word, i) => assert.equal(u[i] * 2 ** 24, word & 0xffffff, `word ${i}`));
          assert.equal(torch.rngDraws(), 3);
        });

        test('rand(8)[:4]', () => {
          torch.manualSeed(v.seed);
          const r = torch.rand(8);
          assert.deepEqual(hexOf(r.slice(0, 0, 4)).join(' '), v.rand4);
          assert.deepEqual(hexOf(r).slice(0, 4).join(' '), v.rand4);
          assert.equal(torch.rngDraws(), 8);
        });

        test('Linear(4, 3): weight[0] and bias', () => {
          torch.manualSeed(v.seed);
          const linear = new torch.nn.Linear(4, 3);
          assert.equal(hexOf(linear.weight.at(0)).join(' '), v.linearW0);
          assert.equal(hexOf(linear.bias).join(' '), v.linearB);
          assert.equal(torch.rngDraws(), 4 * 3 + 3);
        });

        test('randn(5)[:4]: per-element Box-Muller in double', () => {
          torch.manualSeed(v.seed);
          assert.equal(hexOf(torch.randn(5)).slice(0, 4).join(' '), v.randn5);
          assert.equal(torch.rngDraws(), 3 * 4); // three pairs, the last one leaves a spare
        });

        test('randn(17)[0, 1, 15, 16]: 16-blocks with a redrawn tail', () => {
          torch.manualSeed(v.seed);
          const h = hexOf(torch.randn(17));
          assert.equal([h[0], h[1], h[15], h[16]].join(' '), v.randn17);
          assert.equal(torch.rngDraws(), 17 + 16);
        });

        test('Dropout(0.5) mask, default profile: two words per element', () => {
          assert.equal(torch.getRngProfile(), 'default');
          torch.manualSeed(v.seed);
          assert.equal(dropoutMask(), v.defaultMask);
          assert.equal(torch.rngDraws(), 2 * 36);
        });

        test('Dropout(0.5) mask, mkl profile: one word in all', () => {
          torch.setRngProfile('mkl');
          assert.equal(torch.getRngProfile(), 'mkl');
          torch.manualSeed(v.seed);
          const mask = dropoutMask();
          if (v.mklMask) assert.equal(mask, v.mklMask);
          else assert.equal(mask.slice(0, 6), '111111'); // §6: seed 123 keeps the whole first row
          assert.notEqual(mask, v.defaultMask);
          assert.equal(torch.rngDraws(), 1);
        });
      });
    }

    test('randn(6, 6)[0] and its 36 + 16 draws', () => {
      torch.manualSeed(0);
      const t = torch.randn(6, 6);
      assert.equal(hexOf(t.at(0)).join(' '), VECTORS[0].randn66row0);
      assert.equal(torch.rngDraws(), 36 + 16);
    });

    test('the normal spare survives across small randn calls; manualSeed clears it', () => {
      torch.manualSeed(0);
      const three = torch.randn(3); // two pairs: one value kept as the spare
      assert.equal(torch.rngDraws(), 8);
      const one = torch.randn(1); // served by the spare
      assert.equal(torch.rngDraws(), 8);
      torch.manualSeed(0);
      const four = torch.randn(4);
      assert.deepEqual(hexOf(torch.cat([three, one])), hexOf(four));
      assert.equal(hexOf(four).join(' '), VECTORS[0].randn5);

      torch.randn(3); // leaves a spare behind ...
      torch.manualSeed(0); // ... which seeding drops
      assert.equal(hexOf(torch.randn(1))[0], VECTORS[0].randn5.split(' ')[0]);
      assert.equal(torch.rngDraws(), 4);
    });

    test("the verified sequence of §7 adds up to 96 words", () => {
      torch.manualSeed(7);
      for (let i = 0; i < 3; i++) torch.rand(3, 2);
      assert.equal(torch.rngDraws(), 18);
      new torch.nn.Linear(3, 4);
      assert.equal(torch.rngDraws(), 34);
      new torch.nn.Linear(4, 4);
      new torch.nn.Linear(4, 2);
      assert.equal(torch.rngDraws(), 64);
      new torch.nn.Dropout(0.5).forward(torch.ones(8));
      assert.equal(torch.rngDraws(), 80);
      torch.randn(2, 3);
      assert.equal(torch.rngDraws(), 92);
      torch.rand(4);
      assert.equal(torch.rngDraws(), 96);
    });

    test('draws of the other operations: Linear without bias, p = 0, p = 1, eval, ones', () => {
      torch.manualSeed(1);
      new torch.nn.Linear(5, 3, false);
      assert.equal(torch.rngDraws(), 15);
      new torch.nn.Dropout(0).forward(torch.ones(10));
      new torch.nn.Dropout(1).forward(torch.ones(10));
      new torch.nn.Dropout(0.5).eval().forward(torch.ones(10));
      torch.ones(4);
      torch.zeros(4);
      torch.empty(4);
      assert.equal(torch.rngDraws(), 15);
      // p = 1 drops everything, p = 0 and eval() keep x as it is
      assert.deepEqual(new torch.nn.Dropout(1).forward(torch.ones(3)).toArray(), [0, 0, 0]);
      assert.deepEqual(new torch.nn.Dropout(0).forward(torch.ones(3)).toArray(), [1, 1, 1]);
    });

    test('dropout scale for p = 0.1 is 1/(float)0.9 = 0x3f8e38e4', () => {
      torch.manualSeed(3);
      const out = new torch.nn.Dropout(0.1).forward(torch.ones(64)).data;
      const kept = Array.from(out).filter((x) => x !== 0);
      assert.ok(kept.length > 0 && kept.length < 64);
      for (const x of kept) assert.equal(hex(bitsOfFloat(x)), '3f8e38e4');
    });

    test('seeds: only the low 32 bits seed the state; BigInt and Number agree', () => {
      torch.manualSeed(5);
      const a = hexOf(torch.rand(16));
      torch.manualSeed(2 ** 32 + 5);
      assert.deepEqual(hexOf(torch.rand(16)), a);
      torch.manualSeed(2n ** 32n + 5n);
      assert.deepEqual(hexOf(torch.rand(16)), a);
      torch.manualSeed(5n);
      assert.deepEqual(hexOf(torch.rand(16)), a);
      torch.manualSeed(6);
      assert.notDeepEqual(hexOf(torch.rand(16)), a);

      // 2^63 + 123 and 2^64 - 2^32 + 123 have the low word 123: the chapter's stream
      for (const seed of [2n ** 63n + 123n, 2n ** 64n - 2n ** 32n + 123n]) {
        torch.manualSeed(seed);
        assert.equal(hexOf(torch.rand(4)).join(' '), VECTORS[2].rand4);
        assert.equal(torch.initialSeed(), seed);
      }
    });

    test('negative seeds wrap to their 64-bit two\'s complement', () => {
      torch.manualSeed(-1);
      assert.equal(torch.initialSeed(), 2n ** 64n - 1n);
      const minusOne = hexOf(torch.rand(8));
      torch.manualSeed(0xffffffff);
      assert.deepEqual(hexOf(torch.rand(8)), minusOne);
      torch.manualSeed(2n ** 64n - 1n);
      assert.deepEqual(hexOf(torch.rand(8)), minusOne);
      assert.equal(torch.initialSeed(), 2n ** 64n - 1n);

      torch.manualSeed(-12345n);
      assert.equal(torch.initialSeed(), 2n ** 64n - 12345n);
      torch.manualSeed(-(2n ** 63n)); // the lowest seed torch accepts
      assert.equal(torch.initialSeed(), 2n ** 63n);
      assert.equal(hexOf(torch.rand(4)).join(' '), VECTORS[0].rand4); // low word 0
    });

    test('initialSeed returns a BigInt; rngDraws counts from the last manualSeed', () => {
      torch.manualSeed(123);
      assert.equal(typeof torch.initialSeed(), 'bigint');
      assert.equal(torch.initialSeed(), 123n);
      assert.equal(torch.rngDraws(), 0);
      assert.equal(typeof torch.rngDraws(), 'number');
      torch.rand(5);
      assert.equal(torch.rngDraws(), 5);
      torch.manualSeed(42n);
      assert.equal(torch.initialSeed(), 42n);
      assert.equal(torch.rngDraws(), 0);
      torch.manualSeed(Number.MAX_SAFE_INTEGER);
      assert.equal(torch.initialSeed(), BigInt(Number.MAX_SAFE_INTEGER));
    });

    test('setRngProfile switches only the dropout path and is kept across manualSeed', () => {
      assert.equal(torch.getRngProfile(), 'default');
      torch.manualSeed(0);
      const r = hexOf(torch.rand(10));
      torch.setRngProfile('mkl');
      torch.manualSeed(0);
      assert.equal(torch.getRngProfile(), 'mkl');
      assert.deepEqual(hexOf(torch.rand(10)), r);
      torch.manualSeed(0);
      assert.equal(hexOf(new torch.nn.Linear(4, 3).weight.at(0)).join(' '), VECTORS[0].linearW0);
      torch.setRngProfile('default');
      assert.equal(torch.getRngProfile(), 'default');
    });

    test('an mkl mask is one MCG31 stream: one word whatever the size', () => {
      torch.setRngProfile('mkl');
      torch.manualSeed(0);
      const big = new torch.nn.Dropout(0.5).forward(torch.ones(1000));
      assert.equal(torch.rngDraws(), 1);
      // the first 36 elements of a longer mask are the 6x6 mask
      const first36 = Array.from(big.data.slice(0, 36), (x) => (x === 2 ? '1' : '0')).join('');
      assert.equal(first36, VECTORS[0].mklMask.replaceAll(' ', ''));
    });
  });
}
