// The page as a learner reads it: every step's first result on the first screen (1280 x 800 and a 390 x 844
// phone, where the first paragraph folds), an edit's changed numbers marked and brought into view, and the
// browser history: one entry per settings edit, Back undoes it (and says so), Previous keeps the settings.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  assertNoProblems,
  bookSettings,
  closePage,
  controlValue,
  formatHash,
  newPage,
  openAt,
  reference,
  seriousViolations,
  siteForTests,
  STEPS,
  stepSelector,
  waitForStep,
  waitForValuesChange,
} from './harness.mjs';
import { parseHash } from '../../web/state.js';
import { bookCells } from '../../web/compare.js';

const env = siteForTests();

/** How much of the step's first shown tensor is on screen above the sticky step bar, in px. */
function firstResultOnScreen(sel) {
  const tensor = [...document.querySelectorAll(`${sel} [data-tensor]`)].find((el) => el.getClientRects().length > 0);
  if (!tensor) return null;
  const bar = document.querySelector('.step-nav').getBoundingClientRect().top;
  const r = tensor.getBoundingClientRect();
  return { visible: Math.min(r.bottom, bar) - Math.max(r.top, 0), height: r.height, top: r.top };
}

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`every step's first result is on the first screen at ${width} x ${height}`, async () => {
    const page = await newPage(env.browser, { width, height });
    await openAt(page, env.base, STEPS[0].id);
    const off = [];
    for (const step of STEPS) {
      await page.evaluate((hash) => (location.hash = hash), formatHash(step.id, bookSettings()));
      await waitForStep(page, step.id);
      await page.evaluate(() => window.scrollTo(0, 0));
      const seen = await page.evaluate(firstResultOnScreen, stepSelector(step.id));
      // at least 120 px of it (or all of it, if it is smaller), without scrolling
      if (!seen || seen.visible < Math.min(120, seen.height)) off.push(`${step.id}: ${JSON.stringify(seen)}`);
    }
    assert.deepEqual(off, []);
    assertNoProblems(page);
    await closePage(page);
  });
}

test('at 390 px the first paragraph folds behind "Read more", which unfolds it', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844 });
  await openAt(page, env.base, 'causal-attention');
  const lede = page.locator(`${stepSelector('causal-attention')} .lede`);
  const toggle = lede.locator('.lede-toggle');
  assert.equal(await toggle.isVisible(), true);
  const folded = await lede.locator('p').evaluate((p) => p.getBoundingClientRect().height);
  await toggle.click();
  assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
  const open = await lede.locator('p').evaluate((p) => ({ height: p.getBoundingClientRect().height, cut: p.scrollHeight > p.clientHeight + 1 }));
  assert.ok(open.height > folded && !open.cut, `unfolded: ${JSON.stringify(open)}, folded ${folded}`);
  // wide screens show the whole paragraph and no button
  const wide = await newPage(env.browser, { width: 1280, height: 800 });
  await openAt(wide, env.base, 'causal-attention');
  assert.equal(await wide.locator(`${stepSelector('causal-attention')} .lede-toggle`).isVisible(), false);
  assertNoProblems(page);
  await closePage(page);
  await closePage(wide);
});

test('an edit marks the tensors it changed and brings the first into view (wide screen)', async () => {
  const page = await newPage(env.browser, { width: 1280, height: 800 });
  const id = 'self-attention-v2';
  await openAt(page, env.base, id);
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight)); // the result is out of view
  const name = await page.locator(`${stepSelector(id)} [data-tensor]`).first().getAttribute('data-tensor');
  const before = await page.locator(`${stepSelector(id)} [data-tensor="${name}"]`).first().getAttribute('data-values');
  await page.fill('#seedV2', '7');
  await page.locator('#seedV2').press('Tab');
  await waitForValuesChange(page, id, name, before);
  const tensor = page.locator(`${stepSelector(id)} [data-tensor="${name}"]`).first();
  assert.match(await tensor.getAttribute('class'), /\bis-updated\b/);
  await page.waitForTimeout(800); // the scroll, smooth where motion is allowed
  const seen = await page.evaluate(firstResultOnScreen, stepSelector(id));
  assert.ok(seen.visible > 0, `the changed result is not in view: ${JSON.stringify(seen)}`);
  assertNoProblems(page);
  await closePage(page);
});

const seedOf = (page) => parseHash(new URL(page.url()).hash).settings.seed;
const stepOf = (page) => parseHash(new URL(page.url()).hash).step;

test('history: a settings edit is one entry; Back undoes it and says so; Previous keeps the settings', async () => {
  const page = await newPage(env.browser);
  const [first, second] = [STEPS[10], STEPS[11]];
  await openAt(page, env.base, first.id);
  await page.click('#next');
  await waitForStep(page, second.id);
  const entries = await page.evaluate(() => history.length);

  // typing "4", "5" into the seed: two recomputations, one history entry
  await page.locator('#seed').click();
  await page.locator('#seed').press('Control+A');
  await page.locator('#seed').pressSequentially('45');
  await page.locator('#seed').press('Tab');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('seed') === '45');
  assert.equal(await page.evaluate(() => history.length), entries + 1, 'one entry for the whole edit');

  await page.goBack();
  await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('seed'));
  assert.equal(stepOf(page), second.id, 'Back undid the edit, on the same step');
  assert.equal(await controlValue(page, '#seed'), '123');
  assert.match(await page.locator('#notices').textContent(), /history/, 'the page says the settings came from the history');

  await page.goForward();
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('seed') === '45');
  assert.equal(await controlValue(page, '#seed'), '45');

  await page.click('#prev');
  await waitForStep(page, first.id);
  assert.equal(seedOf(page), 45, 'Previous keeps the current settings');
  assertNoProblems(page);
  await closePage(page);
});

test('the settings status agrees with the book marks: words alone change no number, a seed does', async () => {
  const page = await newPage(env.browser);
  const id = 'self-attention-v2';
  await openAt(page, env.base, id);
  const marks = () => page.evaluate((sel) => [...document.querySelectorAll(`${sel} [data-book]`)].map((el) => el.dataset.book), stepSelector(id));
  const status = () => page.locator('#settings-status').textContent();

  await page.fill('#token-0', 'Our');
  await page.locator('#token-0').press('Tab');
  await page.waitForFunction(() => /Changed from the book: words/.test(document.getElementById('settings-status').textContent));
  const afterWords = await marks();
  assert.ok(afterWords.length > 0 && afterWords.every((m) => m === 'match'), `marks after a word: ${afterWords}`);
  assert.match(await status(), /still match/);
  assert.doesNotMatch(await status(), /differ/);

  await page.fill('#seedV2', '7');
  await page.locator('#seedV2').press('Tab');
  await page.waitForFunction(() => /seed/.test(document.getElementById('settings-status').textContent));
  const afterSeed = await marks();
  const differs = afterSeed.filter((m) => m === 'differs').length;
  assert.ok(differs > 0, `marks after the seed: ${afterSeed}`);
  const text = await status();
  assert.ok(text.includes(`${differs === afterSeed.length ? `all ${differs}` : `${differs} of the ${afterSeed.length}`}`) || (afterSeed.length === 1 && /differs/.test(text)), text);
  assertNoProblems(page);
  await closePage(page);
});

/** Labels of the step's tables that wrap onto a second line, and code lines that nothing lets one read. */
function crampedParts(sel) {
  const step = document.querySelector(sel);
  const wrapped = [...step.querySelectorAll('.matrix th')]
    .filter((th) => th.getClientRects().length > 0 && th.textContent.trim())
    .map((th) => {
      const range = document.createRange();
      range.selectNodeContents(th);
      // one box per line of text (the rects of one line share their top)
      return { text: th.textContent.trim(), lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size };
    })
    .filter((label) => label.lines > 1)
    .map((label) => `label "${label.text}" on ${label.lines} lines`);
  const cut = [...step.querySelectorAll('pre, .code')]
    .filter((el) => el.scrollWidth > el.clientWidth + 1 && !['auto', 'scroll'].includes(getComputedStyle(el).overflowX))
    .filter((el) => !el.closest('pre, .code')?.parentElement?.closest('pre, .code'))
    .map((el) => `code cut: ${el.textContent.trim().slice(0, 40)}`);
  return [...wrapped, ...cut];
}

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`at ${width} px table labels stay on one line and code is never cut off`, async () => {
    const page = await newPage(env.browser, { width, height });
    await openAt(page, env.base, STEPS[0].id);
    const found = [];
    for (const step of STEPS) {
      await page.evaluate((hash) => (location.hash = hash), formatHash(step.id, bookSettings()));
      await waitForStep(page, step.id);
      for (const problem of await page.evaluate(crampedParts, stepSelector(step.id))) found.push(`${step.id}: ${problem}`);
    }
    assert.deepEqual(found, []);
    await closePage(page);
  });
}

test('multi-head: identical batches drawn once; 16 heads as small maps with one table picked; few heads side by side', async () => {
  const page = await newPage(env.browser);
  const settings = { ...bookSettings(), d_out: 16, heads: 16 };
  const id = 'mha-weights';
  await openAt(page, env.base, id, settings);
  const figure = page.locator(`${stepSelector(id)} figure[data-tensor]`).first();
  const shape = (await figure.getAttribute('data-shape')).split(',').map(Number);
  assert.deepEqual(shape.slice(0, 2), [2, 16]);
  assert.match(await figure.locator('.group-note').textContent(), /Batch 1 is the same as batch 0/);
  const picks = figure.locator('.head-pick');
  assert.equal(await picks.count(), 16, 'one small map per head, for batch 0 only');
  const visibleTables = () => figure.locator('table.matrix:visible');
  assert.equal(await visibleTables().count(), 1);
  await picks.nth(5).click();
  assert.equal(await picks.nth(5).getAttribute('aria-pressed'), 'true');
  assert.equal(await visibleTables().count(), 1);
  assert.match(await visibleTables().locator('td.cell').first().getAttribute('data-index'), /^0,5,0,0$/);
  // the picked head's numbers are the tensor's (data-values holds all of them, row-major)
  const all = JSON.parse(await figure.getAttribute('data-values'));
  const [, heads, rows, cols] = shape;
  const shown = await visibleTables().locator('td.cell .num').allTextContents();
  const expected = all.slice(5 * rows * cols, 6 * rows * cols).map((v) => (typeof v === 'number' ? v : Number(v)));
  assert.equal(shown.length, expected.length);
  shown.forEach((text, k) => {
    const v = Number(text.replace('−', '-').replace('∞', 'Infinity'));
    assert.ok(Math.abs(v - expected[k]) < 1e-4 || v === expected[k], `cell ${k}: ${text} vs ${expected[k]}`);
  });
  assert.equal(heads, 16);
  await page.screenshot({ path: `${(await import('./harness.mjs')).artifacts}heads-16.png` });

  // the book's settings: the queries split into 2 heads ([2, 2, 6, 1]) fit side by side
  await openAt(page, env.base, 'mha-split');
  const split = page.locator(`${stepSelector('mha-split')} [data-tensor="mha_queries_split"]`);
  const tables = split.locator('.head-row table.matrix');
  assert.equal(await tables.count(), 2, 'batch 0, heads 0 and 1');
  const tops = await tables.evaluateAll((ts) => ts.map((t) => Math.round(t.getBoundingClientRect().top)));
  assert.equal(new Set(tops).size, 1, `heads side by side share a row: ${tops}`);
  assertNoProblems(page);
  await closePage(page);
});

test("book marks cell by cell: differing cells are marked and counted; the toggle writes the book's numbers in", async () => {
  const page = await newPage(env.browser);
  const id = 'self-attention-v2';
  const settings = { ...bookSettings(), seedV2: 7 };
  await openAt(page, env.base, id, settings);
  const computed = await reference(settings);
  const figures = page.locator(`${stepSelector(id)} figure[data-tensor]`);
  let checked = 0;
  for (let f = 0; f < (await figures.count()); f++) {
    const figure = figures.nth(f);
    const result = computed[await figure.getAttribute('data-tensor')];
    const cells = result?.book ? bookCells(result.values, result.book) : null;
    if (!cells) continue;
    const differing = cells.filter((c) => !c.matches).length;
    assert.ok(differing > 0, 'another seed changes these numbers');
    assert.equal(await figure.locator('td.cell.book-differs').count(), differing);
    assert.match(await figure.locator('[data-book]').textContent(), new RegExp(`in ${differing} of ${cells.length} cells`));
    assert.equal(await figure.locator('.book-num').first().isVisible(), false);
    await figure.locator('.book-toggle').click();
    const shown = await figure.locator('td.cell .book-num').evaluateAll((els) => els.map((el) => el.lastChild.textContent));
    assert.deepEqual(shown, cells.map((c) => c.printed.replace(/^-/, '−')));
    checked++;
  }
  assert.ok(checked >= 2, `${checked} results compared`);

  // the book's settings: every cell matches, and the book's numbers stay shown beside the live ones (the
  // toggles keep their state across edits)
  await openAt(page, env.base, id);
  assert.equal(await page.locator(`${stepSelector(id)} td.cell.book-differs`).count(), 0);
  assert.equal(await page.locator(`${stepSelector(id)} .book-toggle`).first().getAttribute('aria-pressed'), 'true');
  assert.equal(await page.locator(`${stepSelector(id)} .book-num`).first().isVisible(), true);
  assertNoProblems(page);
  await closePage(page);
});

test('390 px: the settings open as a drawer from the step bar; an edit shows its result above it; Escape closes', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844, contextOptions: { bypassCSP: true } });
  const id = 'all-weights';
  await openAt(page, env.base, id);
  assert.equal(await page.locator('#seed').isVisible(), false, 'closed, the drawer is out of sight');
  const opener = page.locator('#open-settings');
  await opener.click();
  assert.equal(await opener.getAttribute('aria-expanded'), 'true');
  await page.waitForFunction(() => document.activeElement?.id === 'settings-title');
  await page.locator('#x-1-0').waitFor({ state: 'visible' });

  const before = await page.locator(`${stepSelector(id)} [data-tensor="attn_weights"]`).getAttribute('data-values');
  await page.fill('#x-1-0', '0.9');
  await page.locator('#x-1-0').press('Tab');
  await waitForValuesChange(page, id, 'attn_weights', before);
  await page.waitForTimeout(700);
  const where = await page.evaluate(() => {
    const tensor = document.querySelector('[data-tensor="attn_weights"]').getBoundingClientRect();
    const drawer = document.getElementById('settings').getBoundingClientRect();
    return { tensorTop: tensor.top, drawerTop: drawer.top };
  });
  assert.ok(where.tensorTop >= 0 && where.tensorTop < where.drawerTop - 40, `the changed result is above the drawer: ${JSON.stringify(where)}`);

  assert.deepEqual(await seriousViolations(page), [], 'axe-core with the drawer open');

  await page.keyboard.press('Escape');
  assert.equal(await opener.getAttribute('aria-expanded'), 'false');
  await page.waitForFunction(() => document.activeElement?.id === 'open-settings');
  await page.locator('#seed').waitFor({ state: 'hidden' });

  // a step's "Try it" chip opens the drawer at its setting
  await openAt(page, env.base, 'qkv-weights');
  await page.locator(`${stepSelector('qkv-weights')} button[data-control="seed"]`).click();
  await page.waitForFunction(() => document.documentElement.classList.contains('settings-open') && document.activeElement?.id === 'seed');
  assertNoProblems(page);
  await closePage(page);
});

test('where attention sits: the first step maps a GPT-style model, the header says where the reader is, the last step recaps', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, STEPS[0].id);
  const here = page.locator(`${stepSelector(STEPS[0].id)} .overview .gpt-layer.is-here`);
  assert.equal(await here.count(), 1, 'one layer marked as this chapter’s');
  assert.match(await here.textContent(), /attention/i);

  for (const step of [STEPS[0], STEPS.find((s) => s.section.startsWith('3.5')), STEPS.at(-1)]) {
    await page.evaluate((hash) => (location.hash = hash), formatHash(step.id, bookSettings()));
    await waitForStep(page, step.id);
    const current = await page.locator('#here [aria-current="location"] .here-num').textContent();
    assert.ok(step.section.startsWith(current), `${step.id} (${step.section}) is shown as part ${current}`);
    assert.match(await page.locator('#here .here-step').textContent(), new RegExp(`step ${STEPS.indexOf(step) + 1} of ${STEPS.length}`));
  }
  // a part of the header opens its first step
  await page.locator('#here a', { hasText: '3.4' }).click();
  const first34 = STEPS.find((s) => s.section.startsWith('3.4'));
  await waitForStep(page, first34.id);

  const last = STEPS.at(-1);
  await openAt(page, env.base, last.id);
  const classes = await page.locator(`${stepSelector(last.id)} .recap tbody th`).allTextContents();
  assert.deepEqual(classes, ['SelfAttention_v1', 'SelfAttention_v2', 'CausalAttention', 'MultiHeadAttentionWrapper', 'MultiHeadAttention']);
  assertNoProblems(page);
  await closePage(page);
});

// ---------------------------------------------------------------- colour (item 8)

/** WCAG relative luminance of a computed CSS colour: 'rgb(r, g, b)' or 'oklab(L a b)'. */
function luminance(css) {
  let rgb;
  const ok = css.match(/^oklab\(([-\d.e]+) ([-\d.e]+) ([-\d.e]+)/);
  if (ok) {
    const [L, a, b] = ok.slice(1).map(Number);
    const l = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
    const m = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
    const s = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
    rgb = [4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s, -1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s, -0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s];
  } else {
    const c = css.match(/rgba?\((\d+), (\d+), (\d+)/);
    assert.ok(c, `a colour the test can read: ${css}`);
    rgb = c.slice(1).map((v) => {
      const x = Number(v) / 255;
      return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
    });
  }
  const [r, g, b] = rgb.map((x) => Math.min(1, Math.max(0, x)));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);

for (const scheme of ['light', 'dark']) {
  test(`heat colours (${scheme}): lightness follows the value evenly, every number keeps 4.5:1, the legend states the range`, async () => {
    const page = await newPage(env.browser);
    await page.emulateMedia({ colorScheme: scheme });
    // a sequential tensor (weights) and a signed one (raw scores of nn.Linear weights)
    for (const [stepId, name] of [['all-weights', 'attn_weights'], ['self-attention-v2', 'sa_v2_W_query']]) {
      await openAt(page, env.base, stepId);
      const fig = page.locator(`${stepSelector(stepId)} [data-tensor="${name}"]`);
      const cells = await fig.locator('td.cell').evaluateAll((cs) =>
        cs.map((c) => ({ value: Number(c.querySelector('.num').textContent.replace('−', '-')), bg: getComputedStyle(c).backgroundColor, fg: getComputedStyle(c).color })),
      );
      const largest = Math.max(...cells.map((c) => Math.abs(c.value)));
      const lightness = (css) => Number(css.match(/^oklab\(([-\d.e]+)/)?.[1]);
      const ends = cells.map((c) => ({ t: Math.abs(c.value) / largest, L: lightness(c.bg), sign: Math.sign(c.value) }));
      assert.ok(ends.every((e) => Number.isFinite(e.L)), `${name}: cells mixed in OKLab`);
      // lightness is a straight line in |value| on each side of zero: the same step in value, the same step in lightness
      for (const sign of [1, -1]) {
        const side = ends.filter((e) => e.sign === sign || (sign === 1 && e.sign === 0));
        if (side.length < 2) continue;
        const lo = side.reduce((a, e) => (e.t < a.t ? e : a));
        const hi = side.reduce((a, e) => (e.t > a.t ? e : a));
        if (hi.t - lo.t < 0.3) continue;
        const slope = (hi.L - lo.L) / (hi.t - lo.t);
        assert.ok(Math.abs(slope) > 0.22, `${name} (${sign > 0 ? 'positive' : 'negative'}): lightness spans ${Math.abs(slope).toFixed(3)} over the scale, too washed out`);
        for (const e of side) assert.ok(Math.abs(e.L - (lo.L + slope * (e.t - lo.t))) < 0.01, `${name}: lightness ${e.L} at ${e.t} is off the line`);
      }
      for (const c of cells) {
        const ratio = contrast(luminance(c.bg), luminance(c.fg));
        assert.ok(ratio >= 4.5, `${name}: ${c.value} has contrast ${ratio.toFixed(2)} on ${c.bg}`);
      }
      const legend = await fig.locator('.scale-key').textContent();
      const fmt = (v) => v.toFixed(4).replace('-', '−');
      assert.ok(legend.includes(fmt(largest)), `${name}: the legend states the top of the range ${fmt(largest)}: ${legend}`);
    }
    assertNoProblems(page);
    await closePage(page);
  });
}

test('take apart: the panel draws the operands in their tensors and outlines them where they are on the step', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'all-context');
  await page.locator(`${stepSelector('all-context')} [data-tensor="all_context_vecs"] td[data-index="1,2"]`).click();
  const panel = page.locator('#take-apart');
  await panel.waitFor();
  const weights = panel.locator('.ta-source[data-source="attn_weights"]');
  assert.match(await weights.textContent(), /row 1 \(“journey”\)/);
  assert.equal(await weights.locator('.is-in').count(), 6, 'the six weights of row 1');
  const inputs = panel.locator('.ta-source[data-source="inputs"]');
  assert.match(await inputs.textContent(), /column 2/);
  assert.equal(await inputs.locator('.is-in').count(), 6, 'the six inputs of column 2');

  // scores and the weights on one step: the weight's row of scores is outlined
  await openAt(page, env.base, 'causal-weights');
  await page.locator(`${stepSelector('causal-weights')} [data-tensor="causal_weights"] td[data-index="3,1"]`).click();
  const outlined = await page.locator('td.is-operand').evaluateAll((cs) => cs.map((c) => `${c.closest('[data-tensor]').dataset.tensor}[${c.dataset.index}]`));
  assert.deepEqual(outlined, [0, 1, 2, 3, 4, 5].map((j) => `causal_scores[3,${j}]`));
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('td.is-operand').count(), 0, 'the outline goes with the panel');
  assertNoProblems(page);
  await closePage(page);
});
