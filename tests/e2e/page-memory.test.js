// The page's wasm memory over settings edits in Chromium: every seed edit at the largest sizes replaces the
// chapter's modules (with context_length 1024, about 150 MB of masks), and the page deletes those it replaces,
// so the heap stays where the first edits took it. The page does not expose its WebAssembly.Memory: a script
// run before the page's own notes every memory an instance is made with.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, bookSettings, closePage, newPage, openAt, setControl, siteForTests, stepSelector, waitForValuesChange } from './harness.mjs';
import { MAX_D_IN, MAX_WORDS, SETTINGS } from '../../web/state.js';

const env = siteForTests();
const EDITS = 10;
const WARM_UP = 3;

/** Notes on globalThis.wasmMemories every WebAssembly.Memory an instance imports or exports. */
function noteWasmMemories() {
  const instantiate = WebAssembly.instantiate;
  const memories = (globalThis.wasmMemories = []);
  WebAssembly.instantiate = async function (source, imports) {
    const made = await instantiate.call(this, source, imports);
    const instance = made instanceof WebAssembly.Instance ? made : made.instance;
    const values = [...Object.values(instance.exports), ...Object.values(imports ?? {}).flatMap((m) => Object.values(m))];
    memories.push(...values.filter((v) => v instanceof WebAssembly.Memory && !memories.includes(v)));
    return made;
  };
}
const wasmMemoryBytes = (page) => page.evaluate(() => globalThis.wasmMemories.map((memory) => memory.buffer.byteLength));

test(`${EDITS} seed edits at the largest sizes leave the page's wasm memory where the first ${WARM_UP} took it`, async () => {
  const page = await newPage(env.browser);
  await page.context().addInitScript(noteWasmMemories);
  const tokens = Array.from({ length: MAX_WORDS }, (_, i) => `w${i}`);
  const largest = {
    ...bookSettings(),
    tokens,
    embeddings: tokens.map((_, i) => Array.from({ length: MAX_D_IN }, (__, j) => ((i * 7 + j * 3) % 11) / 10 - 0.5)),
    d_out: SETTINGS.d_out.limits[1],
    heads: SETTINGS.heads.limits[1],
    context_length: SETTINGS.context_length.limits[1],
  };
  const step = 'qkv-weights';
  await openAt(page, env.base, step, largest);
  const weights = page.locator(`${stepSelector(step)} [data-tensor="W_query"]`).first();
  let warmedUp = null;
  for (let n = 1; n <= EDITS; n++) {
    const before = await weights.getAttribute('data-values');
    await setControl(page, '#seed', String(largest.seed + n));
    await waitForValuesChange(page, step, 'W_query', before);
    if (n === WARM_UP) warmedUp = await wasmMemoryBytes(page);
  }
  assert.equal(warmedUp.length, 1, 'the page holds one WebAssembly.Memory');
  assert.deepEqual(await wasmMemoryBytes(page), warmedUp, `the wasm memory grew over ${EDITS - WARM_UP} edits`);
  assertNoProblems(page);
  await closePage(page);
});
