// The learner's notebooks in Chromium: kept as a list in local storage, a step's link opening as a new notebook
// beside theirs (never over it), rename, duplicate, delete with undo, and a second tab on the same notebook.
// None of this waits for Python: the editor is enough.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { readFileSync } from 'node:fs';

import { assertNoProblems, closePage, newPage, seriousViolations, setup } from './harness.mjs';
import { notebookHash } from '../../web/notebook/share.js';
import { cellsForStep } from '../../web/notebook/chapter-cells.js';
import { bookSettings } from '../../web/state.js';
import { readIpynb } from '../../web/notebook/ipynb.js';

const JUPYTER_FILE = new URL('../notebook/jupyter/chapter-start.ipynb', import.meta.url);

let env;
before(async () => { env = await setup(); });
after(() => env?.close());

const EDITOR_TIMEOUT = 30_000;

async function open(page, hash = '') {
  await page.goto(`${env.base}notebook.html${hash}`);
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'editor' || document.documentElement.dataset.ready === 'python',
    null, { timeout: EDITOR_TIMEOUT });
}

/** The notebooks kept in the page's local storage: [{ name, cells: [source] }], the most recent first. */
const stored = (page) => page.evaluate(() => JSON.parse(localStorage.getItem('attention-lab.notebooks') ?? '[]')
  .sort((a, b) => b.changed - a.changed)
  .map((e) => ({ name: e.name, cells: JSON.parse(localStorage.getItem(`attention-lab.notebook.${e.id}`)).cells.map((c) => c.source) })));

/** Each cell's text as its editor shows it (short cells here: CodeMirror draws every line of them). */
const sources = (page) => page.$$eval('.nb-cell', (cells) => cells.map((c) => [...c.querySelector('.nb-editor').shadowRoot.querySelectorAll('.cm-line')].map((l) => l.textContent).join('\n')));

/** Types `text` at the end of cell `n` (1-based) and waits until it is saved. */
async function typeInCell(page, n, text) {
  await page.locator(`.nb-cell[data-cell="${n}"] .cm-content`).click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text);
  await page.waitForFunction((t) => Object.keys(localStorage).some((k) => k.startsWith('attention-lab.notebook.') && localStorage.getItem(k).includes(t)), text.trim());
}

/** Opens the "Your notebooks" list, unless it is open. */
async function openList(page) {
  if (!(await page.evaluate(() => document.getElementById('notebooks').open))) await page.click('#notebooks > summary');
}

const listNames = (page) => page.$$eval('#notebook-list .nb-open', (b) => b.map((e) => e.textContent));

test("a step's link opens as a new notebook beside the learner's, and editing it leaves theirs as it was", async () => {
  const page = await newPage(env.browser);
  await open(page);
  assert.deepEqual((await stored(page)).map((n) => n.name), ['My notebook'], 'a first visit starts one notebook');
  await typeInCell(page, 1, '\nmine = 41');
  const mine = (await stored(page))[0].cells;

  const step = cellsForStep('mha-output', bookSettings());
  await open(page, await notebookHash(step));
  await page.waitForFunction(() => /opened as a new notebook/.test(document.getElementById('notices').textContent));
  assert.deepEqual((await stored(page))[0].cells, step, 'the step opens its own cells');
  assert.equal(await page.locator('.nb-cell').count(), step.length);
  assert.match(await page.textContent('#notices'), /opened as a new notebook, “Chapter 3 up to 3\.6\.2 MultiHeadAttention and its output projection”, beside your 1 other .*nothing of yours was changed/);
  await typeInCell(page, step.length, '\nedited_the_step = 1');

  const kept = await stored(page);
  assert.deepEqual(kept.map((n) => n.name), ['Chapter 3 up to 3.6.2 MultiHeadAttention and its output projection', 'My notebook']);
  assert.deepEqual(kept[1].cells, mine, "the learner's notebook is untouched");
  assert.match(kept[0].cells.at(-1), /edited_the_step = 1$/);

  // Reloading the same link (its cells now edited in the URL) opens that notebook again, not a third one.
  await page.reload();
  await page.waitForFunction(() => document.documentElement.dataset.ready === 'editor' || document.documentElement.dataset.ready === 'python');
  assert.equal((await stored(page)).length, 2);

  // Back to theirs from the list.
  await openList(page);
  assert.deepEqual(await listNames(page), kept.map((n) => n.name));
  assert.equal(await page.getAttribute('#notebook-list li:nth-child(1) .nb-open', 'aria-current'), 'true');
  await page.click('#notebook-list li:nth-child(2) .nb-open');
  await page.waitForFunction(() => document.getElementById('notebook-name').value === 'My notebook');
  assert.deepEqual(await sources(page), mine);
  assertNoProblems(page);
  await closePage(page);
});

test('a notebook kept by the earlier single-notebook page is taken in as “My notebook”', async () => {
  const page = await newPage(env.browser);
  await page.addInitScript(() => {
    if (!localStorage.getItem('attention-lab.notebooks')) localStorage.setItem('attention-lab.notebook', JSON.stringify({ cells: ['old = 1'], profile: 'mkl' }));
  });
  await open(page);
  assert.deepEqual(await stored(page), [{ name: 'My notebook', cells: ['old = 1'] }]);
  assert.equal(await page.inputValue('#profile'), 'mkl');
  assert.equal(await page.evaluate(() => localStorage.getItem('attention-lab.notebook')), null);
  await closePage(page);
});

test('rename, duplicate, and delete with undo', async () => {
  const page = await newPage(env.browser);
  await open(page);
  await page.fill('#notebook-name', 'Scores by hand');
  await page.press('#notebook-name', 'Enter');
  await page.locator('#notebook-name').blur();
  await page.waitForFunction(() => JSON.parse(localStorage.getItem('attention-lab.notebooks'))[0].name === 'Scores by hand');
  assert.equal(await page.title(), 'Scores by hand · Your chapter-3 notebook');

  await page.click('#duplicate');
  await page.waitForFunction(() => document.getElementById('notebook-name').value === 'Scores by hand (copy)');
  await typeInCell(page, 1, '\ncopy_only = 2');
  const [copy, original] = await stored(page);
  assert.equal(copy.name, 'Scores by hand (copy)');
  assert.ok(!original.cells.join('\n').includes('copy_only'), 'the original is unchanged by an edit of its copy');

  await openList(page);
  await page.getByRole('button', { name: 'Delete “Scores by hand (copy)”' }).click();
  await page.waitForFunction(() => document.getElementById('notebook-name').value === 'Scores by hand');
  assert.deepEqual((await stored(page)).map((n) => n.name), ['Scores by hand']);
  // the notice comes once the next notebook is shown, a moment after its name
  await page.locator('#notices', { hasText: '“Scores by hand (copy)” was deleted.' }).waitFor();
  await page.getByRole('button', { name: 'Undo' }).click();
  await page.waitForFunction(() => document.getElementById('notebook-name').value === 'Scores by hand (copy)');
  assert.deepEqual((await stored(page)).map((n) => n.name).sort(), ['Scores by hand', 'Scores by hand (copy)']);
  assert.match((await sources(page)).join('\n'), /copy_only = 2/, 'undo brings back its cells');

  await openList(page);
  await page.click('#new-notebook');
  await page.waitForFunction(() => document.getElementById('notebook-name').value === 'Untitled notebook');
  assert.deepEqual(await sources(page), ['']);
  assert.equal((await stored(page)).length, 3);
  assertNoProblems(page);
  await closePage(page);
});

test('a second tab on the same notebook is told, follows an edit, and asks before replacing what was typed', async () => {
  const first = await newPage(env.browser);
  await open(first);
  const second = await first.context().newPage();
  second.problems = [];
  second.on('pageerror', (error) => second.problems.push(`uncaught: ${error.message}`));
  second.on('console', (msg) => { if (msg.type() === 'error') second.problems.push(`console.error: ${msg.text()}`); });
  await second.goto(first.url());
  await second.waitForFunction(() => ['editor', 'python'].includes(document.documentElement.dataset.ready), null, { timeout: EDITOR_TIMEOUT });
  await first.waitForFunction(() => /also open in another tab/.test(document.getElementById('notices').textContent));
  await second.waitForFunction(() => /also open in another tab/.test(document.getElementById('notices').textContent));

  // An edit in one tab, none in the other: the other shows it.
  await typeInCell(first, 1, '\nfrom_first = 1');
  await second.waitForFunction(() => /from_first = 1/.test(document.querySelector('.nb-editor').shadowRoot.textContent));
  assert.match(await second.textContent('#notices'), /was changed in another tab; its cells here are now that version/);

  // The stored notebook changed by another tab whose message this one missed, then typing here: the
  // learner is asked, and keeping their version makes a new notebook; neither is lost.
  await first.evaluate(() => {
    const list = JSON.parse(localStorage.getItem('attention-lab.notebooks'));
    const key = `attention-lab.notebook.${list[0].id}`;
    const nb = JSON.parse(localStorage.getItem(key));
    nb.cells[0].source += '\nelsewhere = 3';
    list[0].version += 1;
    localStorage.setItem(key, JSON.stringify(nb));
    localStorage.setItem('attention-lab.notebooks', JSON.stringify(list));
  });
  await second.locator('.nb-cell[data-cell="2"] .cm-content').click();
  await second.keyboard.press('Control+End');
  await second.keyboard.type('\nfrom_second = 2');
  await second.getByRole('button', { name: 'Keep mine as a new notebook' }).click();
  await second.waitForFunction(() => / \(this tab\)$/.test(document.getElementById('notebook-name').value));
  // Read where it was written: another tab sees local storage changes a moment later.
  const all = (await stored(second)).map((n) => n.cells.join('\n'));
  assert.ok(all.some((c) => c.includes('from_second = 2')), 'the second tab’s edit is kept');
  assert.ok(all.some((c) => c.includes('elsewhere = 3') && !c.includes('from_second')), 'the other tab’s version is kept as it was');
  assert.equal(all.length, 2);
  assertNoProblems(first);
  assertNoProblems(second);
  await closePage(first);
});

test('.ipynb round trip: a Jupyter file opened by the picker and by a drop, each a new notebook, downloaded back with its cells', async () => {
  const page = await newPage(env.browser);
  await open(page);
  await page.setInputFiles('#ipynb-file', { name: 'chapter-start.ipynb', mimeType: 'application/json', buffer: readFileSync(JUPYTER_FILE) });
  await page.waitForFunction(() => document.getElementById('notebook-name').value === 'chapter-start');
  const jupyter = readIpynb(readFileSync(JUPYTER_FILE, 'utf8'));
  assert.equal(await page.locator('.nb-cell').count(), jupyter.cells.length);
  assert.equal(await page.locator('.nb-cell.is-markdown').count(), 3, 'markdown and raw cells shown as text');
  assert.equal(await page.textContent('.nb-cell[data-cell="1"] .nb-markdown'), jupyter.cells[0].source);
  const kept = JSON.parse(await page.evaluate(() => {
    const list = JSON.parse(localStorage.getItem('attention-lab.notebooks'));
    return localStorage.getItem(`attention-lab.notebook.${list.find((e) => e.name === 'chapter-start').id}`);
  }));
  assert.deepEqual(kept.cells, jupyter.cells, 'each code cell keeps what Jupyter printed, as printed');

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-ipynb')]);
  assert.equal(download.suggestedFilename(), 'chapter-start.ipynb');
  const written = readFileSync(await download.path(), 'utf8');
  const back = readIpynb(written);
  assert.deepEqual(back.cells, jupyter.cells, 'the download reads back to the same cells and outputs');
  assert.equal(JSON.parse(written).nbformat, 4);

  // A file dropped on the page opens too; one that is not a notebook is refused with what is wrong.
  const drop = (name, text) => page.evaluate(([n, t]) => {
    const data = new DataTransfer();
    data.items.add(new File([t], n, { type: 'application/json' }));
    document.getElementById('cells').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
  }, [name, text]);
  await drop('dropped.ipynb', written);
  await page.waitForFunction(() => document.getElementById('notebook-name').value === 'dropped');
  await drop('notes.txt', 'not a notebook');
  await page.waitForFunction(() => /notes\.txt is not a Jupyter notebook: it is not JSON/.test(document.getElementById('notices').textContent));
  assert.equal(await page.evaluate(() => JSON.parse(localStorage.getItem('attention-lab.notebooks')).length), 3);
  assertNoProblems(page);
  await closePage(page);
});

/** The words of the listed names that break across lines (a name breaks between its words). */
const brokenWords = (page) => page.$$eval('#notebook-list .nb-open', (buttons) => buttons.flatMap((button) => {
  const text = button.firstChild;
  return [...text.data.matchAll(/\S+/g)].filter((word) => {
    const range = document.createRange();
    range.setStart(text, word.index);
    range.setEnd(text, word.index + word[0].length);
    return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1;
  }).map((word) => word[0]);
}));

test('the new controls: axe-core finds nothing serious, and at 390 px the page does not scroll sideways, names break between words and the open list pushes the toolbar down', async () => {
  for (const [width, height] of [[1280, 800], [390, 844]]) {
    const page = await newPage(env.browser, { width, height, contextOptions: { bypassCSP: true } });
    await open(page);
    await page.setInputFiles('#ipynb-file', { name: 'chapter-start.ipynb', mimeType: 'application/json', buffer: readFileSync(JUPYTER_FILE) });
    await page.waitForFunction(() => /opened as a new notebook/.test(document.getElementById('notices').textContent));
    const long = 'Chapter 3 up to 3.6.2 MultiHeadAttention and its output projection'; // a step's notebook's name
    await page.fill('#notebook-name', long);
    await page.press('#notebook-name', 'Enter');
    await page.waitForFunction((name) => JSON.parse(localStorage.getItem('attention-lab.notebooks')).some((e) => e.name === name), long);
    await openList(page);
    assert.deepEqual(await brokenWords(page), [], `${width} px: these words of the names break across lines`);
    const [panel, toolbar] = await page.evaluate(() => ['.nb-notebooks-panel', '.nb-toolbar'].map((sel) => document.querySelector(sel).getBoundingClientRect().toJSON()));
    assert.ok(panel.right <= width, `${width} px: the open list runs past the window to ${panel.right} px`);
    if (width < 960) assert.ok(panel.bottom <= toolbar.top, `${width} px: the open list (bottom ${panel.bottom}) covers the toolbar (top ${toolbar.top})`);
    await page.screenshot({ path: `test-results/notebook-library-list-${width}.png` });
    assert.deepEqual(await seriousViolations(page, '#main'), [], `${width} px`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `${width} px: the page scrolls sideways by ${overflow} px`);
    for (const id of ['#notebook-name', '#duplicate', '#open-ipynb', '#download-ipynb', '#new-notebook']) {
      const box = await page.locator(id).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= width, `${id} is on screen at ${width} px`);
    }
    await closePage(page);
  }
});
