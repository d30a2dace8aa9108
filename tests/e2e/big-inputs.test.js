// Big inputs (16 words x 16 dims x 16 heads, d_out 64): a burst of keystrokes in a word and in a seed ends
// with the numbers of the last settings, a scrolled table names the columns off screen, a table wider than
// the page draws its first columns with a button that draws the rest, and only the picked head is built.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, closePage, firstDifference, newPage, openAt, reference, sameNumbers, siteForTests, stepSelector, tensorValues, waitForSettled } from './harness.mjs';
import { printedElements } from '../../web/render/matrix.js';
import { computeChapter } from '../../web/chapter/index.js';
import { loadAttention } from '../../wasm/index.js';
import { SIZES } from '../../scripts/bench/inputs.mjs';
import { parseHash } from '../../web/state.js';

const env = siteForTests();
const BIG = SIZES['16x16x16'];
const settingsOf = (page) => parseHash(new URL(page.url()).hash).settings;

/** Every tensor the step shows equals computeChapter's for the settings in the URL. */
async function assertShowsSettings(page, id) {
  const expected = await reference(settingsOf(page));
  const names = await page.locator(`${stepSelector(id)} [data-tensor]`).evaluateAll((els) => els.map((el) => el.dataset.tensor));
  assert.ok(names.length > 0, `${id} shows tensors`);
  for (const name of names) {
    if (!expected[name]?.values) continue;
    const shown = await tensorValues(page, id, name);
    assert.ok(sameNumbers(shown, expected[name].values), `${id}: ${name}: ${firstDifference(shown, expected[name].values)}`);
  }
}

/** Every cell drawn on the step writes its tensor's value (cells an edit rewrote in place, app/patch.js, included). */
async function assertCellsShowValues(page, id) {
  await waitForSettled(page);
  const wrong = await page.locator(`${stepSelector(id)} figure[data-tensor]`).evaluateAll((figures) => figures.flatMap((figure) => {
    const shape = figure.dataset.shape.split(',').map(Number);
    const values = JSON.parse(figure.dataset.values).map(Number);
    return [...figure.querySelectorAll('td.cell[data-index]')].flatMap((cell) => {
      const flat = cell.dataset.index.split(',').map(Number).reduce((at, k, d) => at * shape[d] + k, 0);
      const text = cell.querySelector('.num').textContent;
      const shown = text === '−∞' ? -Infinity : text === '∞' ? Infinity : Number(text.replace('−', '-'));
      const v = values[flat];
      return shown === v || Math.abs(shown - v) <= 1e-4 * Math.max(1, Math.abs(v)) ? [] : [`${figure.dataset.tensor}[${cell.dataset.index}]: ${text} for ${v}`];
    });
  }));
  assert.deepEqual(wrong.slice(0, 3), [], `${wrong.length} cells show another number`);
}

/**
 * The step's results as edits left them (app/patch.js: numbers, colours and marks written into the tables
 * shown) are what the page draws whole for the same numbers: the next step, then this one again.
 */
async function assertSameAsDrawnWhole(page, id) {
  await waitForSettled(page);
  const found = await page.evaluate(async (sel) => {
    // what the layout adds (a table's fade and the columns off screen) and an edit's outline are left out, and
    // which cell of a table is in the Tab order (an edit leaves it where the learner was, a new drawing at the first)
    const results = () => {
      const section = document.querySelector(`${sel} > section.results`).cloneNode(true);
      for (const el of section.querySelectorAll('.is-updated, .is-updated-again, .is-scrollable, .fade-left, .fade-right')) {
        el.classList.remove('is-updated', 'is-updated-again', 'is-scrollable', 'fade-left', 'fade-right');
      }
      for (const el of section.querySelectorAll('.offscreen-columns')) el.textContent = '';
      const tabStops = [...section.querySelectorAll('table.matrix')].map((table) => table.querySelectorAll('td[tabindex="0"]').length);
      for (const td of section.querySelectorAll('td.cell')) td.setAttribute('tabindex', '-1');
      const pixels = [...document.querySelectorAll(`${sel} canvas`)].map((c) => c.getContext('2d').getImageData(0, 0, c.width, c.height).data.join());
      return { html: section.outerHTML, pixels, tabStops };
    };
    const edited = results();
    const table = document.querySelector(`${sel} table.matrix`);
    document.getElementById('next').click();
    document.getElementById('prev').click(); // this step drawn whole, from the same results
    await new Promise((painted) => setTimeout(painted)); // its small maps are painted in a microtask
    const whole = results();
    const at = [...edited.html].findIndex((c, k) => c !== whole.html[k]);
    return {
      drawnAnew: !table.isConnected,
      size: edited.html.length,
      maps: edited.pixels.length,
      differs: edited.html === whole.html ? null : `at character ${at}: ${edited.html.slice(at - 120, at + 80)} against ${whole.html.slice(at - 120, at + 80)}`,
      samePixels: edited.pixels.every((p, k) => p === whole.pixels[k]),
      tabStops: edited.tabStops,
    };
  }, stepSelector(id));
  assert.ok(found.drawnAnew && found.size > 100_000 && found.maps > 0, 'the results, drawn anew, hold the tables and the small maps');
  assert.equal(found.differs, null, 'the edited step is the step drawn whole');
  assert.ok(found.samePixels, 'the small maps are painted the same');
  assert.ok(found.tabStops.every((n) => n === 1), `one cell of each table in the Tab order: ${found.tabStops}`);
}

test('a burst of keystrokes in a word and in the seed ends with the last settings’ numbers', async () => {
  const page = await newPage(env.browser);
  const id = 'mha-weights';
  await openAt(page, env.base, id, BIG);
  const step = page.locator(stepSelector(id));
  const weights = step.locator('figure[data-tensor="mha_weights"] table.matrix');
  await weights.evaluate((table) => (window.tableBeforeEdit = table));
  // typed as fast as the keyboard sends them: the page computes once per frame, with every key so far
  await page.locator('#token-2').focus();
  await page.keyboard.press('End');
  await page.keyboard.type('abcdef', { delay: 0 });
  await page.waitForFunction(() => decodeURIComponent(location.hash).includes('word3abcdef'));
  assert.equal(settingsOf(page).tokens[2], 'word3abcdef');
  await assertShowsSettings(page, id);
  // a word renamed changes no number: the table shown is kept with its labels renamed, and the script, the
  // take-apart and the tables' labels all name the new word
  const labels = await weights.evaluate((table) => [table === window.tableBeforeEdit, table.querySelectorAll('thead th')[2].textContent, table.querySelectorAll('tbody th')[2].textContent]);
  assert.deepEqual(labels, [true, 'word3abcdef', 'word3abcdef']);
  assert.match(await step.getAttribute('data-python'), /word3abcdef/);
  await weights.locator('td.cell[data-index="0,0,2,1"]').click();
  await page.waitForFunction(() => document.getElementById('take-apart').textContent.includes('“word3abcdef”'));

  // at the top of the step the weights are off screen, and the scores' table below their small maps: drawn
  // after the rest, busy until then
  const offScreen = await page.evaluate(async () => {
    window.scrollTo(0, 0);
    // the page learns what is on screen from an IntersectionObserver: once one of ours has reported after the
    // scroll, the page's has too (the browser notifies every observer in one task, which the timeout waits out)
    await new Promise((reported) => {
      const watch = new IntersectionObserver(() => {
        watch.disconnect();
        setTimeout(reported);
      });
      watch.observe(document.querySelector('#step figure.result[data-tensor]'));
    });
    // a figure by its tensor's name, a table box in a figure as 'name table'
    const named = (el) => (el.matches('figure') ? el.dataset.tensor : `${el.closest('figure').dataset.tensor} table`);
    window.drawnLater = new Set();
    new MutationObserver((seen) => seen.forEach(({ target }) => target.getAttribute('aria-busy') === 'true' && window.drawnLater.add(named(target))))
      .observe(document.getElementById('step'), { subtree: true, attributeFilter: ['aria-busy'] });
    // the 256 drawn numbers in the settings are written after the frame too
    window.settingsBusy = false;
    new MutationObserver(() => (window.settingsBusy ||= document.querySelector('.inputs-table[aria-busy="true"]') !== null))
      .observe(document.getElementById('settings'), { subtree: true, attributeFilter: ['aria-busy'] });
    const off = (el) => {
      const { top, bottom } = el.getBoundingClientRect();
      return bottom < 0 || top > innerHeight;
    };
    const figures = [...document.querySelectorAll('#step figure.result[data-tensor]')];
    return [...figures.filter(off), ...figures.filter((figure) => !off(figure)).flatMap((figure) => [...figure.querySelectorAll('.matrix-box.is-big')].filter(off))]
      .map(named).sort();
  });
  assert.deepEqual(offScreen, ['mha_scores table', 'mha_weights'], 'the weights are off screen, and the scores’ table');
  await page.locator('#inputSeed').selectText();
  await page.keyboard.type('4242', { delay: 0 });
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('inputSeed') === '4242');
  assert.equal(settingsOf(page).inputSeed, 4242);
  await assertShowsSettings(page, id);
  await assertCellsShowValues(page, id);
  assert.deepEqual(await page.evaluate(() => [...window.drawnLater].sort()), offScreen);
  await page.waitForFunction(() => !document.querySelector('.inputs-table[aria-busy="true"]'));
  const drawnNumbers = await page.evaluate(() => [window.settingsBusy, [...document.querySelectorAll('.inputs-table td.drawn-num')].map((td) => td.textContent)]);
  const inputs = (await reference(settingsOf(page))).inputs.values.flat().map((v) => v.toFixed(2));
  assert.deepEqual(drawnNumbers, [true, inputs], 'the settings show the numbers drawn with seed 4242, written after the frame');
  await assertSameAsDrawnWhole(page, id);
  assertNoProblems(page);
  await closePage(page);
});

test('16 heads: only the picked head’s table is built; a scrolled table names its columns off screen', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844 });
  await openAt(page, env.base, 'mha-weights', BIG);
  const figure = page.locator(`${stepSelector('mha-weights')} figure[data-tensor="mha_weights"]`);
  assert.equal(await figure.locator('table.matrix').count(), 1, 'one table: the picked head’s');
  const box = figure.locator('.matrix-box').first();
  const cue = box.locator('.offscreen-columns');
  await page.waitForFunction((el) => el.textContent.startsWith('Off screen:'), await cue.elementHandle());
  // the cue names the columns whose heads are out of the box, and changes when the table scrolls
  const outOfBox = () => box.evaluate((b) => {
    const { left, right } = b.getBoundingClientRect();
    return [...b.querySelectorAll('thead th')].filter((th) => th.getBoundingClientRect().right > right + 1 || th.getBoundingClientRect().left < left - 1).map((th) => th.textContent);
  });
  const atStart = await outOfBox();
  assert.ok(atStart.length > 0 && atStart.length < 16);
  const text = await cue.textContent();
  assert.ok(text.startsWith('Off screen: ') && text.includes(atStart[0]) && text.includes(atStart.at(-1)), text);
  const before = await cue.textContent();
  await box.evaluate((b) => b.scrollTo(b.scrollWidth, 0));
  await page.waitForFunction(([el, text]) => el.textContent !== text, [await cue.elementHandle(), before]);
  const atEnd = await outOfBox();
  assert.ok(atEnd.length > 0 && atEnd[0] !== atStart[0]);
  assert.match(await cue.textContent(), new RegExp(`^Off screen: ${atEnd[0]}`));
  assertNoProblems(page);
  await closePage(page);
});

test('a table of 1,024 columns draws 32 with a button that draws them all', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'wrapper', BIG);
  const figure = page.locator(`${stepSelector('wrapper')} figure[data-tensor="wrapper_out"]`);
  const table = figure.locator('table.matrix').first();
  assert.equal(await table.locator('tbody tr').first().locator('td.cell').count(), 32);
  const cuts = await figure.locator('.columns-cut').count();
  const cut = figure.locator('.columns-cut').first();
  assert.match(await cut.textContent(), /Only columns 0–31 of 1,024 are drawn/);
  await cut.getByRole('button', { name: 'Draw all 1,024 columns' }).click();
  const full = figure.locator('table.matrix').first();
  await full.locator('tbody tr').first().locator('td.cell').nth(1023).waitFor({ state: 'attached' });
  assert.equal(await full.locator('tbody tr').first().locator('td.cell').count(), 1024);
  assert.equal(await figure.locator('.columns-cut').count(), cuts - 1, 'that table is whole, the others still cut');
  assertNoProblems(page);
  await closePage(page);
});

test('taking apart a weight of head 5 builds head 5 of the scores and outlines the scores it came from', async () => {
  const page = await newPage(env.browser);
  await openAt(page, env.base, 'mha-weights', BIG);
  const step = page.locator(stepSelector('mha-weights'));
  const weights = step.locator('figure[data-tensor="mha_weights"]');
  const scores = step.locator('figure[data-tensor="mha_scores"]');
  assert.equal(await scores.locator('td.cell').first().getAttribute('data-index'), '0,0,0,0', 'the scores show head 0');
  // an edit updates the tables in place (the same elements), and the head picker then draws the new numbers
  await weights.locator('table.matrix').evaluate((table) => (window.tableBeforeEdit = table));
  await page.locator('#inputSeed').fill('4321');
  await page.waitForFunction(() => new URLSearchParams(location.hash.slice(1)).get('inputSeed') === '4321');
  assert.ok(await weights.locator('table.matrix').evaluate((table) => table === window.tableBeforeEdit), 'the table is updated in place');
  await weights.locator('.head-pick[data-head="5"]').click();
  const expected = (await reference(settingsOf(page))).mha_weights.values[0][5][3];
  const shown = await weights.locator('td.cell[data-index^="0,5,3,"] .num').evaluateAll((nums) => nums.map((n) => Number(n.textContent.replace('−', '-'))));
  assert.ok(shown.every((v, k) => Math.abs(v - expected[k]) < 1e-4), `head 5 row 3 after the edit: ${shown} vs ${expected}`);
  await weights.locator('td.cell[data-index="0,5,3,2"]').click();
  // weights[0, 5, 3, :] come from scores[0, 5, 3, 0..3]: that head is built, with those four cells outlined
  await scores.locator('td.cell.is-operand').first().waitFor();
  const outlined = await scores.locator('td.cell.is-operand').evaluateAll((cells) => cells.map((c) => c.dataset.index));
  assert.deepEqual(outlined, ['0,5,3,0', '0,5,3,1', '0,5,3,2', '0,5,3,3']);
  assert.equal(await scores.locator('.head-pick[data-head="5"]').getAttribute('aria-pressed'), 'true');
  assert.equal(await weights.locator('td.cell[data-index="0,5,3,2"]').getAttribute('aria-describedby'), 'take-apart', 'the cell taken apart stays open');
  assertNoProblems(page);
  await closePage(page);
});

test('a table of more than 1,000 elements writes its cells as PyTorch prints the whole tensor (profile="full")', async () => {
  // typed inputs where one number in seven is 5000: the queries span far more than 1000x, so PyTorch's format
  // for all 2,048 of them is scientific (its summarised printout shows only a few and may choose otherwise)
  const settings = { ...BIG, inputs: 'typed', embeddings: Array.from({ length: 16 }, (_, i) => Array.from({ length: 16 }, (__, j) => ((i * 16 + j) % 7 === 0 ? 5000 : (j + 1) / 100))) };
  const torch = await loadAttention();
  const queries = computeChapter(torch, settings).mha_queries.tensor;
  torch.setPrintOptions({ profile: 'full' });
  const full = queries.toString();
  torch.setPrintOptions({ profile: 'default' });
  const expected = printedElements(null, full);
  assert.equal(expected.length, 2048);
  assert.ok(expected.every((t) => /e[+-]\d+$/.test(t)), 'PyTorch writes every element in scientific notation');

  const page = await newPage(env.browser);
  await openAt(page, env.base, 'mha-split', settings);
  const cells = await page.locator(`${stepSelector('mha-split')} figure[data-tensor="mha_queries"] td.cell`).evaluateAll((tds) =>
    tds.map((td) => [td.dataset.index.split(',').map(Number), td.querySelector('.num').textContent]));
  assert.ok(cells.length > 0);
  const wrong = cells.filter(([[b, t, c], text]) => text.replace('−', '-') !== expected[(b * 16 + t) * 64 + c]);
  assert.deepEqual(wrong.slice(0, 3), [], `${wrong.length} of ${cells.length} cells differ from PyTorch's full printout`);
  assertNoProblems(page);
  await closePage(page);
});
