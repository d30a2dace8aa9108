// The built modules are Embind's: every export index.js calls is an Embind function or class, the enums are
// Embind enums, and no hand-written wire is exported. Modules are Embind handles that delete() frees at once.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import { AttentionError } from '../../wasm/index.js';
import { loadBuilds } from './support.mjs';

const dist = new URL('../../wasm/dist/', import.meta.url);
const MODULE_CLASSES = ['Module', 'Linear', 'Dropout', 'SelfAttention_v1', 'SelfAttention_v2', 'CausalAttention',
  'MultiHeadAttentionWrapper', 'MultiHeadAttention'];

for (const [flavour, torch] of await loadBuilds()) {
  describe(`Embind bindings (${flavour})`, () => {
    let wasm; // the Emscripten module itself, without the API over it
    before(async () => {
      const { default: create } = await import(new URL(`attention-${flavour}.mjs`, dist).href);
      wasm = await create({ wasmBinary: await readFile(new URL(`attention-${flavour}.wasm`, dist)) });
    });

    test('the glue registers Embind functions, classes, enums and value objects', async () => {
      const glue = await readFile(new URL(`attention-${flavour}.mjs`, dist), 'utf8');
      for (const registration of ['_embind_register_function', '_embind_register_class', '_embind_register_enum',
        '_embind_register_value_object', '_embind_register_class_property']) {
        assert.ok(glue.includes(registration), registration);
      }
      assert.ok(!/new Function|eval\(/.test(glue), 'no dynamic code: the page runs under a CSP without unsafe-eval');
    });

    test('no hand-written wire is exported: only malloc and free besides Embind', () => {
      const own = Object.keys(wasm).filter((k) => /^_attn|wire|stage/i.test(k));
      assert.deepEqual(own, []);
      assert.equal(typeof wasm._malloc, 'function');
      assert.equal(typeof wasm._free, 'function');
    });

    test('modules are Embind classes deriving from Module', () => {
      for (const name of MODULE_CLASSES) assert.equal(typeof wasm[name], 'function', name);
      const linear = new wasm.Linear(3, 2, true);
      assert.ok(linear instanceof wasm.Module);
      assert.equal(linear.training, true);
      linear.train(false);
      assert.equal(linear.training, false);
      assert.deepEqual(linear.parameterNames(), ['weight', 'bias']);
      linear.delete();
      assert.equal(linear.isDeleted(), true);
    });

    test('the rng profile, dtype and attention path are Embind enums named as in the core', () => {
      assert.deepEqual(Object.keys(wasm.RngProfile).filter((k) => k !== 'values').sort(), ['default', 'mkl']);
      assert.deepEqual(Object.keys(wasm.DType).filter((k) => k !== 'values').sort(), ['bool', 'float32', 'float64', 'int32', 'int64']);
      assert.deepEqual(Object.keys(wasm.AttentionPath).filter((k) => k !== 'values').sort(), ['auto', 'exact', 'fast']);
      wasm.setRngProfile(wasm.RngProfile.mkl);
      assert.equal(wasm.getRngProfile(), wasm.RngProfile.mkl);
    });

    test('delete() frees a module at once; using it afterwards is an AttentionError', () => {
      torch.manualSeed(123);
      const before = torch.memoryUsage().allocatedBytes;
      const mha = new torch.MultiHeadAttention(64, 64, 16, 0.0, 4);
      assert.ok(torch.memoryUsage().allocatedBytes >= before + 4 * 64 * 64 * 4);
      mha.delete();
      assert.equal(torch.memoryUsage().allocatedBytes, before);
      mha.delete(); // twice is harmless
      for (const use of [() => mha.forward(torch.ones(2, 64)), () => mha.training, () => mha.W_key.weight,
        () => mha.out_proj.forward(torch.ones(64)), () => mha.eval()]) {
        assert.throws(use, (e) => e instanceof AttentionError && /this MultiHeadAttention was deleted/.test(e.message));
      }
    });

    test('Symbol.dispose deletes the module', () => {
      const before = torch.memoryUsage().allocatedBytes;
      const linear = new torch.nn.Linear(128, 128);
      linear[Symbol.dispose]();
      assert.equal(torch.memoryUsage().allocatedBytes, before);
      assert.throws(() => linear.forward(torch.ones(128)), /Linear was deleted/);
    });
  });
}
