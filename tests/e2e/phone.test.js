// The page on a 390 x 844 phone: every step's first numbers (or, on a step that asks first, its question) above
// the step bar without scrolling, tables that
// fit their box or say that they scroll, the settings drawer (at most half the screen, its header above its
// content when scrolled) and the take-apart sheet (a Close button, touch wording), axe-core clean.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  assertNoProblems,
  bookSettings,
  closePage,
  formatHash,
  newPage,
  openAt,
  seriousViolations,
  siteForTests,
  STEPS,
  stepSelector,
  waitForStep,
} from './harness.mjs';

const env = siteForTests();
const PHONE = { width: 390, height: 844 };
// a phone's touch screen: (hover: none) and (pointer: coarse) match
const TOUCH = { hasTouch: true, isMobile: true };

/** The step's first number on screen, its scroll boxes, and the step bar's top. */
function firstScreen(sel) {
  const step = document.querySelector(sel);
  const shown = (el) => el.getClientRects().length > 0;
  const num = [...step.querySelectorAll('[data-tensor] td.cell .num, [data-tensor] .value')].find(shown);
  // an exercise or a prediction posed before the numbers: then it is what the first screen must show
  const ask = [...step.querySelectorAll('section[data-exercise], section[data-predict]')].find(
    (el) => shown(el) && (!num || el.compareDocumentPosition(num) & Node.DOCUMENT_POSITION_FOLLOWING),
  );
  const boxes = [...step.querySelectorAll('.matrix-box')].filter(shown).map((box) => {
    const hint = box.querySelector('.scroll-hint');
    return {
      overflows: box.scrollWidth > box.clientWidth + 1,
      scrollable: box.classList.contains('is-scrollable'),
      fades: getComputedStyle(box).maskImage !== 'none',
      hint: hint && shown(hint) ? hint.textContent : null,
      widerThanStep: box.getBoundingClientRect().right > step.getBoundingClientRect().right + 1,
    };
  });
  return {
    num: num ? { text: num.textContent, bottom: num.getBoundingClientRect().bottom } : null,
    ask: ask ? { what: ask.dataset.exercise ?? ask.dataset.predict, top: ask.getBoundingClientRect().top } : null,
    bar: document.querySelector('.step-nav').getBoundingClientRect().top,
    pageScrolls: document.documentElement.scrollWidth > innerWidth,
    boxes,
  };
}

test('390 x 844: every step shows its first number (or the question it asks first) above the step bar, and every wide table says it scrolls', async () => {
  const page = await newPage(env.browser, PHONE);
  await openAt(page, env.base, STEPS[0].id);
  const off = [];
  const tables = [];
  const asking = [];
  let scrolling = 0;
  for (const step of STEPS) {
    await page.evaluate((hash) => (location.hash = hash), formatHash(step.id, bookSettings()));
    await waitForStep(page, step.id);
    await page.evaluate(() => window.scrollTo(0, 0));
    const seen = await page.evaluate(firstScreen, stepSelector(step.id));
    // a question: at least its title and first lines (120 px) above the bar
    if (seen.ask) asking.push(step.id);
    if (seen.ask ? seen.ask.top > seen.bar - 120 : !seen.num || seen.num.bottom > seen.bar) {
      off.push(`${step.id}: first number ${JSON.stringify(seen.num)}, question ${JSON.stringify(seen.ask)}, step bar at ${seen.bar}`);
    }
    if (seen.pageScrolls) tables.push(`${step.id}: the page scrolls sideways`);
    for (const box of seen.boxes) {
      if (box.widerThanStep) tables.push(`${step.id}: a table box wider than the step`);
      if (!box.overflows) continue;
      scrolling += 1;
      if (!box.scrollable || !box.fades || box.hint !== 'Scroll sideways for more columns') tables.push(`${step.id}: ${JSON.stringify(box)}`);
    }
  }
  assert.deepEqual(off, []);
  assert.deepEqual(tables, []);
  assert.ok(scrolling > 0, 'some book tables are wider than a phone (the cue is exercised)');
  assert.ok(asking.length < STEPS.length / 4, `most steps show numbers first (asking first: ${asking})`);
  console.log(`${STEPS.length} steps (asking first: ${asking.join(', ') || 'none'}); ${scrolling} tables scroll inside their box`);
  assertNoProblems(page);
  await closePage(page);
});

test('a scrolled table fades on the side where columns are hidden', async () => {
  const page = await newPage(env.browser, PHONE);
  await openAt(page, env.base, 'wrapper');
  const box = page.locator(`${stepSelector('wrapper')} .matrix-box.is-scrollable`).first();
  const classes = () => box.evaluate((b) => [b.classList.contains('fade-left'), b.classList.contains('fade-right')]);
  assert.deepEqual(await classes(), [false, true], 'at the start: columns hidden on the right only');
  await box.evaluate((b) => b.scrollTo(b.scrollWidth, 0));
  await page.waitForFunction((sel) => document.querySelector(sel).classList.contains('fade-left'), `${stepSelector('wrapper')} .matrix-box.is-scrollable`);
  assert.deepEqual(await classes(), [true, false], 'scrolled to the end: hidden on the left only');
  assertNoProblems(page);
  await closePage(page);
});

test('the settings drawer covers at most half the screen and keeps its header above its content when scrolled', async () => {
  const page = await newPage(env.browser, { ...PHONE, contextOptions: { bypassCSP: true } });
  await openAt(page, env.base, 'batch');
  await page.click('#open-settings');
  await page.waitForFunction(() => {
    const r = document.querySelector('#settings').getBoundingClientRect();
    return getComputedStyle(document.querySelector('#settings')).visibility === 'visible' && Math.abs(r.bottom - innerHeight) < 1;
  });
  const geometry = async () =>
    page.evaluate(() => {
      const drawer = document.querySelector('#settings');
      const d = drawer.getBoundingClientRect();
      const head = drawer.querySelector('.settings-top').getBoundingClientRect();
      // what is painted at the middle of the header's title and of its Done button
      const title = document.elementFromPoint(head.left + 40, head.top + head.height / 2);
      const done = drawer.querySelector('#close-settings').getBoundingClientRect();
      const atDone = document.elementFromPoint(done.left + done.width / 2, done.top + done.height / 2);
      return {
        share: d.height / innerHeight,
        headAtTop: Math.abs(head.top - d.top) < 2,
        titleOnTop: Boolean(title?.closest('.settings-top')),
        doneOnTop: atDone?.id === 'close-settings' || atDone?.closest('#close-settings') !== null,
        scrollTop: drawer.scrollTop,
        scrolls: drawer.scrollHeight > drawer.clientHeight,
      };
    });
  const closed = await geometry();
  assert.ok(closed.share <= 0.5 + 1e-6, `the drawer covers ${(closed.share * 100).toFixed(1)} % of the screen`);
  assert.ok(closed.scrolls, 'the settings are longer than the drawer (the scrolled case is exercised)');
  for (const y of [200, 600, 100000]) {
    await page.evaluate((top) => (document.querySelector('#settings').scrollTop = top), y);
    const g = await geometry();
    assert.ok(g.scrollTop > 0, 'the drawer scrolled');
    assert.ok(g.headAtTop && g.titleOnTop && g.doneOnTop, `scrolled to ${g.scrollTop}: the header is covered or has moved: ${JSON.stringify(g)}`);
  }
  assert.deepEqual(await seriousViolations(page, '#settings'), []);
  await page.click('#close-settings');
  await page.waitForFunction(() => !document.documentElement.classList.contains('settings-open'));
  assertNoProblems(page);
  await closePage(page);
});

test('the take-apart sheet on a touch screen: touch wording, a Close button that closes it, axe-core clean', async () => {
  const page = await newPage(env.browser, { ...PHONE, contextOptions: { ...TOUCH, bypassCSP: true } });
  await openAt(page, env.base, 'all-weights');
  assert.equal(await page.evaluate(() => matchMedia('(hover: none), (pointer: coarse)').matches), true, 'a touch screen');
  const cell = page.locator(`${stepSelector('all-weights')} [data-tensor="attn_weights"] td[data-index="1,2"]`);
  await cell.tap();
  const panel = page.locator('#take-apart');
  await panel.waitFor();
  const hint = await panel.locator('.ta-hint').textContent();
  assert.doesNotMatch(hint, /Esc|arrow|Click/i, `a touch screen has no Escape key, arrow keys or mouse: "${hint}"`);
  assert.match(hint, /Tap/);
  const close = panel.getByRole('button', { name: 'Close' });
  const size = await close.boundingBox();
  assert.ok(size.width >= 44 && size.height >= 44, `the Close button is a 44 px touch target: ${JSON.stringify(size)}`);
  const sheet = await panel.boundingBox();
  assert.ok(sheet.y + sheet.height <= PHONE.height && sheet.height <= PHONE.height / 2, `the sheet: ${JSON.stringify(sheet)}`);
  // a cell low in its table (under where the sheet opens) is moved above the sheet that explains it
  const low = page.locator(`${stepSelector('all-weights')} [data-tensor="attn_weights"] td[data-index="5,4"]`);
  await low.tap();
  await page.waitForFunction(() => document.querySelector('td.is-open')?.dataset.index === '5,4');
  const [cellBox, sheetBox] = [await low.boundingBox(), await panel.boundingBox()];
  assert.ok(cellBox.y + cellBox.height <= sheetBox.y && cellBox.y >= 0, `the open cell ${JSON.stringify(cellBox)} is under the sheet ${JSON.stringify(sheetBox)}`);
  assert.deepEqual(await seriousViolations(page, '#take-apart'), []);
  await close.tap();
  await panel.waitFor({ state: 'hidden' });
  assert.equal(await page.locator('td.is-open').count(), 0, 'no cell stays marked open');
  // a mouse and keyboard screen keeps the keyboard wording
  const desk = await newPage(env.browser);
  await openAt(desk, env.base, 'all-weights');
  await desk.locator(`${stepSelector('all-weights')} [data-tensor="attn_weights"] td[data-index="1,2"]`).click();
  assert.match(await desk.locator('#take-apart .ta-hint').textContent(), /Esc closes/);
  await desk.locator('#take-apart').getByRole('button', { name: 'Close' }).click();
  await desk.locator('#take-apart').waitFor({ state: 'hidden' });
  assertNoProblems(page);
  assertNoProblems(desk);
  await closePage(page);
  await closePage(desk);
});
