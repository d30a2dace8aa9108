// Small things a learner meets on the page: a link to a step the page does not have is named in the notice
// (the first step shown, the link's settings kept); the contents show the current step when they open, in the
// sticky column at 1280 px and through the header's Contents at 390 px; and the settings form shows every
// drawn and every typed embedding number in full.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { STEPS, assertNoProblems, bookSettings, closePage, formatHash, newPage, siteForTests, waitForStep } from './harness.mjs';

const env = siteForTests();
const noticeText = (page) => page.locator('#notices').textContent();

test('a link to an unknown step names it, shows the first step and keeps the link’s settings', async () => {
  const page = await newPage(env.browser);
  await page.goto(`${env.base}#step=nope&seed=7`);
  await waitForStep(page, STEPS[0].id);
  assert.match(await noticeText(page), /step “nope” is not a step of this page, so the first step is shown/);
  assert.equal(await page.inputValue('#seed'), '7', 'the link’s seed is kept');
  assert.match(page.url(), new RegExp(`#step=${STEPS[0].id}&seed=7$`), 'the address holds what is shown');

  // pasted over the page, with the book's settings: named too
  await page.evaluate(() => { location.hash = '#step=dropout-nope'; });
  await page.waitForFunction(() => !location.hash.includes('nope'));
  assert.match(await noticeText(page), /step “dropout-nope” is not a step of this page/);
  assertNoProblems(page);
  await closePage(page);
});

/** Whether the current step's link lies inside the contents' own box and inside the window. */
const currentInView = (page) =>
  page.evaluate(() => {
    const toc = document.querySelector('#toc');
    const link = toc.querySelector('a[aria-current="step"]');
    const box = toc.getBoundingClientRect();
    const at = link.getBoundingClientRect();
    return at.top >= Math.max(box.top, 0) && at.bottom <= Math.min(box.bottom, innerHeight);
  });

test('at 1280 × 800, the contents column scrolls to the current step, on opening a link and on moving', async () => {
  const page = await newPage(env.browser, { width: 1280, height: 800 });
  // far down the contents (the last few steps' links stay below the window until the page scrolls: the
  // column starts below the header and is as tall as the window)
  const late = STEPS.at(-4).id;
  await page.goto(env.base + formatHash(late, bookSettings()));
  await waitForStep(page, late);
  assert.ok(await page.evaluate(() => document.querySelector('#toc').scrollHeight > document.querySelector('#toc').clientHeight), 'the contents scroll in a box of their own at this size');
  assert.ok(await currentInView(page), `${late} is in view in the contents`);
  await page.screenshot({ path: 'test-results/small-things-toc-1280.png' });
  // and back at the first step, through its link in the contents
  await page.click(`#toc a[data-step-link="${STEPS[0].id}"]`);
  await waitForStep(page, STEPS[0].id);
  assert.ok(await currentInView(page), `${STEPS[0].id} is in view in the contents`);
  assertNoProblems(page);
  await closePage(page);
});

test('at 390 × 844, Contents opens at the current step and focuses its link', async () => {
  const page = await newPage(env.browser, { width: 390, height: 844 });
  const step = STEPS[30].id;
  await page.goto(env.base + formatHash(step, bookSettings()));
  await waitForStep(page, step);
  await page.click('#jump-toc');
  await page.waitForFunction(() => document.activeElement?.matches('#toc a[aria-current="step"]'));
  await page.waitForFunction(() => {
    const at = document.querySelector('#toc a[aria-current="step"]').getBoundingClientRect();
    return at.top >= 0 && at.bottom <= innerHeight;
  });
  assert.ok(await currentInView(page), `${step} is in view after Contents`);
  assert.equal(await page.getAttribute('#toc a[aria-current="step"]', 'tabindex'), null, 'the link stays in the Tab order');
  await page.screenshot({ path: 'test-results/small-things-toc-390.png' });
  assertNoProblems(page);
  await closePage(page);
});

for (const [width, height] of [[1280, 800], [390, 844]]) {
  test(`at ${width} × ${height}, the settings show every drawn number in full`, async () => {
    const page = await newPage(env.browser, { width, height });
    // randn draws negative numbers, whose minus sign made them the widest
    const settings = { ...bookSettings(), inputs: 'randn', inputSeed: 5, tokens: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], embeddings: Array.from({ length: 8 }, () => [0, 0, 0, 0, 0, 0]) };
    await page.goto(env.base + formatHash('embeddings', settings));
    await waitForStep(page, 'embeddings');
    if (width < 1200) await page.click('#open-settings');
    const cut = await page.evaluate(() =>
      [...document.querySelectorAll('.inputs-table.is-drawn td.drawn-num')].map((cell) => ({ id: cell.id, value: cell.textContent, cut: cell.scrollWidth > cell.clientWidth })),
    );
    assert.equal(cut.length, 48, 'every drawn number has its cell');
    assert.ok(cut.some(({ value }) => value.startsWith('-')), 'some drawn numbers are negative');
    assert.deepEqual(cut.filter((c) => c.cut).map(({ id, value }) => `${id} ${value}`), [], 'these drawn numbers are cut');
    await page.locator('.inputs-table').screenshot({ path: `test-results/small-things-drawn-${width}.png` });
    assertNoProblems(page);
    await closePage(page);
  });
}

/** How the typed number in field `id` shows: whole or cut, its column's widths, any field cut, the table's box. */
const typedField = (page, id) => page.evaluate((id) => {
  const field = document.getElementById(id);
  const box = document.querySelector('.inputs-box');
  const column = [...document.querySelectorAll(`.inputs-table input[id$="-${id.split('-')[2]}"].num-input`)].map((f) => f.getBoundingClientRect().width);
  return {
    scroll: field.scrollWidth,
    client: field.clientWidth,
    columnWidths: new Set(column).size,
    cut: [...box.querySelectorAll('input')].filter((f) => f.scrollWidth > f.clientWidth).map((f) => `${f.id} ${f.value}`),
    overflows: box.scrollWidth > box.clientWidth + 1,
    cue: box.classList.contains('is-scrollable'),
  };
}, id);

/** Whether the box's scroll cue is `on` within 5 s (the table's size is observed a frame after it changes). */
const cueSettles = (page, on) =>
  page.waitForFunction((on) => document.querySelector('.inputs-box').classList.contains('is-scrollable') === on, on, { timeout: 5000 })
    .then(() => true, () => false);

/** Types `value` into field `id` and waits until the address holds it and the box's cue is as `scrolls` expects. */
async function typeNumber(page, id, value, scrolls) {
  await page.fill(`#${id}`, value);
  await page.waitForFunction((v) => location.hash.includes(v), value);
  await cueSettles(page, scrolls); // what it settled on is asserted by the caller
}

test('typed numbers are shown whole at 1280 × 800 and in the drawer at 390 × 844; at 1280 px the table fits with one of PyTorch’s printed numbers, and a longer one scrolls it with the cue', async () => {
  const page = await newPage(env.browser, { width: 1280, height: 800 });
  await page.goto(env.base + formatHash('embeddings', bookSettings()));
  await waitForStep(page, 'embeddings');
  const last = 'x-0-2'; // the last column, the one a scrolling table's faded edge covers
  const fits = async (what) => {
    const seen = await typedField(page, last);
    assert.deepEqual(seen.cut, [], `${what}: fields cut`);
    assert.ok(!seen.overflows && !seen.cue, `${what}: the table fits its box with no scroll cue`);
    return seen;
  };
  await fits('1280 px, the book’s numbers');

  await typeNumber(page, last, '-0.8819', false); // PyTorch's 4 decimals and a sign
  let seen = await fits('1280 px, -0.8819');
  assert.ok(seen.scroll <= seen.client, `1280 px: -0.8819 needs ${seen.scroll} px in a field ${seen.client} px wide`);
  assert.equal(seen.columnWidths, 1, '1280 px: the fields of its column are as wide as it');
  await page.locator('.inputs-box').screenshot({ path: 'test-results/small-things-typed-1280.png' });

  // longer than the settings column can show beside the other columns: whole, and the box says that it scrolls
  const long = '-0.123456789';
  await typeNumber(page, last, long, true);
  seen = await typedField(page, last);
  assert.ok(seen.scroll <= seen.client, `1280 px: ${long} needs ${seen.scroll} px in a field ${seen.client} px wide`);
  assert.deepEqual(seen.cut, [], '1280 px, a long number: fields cut');
  assert.ok(seen.overflows, `the table is wider than the settings column at 1280 px with ${long} (the cue is exercised)`);
  assert.equal(await page.locator('.inputs-box > .scroll-hint').textContent(), 'Scroll sideways for more columns');
  assert.ok(await page.locator('.inputs-box > .scroll-hint').isVisible());
  await page.locator('.inputs-box').screenshot({ path: 'test-results/small-things-typed-long-1280.png' });

  // in the drawer at 390 px, where the book's size still fits (one page, resized)
  await page.setViewportSize({ width: 390, height: 844 });
  await page.click('#open-settings');
  await page.locator(`#${last}`).waitFor({ state: 'visible' });
  await cueSettles(page, false);
  seen = await fits(`390 px, ${long}`);
  assert.ok(seen.scroll <= seen.client, `390 px: ${long} needs ${seen.scroll} px in a field ${seen.client} px wide`);
  assert.equal(seen.columnWidths, 1, '390 px: the fields of its column are as wide as it');
  await typeNumber(page, 'x-0-0', '-0.8819', false);
  seen = await fits('390 px, -0.8819 and a long number');
  await page.locator('.inputs-box').screenshot({ path: 'test-results/small-things-typed-390.png' });
  assertNoProblems(page);
  await closePage(page);
});
