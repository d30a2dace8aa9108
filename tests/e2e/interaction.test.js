// The page as a reader drives it: deep links and history, the keyboard alone, editing an embedding and
// resetting, switching the dropout masks to Intel MKL's, and token words that look like HTML.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { parseHash } from '../../web/state.js';
import { matchesBook } from '../../web/compare.js';
import {
  artifacts,
  assertNoProblems,
  BOOK_PRINTS,
  bookSettings,
  closePage,
  controlValue,
  formatHash,
  newPage,
  openAt,
  readTensors,
  reference,
  sameNumbers,
  setControl,
  siteForTests,
  STEPS,
  stepSelector,
  stepsShowing,
  tensorMark,
  tensorValues,
  waitForStep,
  waitForValuesChange,
} from './harness.mjs';

const env = siteForTests();

const hashOf = (page) => new URL(page.url()).hash;
const stepOfUrl = (page) => parseHash(hashOf(page)).step;

/** Every tensor of a step equals computeChapter(settings); returns how many were compared. */
async function assertStepComputedWith(page, stepId, settings) {
  const ref = await reference(settings);
  const tensors = await readTensors(page, stepId);
  assert.ok(tensors.some((x) => Array.isArray(x.values) && x.values.length > 0), `step ${stepId} shows no numbers`);
  const wrong = tensors.filter((x) => ref[x.name]?.tensor && !sameNumbers(x.values, ref[x.name].values)).map((x) => x.name);
  assert.deepEqual(wrong, [], `step ${stepId}: tensors not computed with the link's settings`);
}

/** The settings inputs show these settings. */
async function assertInputsShow(page, s) {
  const num = async (sel) => Number(await controlValue(page, sel));
  assert.equal(await num('#seed'), s.seed, '#seed');
  assert.equal(await num('#seedV2'), s.seedV2, '#seedV2');
  assert.equal(await num('#p'), s.p, '#p');
  assert.equal(await num('#d_out'), s.d_out, '#d_out');
  assert.equal(await num('#heads'), s.heads, '#heads');
  const bias = await controlValue(page, '#qkv_bias');
  assert.equal(typeof bias === 'boolean' ? bias : bias === '1' || bias === 'true', s.qkv_bias, '#qkv_bias');
  const profile = await controlValue(page, '#profile');
  assert.equal(typeof profile === 'boolean' ? (profile ? 'mkl' : 'default') : profile, s.profile, '#profile');
  for (let i = 0; i < 6; i++) {
    assert.equal(await controlValue(page, `#token-${i}`), s.tokens[i], `#token-${i}`);
    for (let j = 0; j < 3; j++) assert.equal(await num(`#x-${i}-${j}`), s.embeddings[i][j], `#x-${i}-${j}`);
  }
}

/** The book mark of a tensor once it has become `expected` (or whatever it is after a few seconds). */
async function settledMark(page, stepId, name, expected) {
  for (let i = 0; i < 30; i++) {
    const mark = await tensorMark(page, stepId, name);
    if (mark === expected) return mark;
    await page.waitForTimeout(100);
  }
  return tensorMark(page, stepId, name);
}

async function inViewport(page, stepId) {
  return page.locator(stepSelector(stepId)).first().evaluate((el) => {
    const r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight && r.right > 0 && r.left < window.innerWidth;
  });
}

test('deep link: the inputs show the link settings, the step is shown, history restores steps', async () => {
  const page = await newPage(env.browser);
  const settings = bookSettings();
  Object.assign(settings, { seed: 7, seedV2: 5, p: 0.25, d_out: 4, heads: 2, qkv_bias: true, profile: 'mkl' });
  settings.tokens = ['Cats', 'chase', 'small', 'red', 'laser', 'dots'];
  settings.embeddings[2] = [0.1, 0.2, 0.3];
  settings.embeddings[5][1] = 0.95;

  // the dropout step depends on every setting; any step but the last will do
  const dropout = STEPS.findIndex((s) => s.show.includes('dropout_weights'));
  const step = STEPS[dropout >= 0 && dropout < STEPS.length - 1 ? dropout : Math.floor((STEPS.length - 1) / 2)];
  const link = env.base + formatHash(step.id, settings);
  console.log(`deep link: ${link}`);
  await page.goto(link);
  await waitForStep(page, step.id);
  assert.ok(await inViewport(page, step.id), `step ${step.id} is not in the viewport after opening the link`);
  await assertInputsShow(page, settings);
  await assertStepComputedWith(page, step.id, settings);

  if (STEPS.length > 1) {
    const next = STEPS[STEPS.indexOf(step) + 1];
    await page.click('#next');
    await waitForStep(page, next.id);
    assert.equal(stepOfUrl(page), next.id, 'the hash follows #next');
    assert.deepEqual(parseHash(hashOf(page)).settings, settings, 'the settings stay in the hash');
    assert.ok(await inViewport(page, next.id));
    await assertStepComputedWith(page, next.id, settings);

    await page.goBack();
    await waitForStep(page, step.id);
    assert.equal(stepOfUrl(page), step.id, 'back: the hash names the previous step');
    assert.ok(await inViewport(page, step.id), 'back: the previous step is in the viewport');
    await assertInputsShow(page, settings);
    await assertStepComputedWith(page, step.id, settings);

    await page.goForward();
    await waitForStep(page, next.id);
    assert.equal(stepOfUrl(page), next.id, 'forward: the hash names the next step');
    assert.ok(await inViewport(page, next.id), 'forward: the next step is in the viewport');
    await assertInputsShow(page, settings);

    await page.click('#prev');
    await waitForStep(page, step.id);
    assert.equal(stepOfUrl(page), step.id, 'the hash follows #prev');
  }

  // the table of contents links every step, with the same settings, and takes the reader there
  const links = await page.evaluate(() => [...document.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href')));
  for (const s of STEPS) {
    const href = links.find((l) => parseHash(l).step === s.id);
    assert.ok(href, `no contents link to step ${s.id}`);
    assert.deepEqual(parseHash(href).settings, settings, `the contents link to ${s.id} keeps the settings`);
  }
  const last = STEPS.at(-1);
  const lastHref = links.find((l) => parseHash(l).step === last.id);
  await page.locator(`a[href="${lastHref}"]`).first().click();
  await waitForStep(page, last.id);
  assert.equal(stepOfUrl(page), last.id, 'a contents link shows its step');
  assert.ok(await inViewport(page, last.id));
  await page.goBack();
  await waitForStep(page, step.id);
  assert.equal(stepOfUrl(page), step.id, 'back after a contents link');
  assertNoProblems(page);
  await closePage(page);
});

/** What the focused element is, and whether its focus is drawn. */
async function focusInfo(page) {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return { none: true };
    const style = getComputedStyle(el);
    const outline = style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0;
    const shadow = style.boxShadow && style.boxShadow !== 'none';
    const cell = el.closest('[data-tensor]');
    return {
      none: false,
      id: el.id,
      tag: el.tagName,
      focusVisible: el.matches(':focus-visible'),
      drawn: outline || shadow,
      tensor: cell ? cell.getAttribute('data-tensor') : null,
      inStep: el.closest('[data-step][data-section]')?.getAttribute('data-step') ?? null,
      text: el.textContent.trim().slice(0, 40),
    };
  });
}

test('keyboard only: Tab focuses with a visible ring, ArrowRight/ArrowLeft and Enter step, a cell takes its number apart', async () => {
  assert.ok(STEPS.length >= 3, 'needs at least three steps');
  const page = await newPage(env.browser);
  await openAt(page, env.base, STEPS[0].id);

  await page.keyboard.press('Tab');
  let f = await focusInfo(page);
  assert.ok(!f.none, 'Tab focuses something');
  assert.ok(f.focusVisible && f.drawn, `the first Tab stop shows its focus: ${JSON.stringify(f)}`);

  // the arrow keys step, wherever focus is (outside text fields)
  await page.keyboard.press('ArrowRight');
  await waitForStep(page, STEPS[1].id);
  assert.equal(stepOfUrl(page), STEPS[1].id, 'ArrowRight goes to the second step');
  await page.keyboard.press('ArrowLeft');
  await waitForStep(page, STEPS[0].id);
  assert.equal(stepOfUrl(page), STEPS[0].id, 'ArrowLeft goes back');
  await page.keyboard.press('ArrowRight');
  await waitForStep(page, STEPS[1].id);

  // Tab to #next and press Enter
  for (let i = 0; i < 200 && (await focusInfo(page)).id !== 'next'; i++) await page.keyboard.press('Tab');
  f = await focusInfo(page);
  assert.equal(f.id, 'next', '#next is reachable with Tab');
  assert.ok(f.focusVisible && f.drawn, `#next shows its focus: ${JSON.stringify(f)}`);
  await page.keyboard.press('Enter');
  await waitForStep(page, STEPS[2].id);
  assert.equal(stepOfUrl(page), STEPS[2].id, 'Enter on #next goes to the third step');

  // on with ArrowRight to a step with a matrix, then Tab to a cell that takes its number apart
  const target = STEPS.find((s, k) => k >= 2 && s.show.includes('attn_scores')) ?? STEPS[2];
  for (let k = 3; k <= STEPS.indexOf(target); k++) {
    await page.keyboard.press('ArrowRight');
    await waitForStep(page, STEPS[k].id);
  }
  assert.equal(stepOfUrl(page), target.id, `ArrowRight reaches step ${target.id}`);
  const ref = await reference();
  const explainable = new Set(target.show.filter((n) => typeof ref[n]?.explain === 'function'));
  assert.ok(explainable.size > 0, `step ${target.id} has no result with a take-apart text`);
  // every take-apart line any cell of those results can show
  const lines = new Set([...explainable].flatMap((n) => [...allExplainLines(ref[n])]));
  const shownBefore = await page.evaluate(() => document.body.innerText);

  await page.keyboard.press('Tab');
  for (let i = 0; i < 300; i++) {
    f = await focusInfo(page);
    if (f.tensor && explainable.has(f.tensor) && f.inStep === target.id) break;
    await page.keyboard.press('Tab');
  }
  assert.ok(f.tensor && explainable.has(f.tensor), `no cell of ${[...explainable]} on step ${target.id} is reachable with Tab (last focus ${JSON.stringify(f)})`);
  assert.ok(f.focusVisible && f.drawn, `the focused cell shows its focus: ${JSON.stringify(f)}`);
  await page.waitForTimeout(100);
  const shown = await page.evaluate(() => document.body.innerText);
  const newLines = [...lines].filter((l) => shown.includes(l) && !shownBefore.includes(l));
  await page.screenshot({ path: `${artifacts}keyboard-cell.png` });
  assert.ok(newLines.length > 0, `focusing a cell of ${f.tensor} shows none of its take-apart lines, e.g. ${[...lines][0]}`);
  console.log(`focused ${f.tensor} cell "${f.text}" shows: ${newLines.join(' | ')}`);
  assertNoProblems(page);
  await closePage(page);
});

/** Every take-apart line any cell of a result can show (computed in Node). */
function allExplainLines(result) {
  const lines = new Set();
  const each = (shape, prefix) =>
    shape.length === 0 ? result.explain(prefix).forEach((l) => lines.add(l)) : [...Array(shape[0]).keys()].forEach((i) => each(shape.slice(1), [...prefix, i]));
  each(result.shape, []);
  return lines;
}

test('hovering, then clicking, a matrix cell shows its take-apart text', async () => {
  const [step] = stepsShowing('attn_weights');
  assert.ok(step, 'no step shows attn_weights');
  const page = await newPage(env.browser);
  await openAt(page, env.base, step.id);
  const lines = allExplainLines((await reference()).attn_weights);
  const text = () => page.evaluate(() => document.body.innerText);
  const newLines = (now, before) => [...lines].filter((l) => now.includes(l) && !before.includes(l));
  // the cells are the focusable elements of the matrix
  const cells = page.locator(`${stepSelector(step.id)} [data-tensor="attn_weights"] [tabindex]`);
  assert.ok((await cells.count()) >= 36, 'the 6x6 attn_weights has focusable cells');
  const before = await text();
  await cells.nth(7).hover();
  await page.waitForTimeout(100);
  const hovered = newLines(await text(), before);
  assert.ok(hovered.length > 0, 'hovering a cell shows none of its take-apart lines');
  await page.mouse.move(0, 0);
  await page.waitForTimeout(100);
  const away = await text();
  await cells.nth(14).click();
  await page.waitForTimeout(100);
  const clicked = newLines(await text(), away);
  assert.ok(clicked.length > 0, 'clicking a cell shows none of its take-apart lines');
  await page.screenshot({ path: `${artifacts}take-apart-click.png` });
  assertNoProblems(page);
  await closePage(page);
});

test('editing embedding x[1][0] changes attn_scores and drops the book mark; #reset restores it', async () => {
  const [step] = stepsShowing('attn_scores');
  assert.ok(step, 'no step shows attn_scores');
  assert.ok(BOOK_PRINTS.attn_scores, 'the book prints attn_scores');
  const page = await newPage(env.browser);
  await openAt(page, env.base, step.id);
  const original = await tensorValues(page, step.id, 'attn_scores');
  assert.ok(matchesBook(original, BOOK_PRINTS.attn_scores), 'book values before the edit');
  assert.equal(await tensorMark(page, step.id, 'attn_scores'), 'match');

  await setControl(page, '#x-1-0', '0.9');
  const edited = await waitForValuesChange(page, step.id, 'attn_scores', JSON.stringify(original));
  const settings = bookSettings();
  settings.embeddings[1][0] = 0.9;
  const ref = await reference(settings);
  assert.ok(sameNumbers(edited, ref.attn_scores.values), `attn_scores after the edit: ${JSON.stringify(edited)}`);
  assert.ok(!matchesBook(edited, BOOK_PRINTS.attn_scores));
  assert.equal(await settledMark(page, step.id, 'attn_scores', 'differs'), 'differs', 'the mark after the edit');
  assert.equal(parseHash(hashOf(page)).settings.embeddings[1][0], 0.9, 'the hash carries the edit');
  await page.screenshot({ path: `${artifacts}edited-embedding.png` });

  await page.click('#reset');
  const restored = await waitForValuesChange(page, step.id, 'attn_scores', JSON.stringify(edited));
  assert.ok(sameNumbers(restored, original), 'attn_scores after #reset');
  assert.equal(await settledMark(page, step.id, 'attn_scores', 'match'), 'match', 'the mark after #reset');
  assert.equal(Number(await controlValue(page, '#x-1-0')), 0.55, '#x-1-0 after #reset');
  assert.equal(parseHash(hashOf(page)).step, step.id, '#reset keeps the step');
  assert.ok(!hashOf(page).includes('x='), `the hash after #reset has no embeddings: ${hashOf(page)}`);
  // Reset again at the book's settings: nothing to undo, so no new history entry
  const entries = await page.evaluate(() => history.length);
  await page.click('#reset'); // its handler writes the hash at once, in the click
  assert.equal(await page.evaluate(() => history.length), entries, 'a reset that changes nothing adds no history entry');
  assertNoProblems(page);
  await closePage(page);
});

test('profile mkl changes the 3.5.2 dropout masks (row 0 all kept) and marks them as differing', async () => {
  const [step] = stepsShowing('dropout_ones');
  assert.ok(step, 'no step shows dropout_ones');
  assert.equal(step.section, '3.5.2');
  const page = await newPage(env.browser);
  await openAt(page, env.base, step.id);
  const byDefault = await tensorValues(page, step.id, 'dropout_ones');
  assert.equal(await tensorMark(page, step.id, 'dropout_ones'), 'match');

  await setControl(page, '#profile', 'mkl');
  const mkl = await waitForValuesChange(page, step.id, 'dropout_ones', JSON.stringify(byDefault));
  assert.ok(!sameNumbers(mkl, byDefault), 'mkl masks differ from the default ones');
  const flat = mkl.flat(Infinity).map(Number);
  assert.deepEqual(flat.slice(0, 6), [2, 2, 2, 2, 2, 2], 'MKL row 0 of Dropout(0.5)(ones(6,6)) after seed 123');
  const settings = bookSettings();
  settings.profile = 'mkl';
  const ref = await reference(settings);
  assert.ok(sameNumbers(mkl, ref.dropout_ones.values), 'the whole MKL mask');
  assert.equal(await settledMark(page, step.id, 'dropout_ones', 'differs'), 'differs', 'the mark under mkl');
  assert.equal(parseHash(hashOf(page)).settings.profile, 'mkl', 'the hash carries profile=mkl');
  await page.screenshot({ path: `${artifacts}dropout-mkl.png` });
  assertNoProblems(page);
  await closePage(page);
});

// The payload, and one that fits the page's 24-character limit on words.
const PAYLOAD = '<img src=x onerror="window.__pwned=1">';
const SHORT_PAYLOAD = '<img src=x onerror=z()>';

/** Records requests for the image "x" a payload would load. */
function watchImageRequests(page) {
  const seen = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/x') seen.push(r.url());
  });
  return seen;
}

/** The payload did not run as HTML, and the step shows it as text (with what the form says if not). */
async function assertLiteral(page, stepId, payload, xRequests, field) {
  await page
    .waitForFunction(({ sel, text }) => document.querySelector(sel)?.innerText.includes(text), { sel: stepSelector(stepId), text: payload }, { timeout: 3000 })
    .catch(() => {});
  await page.waitForTimeout(300); // an image's onerror would have fired by now
  const state = await page.evaluate(
    ({ sel, text, field }) => ({
      pwned: window.__pwned,
      imgs: [...document.querySelectorAll('img')].filter((i) => i.getAttribute('src') === 'x').length,
      shown: document.querySelector(sel).innerText.includes(text),
      fieldValue: document.querySelector(field)?.value,
      errors: [...document.querySelectorAll('.field-error:not([hidden]), .notice')].map((e) => e.textContent.trim()).filter(Boolean),
    }),
    { sel: stepSelector(stepId), text: payload, field },
  );
  assert.equal(state.pwned, undefined, 'window.__pwned is set: the token ran as HTML');
  assert.equal(state.imgs, 0, 'an <img src=x> was created from the token');
  assert.deepEqual(xRequests, [], 'the page requested the image /x');
  assert.ok(
    state.shown,
    `the word ${JSON.stringify(payload)} (${payload.length} characters) is not shown in step ${stepId}; ` +
      `${field} holds ${JSON.stringify(state.fieldValue)}; the page says: ${JSON.stringify(state.errors)}`,
  );
}

async function literalWordCase(payload) {
  const [step] = stepsShowing('attn_scores');
  assert.ok(step, 'no step shows attn_scores');
  // typed into the first word
  const page = await newPage(env.browser);
  const typedRequests = watchImageRequests(page);
  await openAt(page, env.base, step.id);
  await setControl(page, '#token-0', payload);
  await assertLiteral(page, step.id, payload, typedRequests, '#token-0');
  assertNoProblems(page);
  await closePage(page);
  // the fourth word, from a link
  const settings = bookSettings();
  settings.tokens[3] = payload;
  const linked = await newPage(env.browser);
  const linkRequests = watchImageRequests(linked);
  await openAt(linked, env.base, step.id, settings);
  await assertLiteral(linked, step.id, payload, linkRequests, '#token-3');
  assert.equal(await controlValue(linked, '#token-3'), payload, '#token-3 shows the word from the link');
  assertNoProblems(linked);
  await closePage(linked);
}

test(`the token word ${PAYLOAD} is shown as literal text (typed, and from a link)`, () => literalWordCase(PAYLOAD));

test(`a short HTML-looking word ${SHORT_PAYLOAD} is shown as literal text (typed, and from a link)`, () => literalWordCase(SHORT_PAYLOAD));

test("large embeddings: the hand-written softmax overflows to NaN and the note says why, not 'within NaN'", async () => {
  const page = await newPage(env.browser);
  const settings = bookSettings();
  settings.embeddings = settings.embeddings.map((row) => row.map((v) => v * 100)); // scores ~ 1e4: e^x overflows
  await openAt(page, env.base, 'softmax-torch', settings);
  await waitForStep(page, 'softmax-torch');
  const note = await page.locator(`${stepSelector('softmax-torch')} .step-note`).textContent();
  assert.match(note, /not comparable: one of them holds NaN/);
  assert.doesNotMatch(note, /within NaN/);
  assertNoProblems(page);
  await closePage(page);
});

test('the code shown follows the settings: seeds, d_out, heads, dropout p, qkv_bias, words and embeddings', async () => {
  const page = await newPage(env.browser);
  const settings = { ...bookSettings(), seed: 5, seedV2: 6, d_out: 4, heads: 4, p: 0.2, qkv_bias: true,
    tokens: ['the', 'cat', 'sat', 'on', 'a', 'mat'] };
  settings.embeddings[1] = [0.5, 0.25, 0.125];
  const code = async (id) => {
    await openAt(page, env.base, id, settings);
    await waitForStep(page, id);
    return page.locator(`${stepSelector(id)} .code pre`).textContent();
  };
  assert.match(await code('embeddings'), /\[0\.50, 0\.25, 0\.125\],\s*# cat/);
  const qkv = await code('qkv-weights');
  assert.match(qkv, /d_in, d_out = inputs\.shape\[1\], 4/);
  assert.match(qkv, /torch\.manual_seed\(5\)/);
  assert.doesNotMatch(qkv, /manual_seed\(123\)/);
  assert.match(await code('self-attention-v2'), /torch\.manual_seed\(6\)[\s\S]*SelfAttention_v2\(d_in, d_out, qkv_bias=True\)/);
  assert.match(await code('dropout-ones'), /torch\.nn\.Dropout\(0\.2\)/);
  assert.match(await code('mha-output'), /MultiHeadAttention\(d_in, d_out, batch\.shape\[1\], 0\.0, num_heads=4, qkv_bias=True\)/);
  assertNoProblems(page);
  await closePage(page);
});
