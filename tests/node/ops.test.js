// The op table (wasm/api/ops.js, torch.ops) against what it makes and what it calls: each entry is a Tensor
// method and/or a torch function as it says, every core export it names is an Embind export of both builds,
// every op it marks as a view shares its input's storage, and a value JavaScript no longer checks (a
// negative size) is refused by the core with the core's one message.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';

import { AttentionError } from '../../wasm/index.js';
import { loadBuilds } from './support.mjs';

const dist = new URL('../../wasm/dist/', import.meta.url);

for (const [flavour, torch] of await loadBuilds()) {
  describe(`the op table (${flavour})`, () => {
    test('each entry is a Tensor method and/or a torch function, as it says', () => {
      for (const entry of torch.ops) {
        assert.ok(entry.on.length > 0, entry.name);
        assert.equal(Object.hasOwn(torch.Tensor.prototype, entry.name), entry.on.includes('tensor'), `Tensor.${entry.name}`);
        assert.equal(Object.hasOwn(torch, entry.name), entry.on.includes('torch'), `torch.${entry.name}`);
      }
      assert.equal(new Set(torch.ops.map((e) => e.name)).size, torch.ops.length, 'each op declared once');
    });

    test('every core export the table names is an Embind function of the build', async () => {
      const { default: create } = await import(new URL(`attention-${flavour}.mjs`, dist).href);
      const wasm = await create({ wasmBinary: await readFile(new URL(`attention-${flavour}.wasm`, dist)) });
      for (const entry of torch.ops) {
        const exported = entry.core ?? entry.name;
        const names = [exported, ...entry.args.filter((a) => a.absent).map((a) => a.absent)];
        if (entry.args.some((a) => a.kind === 'operand')) names.push(exported.replace(/_?$/, (end) => `Number${end}`));
        for (const name of names) assert.equal(typeof wasm[name], 'function', `${entry.name}: ${name}`);
        if (entry.enum) assert.ok(wasm[entry.enum[0]][entry.enum[1]], `${entry.name}: ${entry.enum.join('.')}`);
      }
    });

    test('the ops marked as views share their input storage: a change through the result reaches the input', () => {
      const arguments_ = { at: [1], select: [1, 0], slice: [1, 0, 1], T: null, transpose: [0, 1], view: [4],
        unsqueeze: [0], permute: [1, 0], movedim: [0, 1], squeeze: [0], expand: [3, 2, 2] };
      const views = torch.ops.filter((e) => e.view).map((e) => e.name);
      assert.deepEqual(views.sort(), Object.keys(arguments_).sort());
      for (const name of views) {
        const x = torch.zeros(2, 2);
        const result = arguments_[name] === null ? x[name] : x[name](...arguments_[name]);
        result.fill_(1);
        assert.ok(x.data.some((v) => v === 1), `${name}: the input did not change`);
      }
    });

    test('a negative size is the core’s to refuse, with its message', () => {
      for (const [make, message] of [
        [() => torch.zeros(2, -3), /^zeros: sizes must be non-negative, got \[2,-3\]$/],
        [() => new torch.SelfAttention_v1(-1, 2), /^SelfAttention_v1: d_in must be a positive integer, got -1$/],
        [() => new torch.MultiHeadAttention(3, 2, 6, 0, -2), /^MultiHeadAttention: num_heads must be a positive integer, got -2$/],
      ]) {
        assert.throws(make, (e) => e instanceof AttentionError && message.test(e.message));
      }
    });
  });
}
