// The API's surface: every entry the contract names exists in both builds, wasm/index.d.ts declares exactly
// what index.js provides (read with the TypeScript compiler API), and the typed example of tests/types
// runs, not only type-checks. The TypeScript parts are skipped if typescript is not installed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { AttentionError } from '../../wasm/index.js';
import { loadBuilds } from './support.mjs';

const ts = await import('typescript').then((m) => m.default ?? m).catch(() => null);
const noTs = ts ? false : 'typescript is not installed';

const indexJs = new URL('../../wasm/index.js', import.meta.url);
const dtsPath = fileURLToPath(new URL('../../wasm/index.d.ts', import.meta.url));
const examplePath = fileURLToPath(new URL('../types/example.ts', import.meta.url));

// The contract's list, entry by entry.
const CONTRACT = {
  torch: [
    'backend', 'manualSeed', 'initialSeed', 'setRngProfile', 'getRngProfile', 'rngDraws', 'tensor', 'rand', 'randn',
    'ones', 'zeros', 'empty', 'stack', 'cat', 'triu', 'tril', 'softmax', 'matmul', 'dot', 'setPrintOptions',
    'memoryUsage', 'nn', 'SelfAttention_v1', 'SelfAttention_v2', 'CausalAttention', 'MultiHeadAttentionWrapper',
    'MultiHeadAttention',
  ],
  tensor: [
    'shape', 'dtype', 'ndim', 'numel', 'size', 'toArray', 'data', 'item', 'bool', 'at', 'slice', 'set', 'matmul',
    'dot', 'T', 'transpose', 'view', 'reshape', 'flatten', 'contiguous', 'softmax', 'sum', 'add', 'sub', 'mul', 'div',
    'pow', 'exp', 'maskedFill', 'maskedFill_', 'add_', 'zero_', 'toString',
  ],
};

// Declared property names of an exported interface or class (instance side), from index.d.ts.
let declarations = null;
function declared() {
  if (declarations) return declarations;
  const program = ts.createProgram([dtsPath], {
    strict: true,
    noEmit: true,
    types: [],
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2022.d.ts'],
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(dtsPath));
  const exported = new Map(checker.getExportsOfModule(moduleSymbol).map((s) => [s.name, s]));
  const props = (name) => {
    let symbol = exported.get(name);
    assert.ok(symbol, `index.d.ts exports ${name}`);
    if (symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const type = checker.getDeclaredTypeOfSymbol(symbol);
    return checker
      .getPropertiesOfType(type)
      .map((p) => p.name)
      .filter((n) => !n.startsWith('__@')) // [Symbol.iterator]
      .sort();
  };
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
  declarations = { props, diagnostics };
  return declarations;
}

// Runtime property names: own keys plus the accessors and methods of the prototype chain (minus internals).
function runtimeNames(object) {
  const names = new Set(Object.getOwnPropertyNames(object));
  for (let proto = Object.getPrototypeOf(object); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const n of Object.getOwnPropertyNames(proto)) names.add(n);
  }
  names.delete('constructor');
  return [...names].filter((n) => !n.startsWith('_')).sort();
}

for (const [flavour, torch] of await loadBuilds()) {
  describe(`API surface (${flavour})`, () => {

    test("every entry of the contract is there", () => {
      for (const name of CONTRACT.torch) assert.ok(name in torch, `torch.${name}`);
      const t = torch.ones(2, 3);
      for (const name of CONTRACT.tensor) assert.ok(name in t, `tensor.${name}`);
      assert.equal(typeof t[Symbol.iterator], 'function');
      assert.equal(typeof torch.nn.Linear, 'function');
      assert.equal(typeof torch.nn.Dropout, 'function');
      assert.equal(torch.AttentionError, AttentionError);
      assert.ok(new AttentionError('x') instanceof Error);
      assert.equal(new AttentionError('x').name, 'AttentionError');
    });

    test('module parameters: readable tensors, nested like state_dict names', () => {
      const v1 = new torch.SelfAttention_v1(3, 2);
      for (const k of ['W_query', 'W_key', 'W_value']) assert.deepEqual(v1[k].shape, [3, 2]);
      const v2 = new torch.SelfAttention_v2(3, 2, true);
      assert.deepEqual(v2.W_value.weight.shape, [2, 3]);
      assert.deepEqual(v2.W_value.bias.shape, [2]);
      assert.equal(new torch.SelfAttention_v2(3, 2).W_value.bias, null);
      const ca = new torch.CausalAttention(3, 2, 6, 0.1);
      assert.deepEqual(ca.W_key.weight.shape, [2, 3]);
      const w = new torch.MultiHeadAttentionWrapper(3, 2, 6, 0.0, 3);
      assert.equal(w.heads.length, 3);
      assert.deepEqual(w.heads[2].W_query.weight.shape, [2, 3]);
      const mha = new torch.MultiHeadAttention(3, 4, 6, 0.0, 2);
      assert.deepEqual(mha.out_proj.weight.shape, [4, 4]);
      assert.deepEqual(mha.out_proj.bias.shape, [4]);
      const linear = new torch.nn.Linear(3, 2, false);
      assert.deepEqual(linear.weight.shape, [2, 3]);
      assert.equal(linear.bias, null);
      for (const m of [v1, v2, ca, w, mha, linear, new torch.nn.Dropout(0.2)]) {
        assert.ok(m instanceof torch.nn.Module);
        assert.equal(m.training, true);
        assert.equal(m.eval(), m);
        assert.equal(m.training, false);
        assert.equal(m.train(), m);
        assert.equal(m.training, true);
      }
    });

    test('in-place changes to a parameter are written back into its module', () => {
      torch.manualSeed(123);
      const v2 = new torch.SelfAttention_v2(3, 2, true);
      v2.W_query.bias.zero_();
      assert.deepEqual(v2.W_query.bias.toArray(), [0, 0]);
      v2.W_key.weight.set([0, 0], 0.5);
      assert.equal(v2.W_key.weight.toArray()[0][0], 0.5);
      v2.W_value.weight.add_(1).maskedFill_(torch.ones(2, 3).bool(), 2);
      assert.deepEqual(v2.W_value.weight.toArray(), [[2, 2, 2], [2, 2, 2]]);
      // an assignment makes a new parameter: a tensor read before keeps the old one
      const before = v2.W_value.weight;
      v2.W_value.weight = torch.zeros(2, 3);
      assert.deepEqual(before.toArray(), [[2, 2, 2], [2, 2, 2]]);
      assert.deepEqual(v2.W_value.weight.toArray(), [[0, 0, 0], [0, 0, 0]]);
    });

    test('views share storage and in-place ops reach them', () => {
      const x = torch.zeros(2, 3);
      const row = x.at(1);
      row.add_(1);
      assert.deepEqual(x.toArray(), [[0, 0, 0], [1, 1, 1]]);
      x.T.set([2, 0], 5);
      assert.deepEqual(x.toArray(), [[0, 0, 5], [1, 1, 1]]);
      x.slice(1, 0, 2).zero_();
      assert.deepEqual(x.toArray(), [[0, 0, 5], [0, 0, 1]]);
      assert.deepEqual([...x].map((r) => r.toArray()), [[0, 0, 5], [0, 0, 1]]);
      assert.equal(torch.tensor(3.5).item(), 3.5);
      assert.deepEqual(torch.tensor([true, false]).toArray(), [true, false]);
      assert.equal(torch.tensor([true, false]).dtype, 'bool');
      assert.deepEqual(torch.ones(2, 3).reshape(-1).shape, [6]);
      assert.deepEqual(torch.ones(2, 3).size(), [2, 3]);
      assert.equal(torch.ones(2, 3).size(-1), 3);
    });

    test('index.d.ts declares what index.js provides, and nothing else', { skip: noTs }, () => {
      const { props, diagnostics } = declared();
      assert.deepEqual(diagnostics, []);
      assert.deepEqual(props('Torch'), Object.keys(torch).sort());
      assert.deepEqual(props('Tensor'), runtimeNames(torch.ones(1)));
      const modules = {
        Linear: new torch.nn.Linear(3, 2),
        Dropout: new torch.nn.Dropout(0.5),
        SelfAttention_v1: new torch.SelfAttention_v1(3, 2),
        SelfAttention_v2: new torch.SelfAttention_v2(3, 2),
        CausalAttention: new torch.CausalAttention(3, 2, 6, 0),
        MultiHeadAttentionWrapper: new torch.MultiHeadAttentionWrapper(3, 2, 6, 0, 2),
        MultiHeadAttention: new torch.MultiHeadAttention(3, 2, 6, 0, 2),
      };
      for (const [name, m] of Object.entries(modules)) assert.deepEqual(props(name), runtimeNames(m), name);
      assert.deepEqual(props('LinearParameters'), runtimeNames(modules.SelfAttention_v2.W_query));
      assert.deepEqual(props('CausalAttentionHead'), runtimeNames(modules.MultiHeadAttentionWrapper.heads[0]));
      assert.deepEqual(props('DropoutSubmodule'), runtimeNames(modules.CausalAttention.dropout));
      assert.deepEqual(props('MemoryUsage'), Object.keys(torch.memoryUsage()).sort());
    });

    test('the typed example of tests/types runs', { skip: noTs }, async () => {
      const source = readFileSync(examplePath, 'utf8');
      const { outputText } = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      });
      const dir = mkdtempSync(join(tmpdir(), 'attention-example-'));
      try {
        const file = join(dir, 'example.mjs');
        writeFileSync(file, outputText.replaceAll("'../../wasm/index.js'", `'${indexJs.href}'`));
        const { default: main } = await import(pathToFileURL(file).href);
        const printed = await main(flavour);
        assert.equal(printed[0], torch.backend);
        assert.equal(printed[1], 'wasm-scalar');
        assert.ok(printed.includes('AttentionError'));
        assert.ok(printed.includes('mat1 and mat2 shapes cannot be multiplied (6x3 and 2x3)'));
        assert.ok(printed.includes('tensor([0.4419, 0.6515, 0.5683])')); // 3.3.1's context vector
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
