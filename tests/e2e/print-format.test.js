// Cells written as PyTorch prints their tensor: for every tensor the book prints (book/chapter3.json, PyTorch's
// own text), each drawn cell's text is the book's element; the live printout is shown beside the book's; with
// inputs that make PyTorch switch to scientific notation the cells follow the core's printout. The colour scale
// leaves a lone outlier out of its range and says so; a take-apart shows every number its lines use.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  assertNoProblems,
  bookSettings,
  BOOK_PRINTS,
  closePage,
  newPage,
  openAt,
  reference,
  seriousViolations,
  siteForTests,
  stepSelector,
  stepsShowing,
} from './harness.mjs';

const env = siteForTests();

/** The elements of a printed tensor as PyTorch wrote them, row-major ('2.', '0.1455', '-inf', '1.0000e-05'). */
function elementsOf(text) {
  const body = text.slice(text.indexOf('tensor(') + 7).replace(/, (grad_fn|requires_grad)=.*$/s, '');
  return body.match(/-?inf|nan|True|False|-?\d+\.\d*(e[+-]\d+)?/g);
}

/** A cell's text back in PyTorch's spelling (the page sets a real minus sign and ∞). */
const asPyTorch = (text) => text.replace('−', '-').replace('∞', 'inf');

/** Every drawn cell of a result on a step, by its row-major position, with the printouts shown beside it. */
function drawnCells({ sel, name }) {
  const fig = document.querySelector(`${sel} figure[data-tensor="${name}"]`);
  if (!fig) return null;
  const shape = fig.dataset.shape ? fig.dataset.shape.split(',').map(Number) : [];
  const cells = {};
  for (const td of fig.querySelectorAll('td.cell[data-index]')) {
    const index = td.dataset.index === '' ? [] : td.dataset.index.split(',').map(Number);
    cells[index.reduce((at, k, d) => at * shape[d] + k, 0)] = td.querySelector('.num').textContent;
  }
  const printout = (kind) => {
    const pre = fig.querySelector(`.book-print.${kind} pre`);
    return pre && pre.getClientRects().length > 0 && !pre.closest('details:not([open])') ? pre.textContent : null;
  };
  return { cells, live: printout('is-live'), book: printout('is-book') };
}

test("every book tensor's cells read as PyTorch prints them, with the live printout beside the book's", async () => {
  const page = await newPage(env.browser);
  const checked = [];
  const wrong = [];
  for (const [name, text] of Object.entries(BOOK_PRINTS)) {
    const [step] = stepsShowing(name);
    if (!step) continue; // printed by the book but drawn on no step (e.g. an intermediate the chapter re-prints)
    await openAt(page, env.base, step.id);
    const drawn = await page.evaluate(drawnCells, { sel: stepSelector(step.id), name });
    if (!drawn) continue; // shown only behind a switch (a "What if" side)
    const expected = elementsOf(text);
    const positions = Object.keys(drawn.cells).map(Number);
    assert.ok(positions.length > 0, `${name}: no cells drawn`);
    for (const k of positions) {
      if (asPyTorch(drawn.cells[k]) !== expected[k]) wrong.push(`${name}[${k}]: the page writes ${drawn.cells[k]}, PyTorch ${expected[k]}`);
    }
    assert.equal(drawn.book, text, `${name}: the book's printout is shown, unfolded`);
    // with the book's settings the core's str(tensor) is the book's text, down to "Parameter containing:"
    if (drawn.live !== text) wrong.push(`${name}: the live printout reads ${JSON.stringify(drawn.live)}`);
    checked.push(`${name} (${positions.length})`);
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked.length >= 30, `only ${checked.length} book tensors found on the steps`);
  console.log(`${checked.length} book tensors, cell by cell: ${checked.join(', ')}`);
  // the cases the format turns on: int mode where every value is whole, and 4 decimals for 0.99999994
  assert.ok(elementsOf(BOOK_PRINTS.dropout_ones).includes('2.') && elementsOf(BOOK_PRINTS.attn_weights_2_tmp_sum)[0] === '1.0000');
  assertNoProblems(page);
  await closePage(page);
});

test('the printouts show whole lines side by side where they fit, and a box cut on a phone shades the edge it scrolls past', async () => {
  const page = await newPage(env.browser, { width: 1280, height: 800 });
  const prints = (id) => page.locator(`${stepSelector(id)} .book-print pre`);
  // at 1280 px z(2)'s weights print on one line of 56 characters, both printouts whole
  await openAt(page, env.base, 'context-z2');
  const cut = await prints('context-z2').evaluateAll((pres) => pres.filter((pre) => pre.scrollWidth > pre.clientWidth).map((pre) => pre.textContent));
  assert.deepEqual(cut, [], 'no printout of the step is cut at 1280 px');
  // on a phone a 6 x 6 printout is wider than its box: the right edge is shaded while more lies beyond it
  await page.setViewportSize({ width: 390, height: 844 });
  await openAt(page, env.base, 'all-weights');
  const pre = prints('all-weights').first();
  await pre.scrollIntoViewIfNeeded();
  assert.ok(await pre.evaluate((el) => el.scrollWidth > el.clientWidth + 20), 'the printout is wider than its box at 390 px');
  // strips in the box's top padding (no text there), clear of its rounded corners
  const strip = async (edge) => {
    const box = await pre.boundingBox();
    return page.screenshot({ clip: { x: edge === 'left' ? box.x + 2 : box.x + box.width - 8, y: box.y + 7, width: 6, height: 3 } });
  };
  const [leftAtStart, rightAtStart] = [await strip('left'), await strip('right')];
  await pre.evaluate((el) => { el.scrollLeft = el.scrollWidth; });
  const rightAtEnd = await strip('right');
  assert.ok(!rightAtStart.equals(rightAtEnd), 'the right edge is shaded while the lines go on beyond it');
  assert.ok(rightAtEnd.equals(leftAtStart), 'at the end of the lines the right edge is as plain as the left edge at their start');
  assert.ok(!(await strip('left')).equals(leftAtStart), 'scrolled to the end, the left edge is shaded');
  assertNoProblems(page);
  await closePage(page);
});

test('inputs spanning more than 1000×: the cells switch to scientific notation as the core prints them', async () => {
  const page = await newPage(env.browser);
  const settings = { ...bookSettings(), embeddings: bookSettings().embeddings.map((row, i) => (i === 0 ? [0.00001, 0.15, 0.89] : row)) };
  // the inputs themselves (1e-05 beside 0.89), and the scores made from them, against the core's str() of the
  // same tensors computed under Node
  const ref = await reference(settings);
  for (const name of ['inputs', 'attn_scores']) {
    const [step] = stepsShowing(name);
    await openAt(page, env.base, step.id, settings);
    const drawn = await page.evaluate(drawnCells, { sel: stepSelector(step.id), name });
    const expected = elementsOf(ref[name].tensor.toString());
    const cells = Object.entries(drawn.cells).map(([k, text]) => [asPyTorch(text), expected[Number(k)]]);
    assert.equal(cells.length, expected.length, `${name}: every element drawn`);
    for (const [cell, printed] of cells) assert.equal(cell, printed, `${name}: a cell reads ${cell}, the core prints ${printed}`);
    if (name === 'inputs') assert.ok(cells.some(([cell]) => cell === '1.0000e-05'), `scientific notation: ${cells.map(([c]) => c).join(' ')}`);
  }
  assertNoProblems(page);
  await closePage(page);
});

test('a lone outlier does not wash out the colour scale: it is marked beyond the scale and the legend says so', async () => {
  const page = await newPage(env.browser, { contextOptions: { bypassCSP: true } });
  const [step] = stepsShowing('dropout_weights');
  await openAt(page, env.base, step.id);
  const fig = page.locator(`${stepSelector(step.id)} figure[data-tensor="dropout_weights"]`);
  const cells = await fig.locator('td.cell').evaluateAll((cs) =>
    cs.map((c) => ({ text: c.querySelector('.num').textContent, heat: c.style.getPropertyValue('--heat'), beyond: c.classList.contains('beyond-scale'), sr: c.textContent })),
  );
  const beyond = cells.filter((c) => c.beyond);
  assert.deepEqual(beyond.map((c) => c.text), ['2.0000'], 'the one 2.0 is beyond the scale');
  assert.match(beyond[0].sr, /beyond the colour scale/, 'screen readers hear it too');
  // the survivors span the whole scale: the largest of them is drawn at full colour
  const survivors = cells.filter((c) => !c.beyond && Number(c.text) > 0);
  const top = survivors.reduce((a, c) => (Number(c.text) > Number(a.text) ? c : a));
  assert.equal(top.heat, '100%', `the largest survivor ${top.text} is the top of the scale`);
  const legend = await fig.locator('.scale-key').textContent();
  assert.match(legend, new RegExp(`up to ${top.text.replace('.', '\\.')}.*1 value lies beyond it \\(2\\.0000\\)`), legend);
  // a tensor without outliers keeps its whole range
  const [weightsStep] = stepsShowing('attn_weights');
  await openAt(page, env.base, weightsStep.id);
  const plain = page.locator(`${stepSelector(weightsStep.id)} figure[data-tensor="attn_weights"]`);
  assert.equal(await plain.locator('td.beyond-scale').count(), 0);
  assert.doesNotMatch(await plain.locator('.scale-key').textContent(), /beyond/);
  // nor do weights between 0 and 1 whose lone 1 (the causal mask's first row) stands far above the rest
  await openAt(page, env.base, 'causal-weights');
  const causal = page.locator(`${stepSelector('causal-weights')} figure[data-tensor="causal_weights"]`);
  assert.equal(await causal.locator('td.beyond-scale').count(), 0, 'a weight of 1 is not beyond the scale');
  assert.deepEqual(await seriousViolations(page), []);
  assertNoProblems(page);
  await closePage(page);
});

test("an out_proj number's take-apart shows every number it uses, beside the tensor rather than over it", async () => {
  const page = await newPage(env.browser, { width: 1280, height: 800, contextOptions: { bypassCSP: true } });
  const id = 'mha-output';
  await openAt(page, env.base, id);
  await page.locator(`${stepSelector(id)} [data-tensor="mha_out"] td[data-index="0,0,1"]`).click();
  const panel = page.locator('#take-apart');
  await panel.waitFor();
  await page.waitForTimeout(100);
  const seen = await page.evaluate(() => {
    const p = document.querySelector('#take-apart');
    const lines = [...p.querySelectorAll('.ta-lines li')].map((li) => li.textContent);
    const sources = [...p.querySelectorAll('.ta-source')].map((s) => ({ name: s.dataset.source, numbers: [...s.querySelectorAll('.ta-numbers > span')].map((n) => n.textContent) }));
    // the numbers on screen: the cell, the outlined operand cells of the step, and those written in the panel
    const onStep = [...document.querySelectorAll('td.is-open .num, td.is-operand .num')].map((n) => n.textContent);
    const box = (el) => el.getBoundingClientRect();
    const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    const panelBox = box(p);
    const open = document.querySelector('td.is-open');
    const fig = open.closest('figure[data-tensor]');
    return {
      coversMarks: [open, fig.querySelector('.book-mark'), ...document.querySelectorAll('td.is-operand')].some((el) => overlaps(panelBox, box(el))),
      lines,
      sources,
      onScreen: [...onStep, ...sources.flatMap((s) => s.numbers), p.querySelector('.ta-value').textContent.replace(' = ', '')],
      coversTable: overlaps(panelBox, box(open.closest('.tensor'))),
      inView: panelBox.top >= 0 && panelBox.bottom <= innerHeight,
    };
  });
  assert.deepEqual(seen.sources.map((s) => s.name), ['mha_context_merged', 'out_proj.weight', 'out_proj.bias'], '"Made from" lists every operand');
  // the sum is named as the step's code computes it (return self.out_proj(context_vec)), apart from its input context_vec
  assert.match(seen.lines.at(-1), /^out_proj\(context_vec\)\[0,0,1\] = .* = /, `the output named apart from its input: ${seen.lines.at(-1)}`);
  const used = seen.lines.join(' ').match(/−?\d+\.\d{4}/g);
  assert.ok(used.length >= 4, `the lines use numbers: ${seen.lines}`);
  const missing = used.filter((n) => !seen.onScreen.includes(n));
  assert.deepEqual(missing, [], `numbers of "${seen.lines.join(' / ')}" not on screen`);
  assert.deepEqual(seen.sources.find((s) => s.name === 'out_proj.bias').numbers.length, 1);
  assert.ok(!seen.coversMarks && !seen.coversTable && seen.inView, `the panel covers what it explains: ${JSON.stringify(seen)}`);
  assert.deepEqual(await seriousViolations(page, '#take-apart'), []);

  // products computed inside a module (its attention weights and values, a query and a key): the rows and
  // columns they took are written out too, so that every number of the arithmetic is on screen
  for (const [stepId, name, index] of [['self-attention-v2', 'sa_v2_out', '5,1'], ['wrapper', 'wrapper_out', '0,1,3'], ['mha-weights', 'mha_scores', '0,0,5,4']]) {
    await openAt(page, env.base, stepId);
    await page.locator(`${stepSelector(stepId)} [data-tensor="${name}"] td[data-index="${index}"]`).click();
    await panel.waitFor();
    const shown = await page.evaluate(() => {
      const p = document.querySelector('#take-apart');
      return {
        lines: [...p.querySelectorAll('.ta-lines li')].map((li) => li.textContent).join(' / '),
        onScreen: [...document.querySelectorAll('td.is-open .num, td.is-operand .num, #take-apart .ta-numbers > span')].map((n) => n.textContent),
      };
    });
    const numbers = shown.lines.match(/−?\d+\.\d{4}/g);
    assert.ok(numbers.length >= 3, `${name}: the lines use numbers: ${shown.lines}`);
    assert.deepEqual(numbers.filter((n) => !shown.onScreen.includes(n)), [], `${name}[${index}]: numbers of "${shown.lines}" not on screen`);
  }

  // a wide step with the operands above (causal weights from the scores): neither the cell, the book mark
  // nor an outlined score is under the panel
  await openAt(page, env.base, 'causal-weights');
  for (const index of ['3,2', '5,5', '0,0']) {
    await page.locator(`${stepSelector('causal-weights')} [data-tensor="causal_weights"] td[data-index="${index}"]`).click();
    await page.waitForTimeout(100);
    const covered = await page.evaluate(() => {
      const p = document.querySelector('#take-apart').getBoundingClientRect();
      const open = document.querySelector('td.is-open');
      return [open, open.closest('figure').querySelector('.book-mark'), ...document.querySelectorAll('td.is-operand')]
        .filter((el) => {
          const r = el.getBoundingClientRect();
          return r.bottom > 0 && r.top < innerHeight && p.left < r.right && r.left < p.right && p.top < r.bottom && r.top < p.bottom;
        })
        .map((el) => el.dataset.index ?? el.className);
    });
    assert.deepEqual(covered, [], `causal_weights[${index}]: the panel covers marks it explains`);
  }
  assertNoProblems(page);
  await closePage(page);
});
