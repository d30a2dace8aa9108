// How the page looks and reads: axe-core on several steps (no serious or critical violations), screenshots at
// 1280 px and 390 px (kept in test-results/), and no page-level horizontal scrolling on a 390 px phone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync } from 'node:fs';

import {
  artifacts,
  assertNoProblems,
  bookSettings,
  closePage,
  formatHash,
  newPage,
  openAt,
  root,
  siteForTests,
  STEPS,
  stepSelector,
  stepsShowing,
  waitForStep,
} from './harness.mjs';

const env = siteForTests();

/** A few telling steps: the first, one with a 6x6 matrix, the 3.5.2 dropout step, the last. */
function sampleSteps() {
  const picks = [STEPS[0], stepsShowing('attn_weights')[0], stepsShowing('dropout_ones')[0], stepsShowing('wrapper_out')[0], STEPS.at(-1)];
  return [...new Set(picks.filter(Boolean))];
}

/** Shows a step in an open page by changing the hash, as a link inside the page would. */
async function showStep(page, id) {
  await page.evaluate((h) => {
    location.hash = h;
  }, formatHash(id, bookSettings()));
  await waitForStep(page, id);
}

test('axe-core finds no serious or critical violations on several steps', async (t) => {
  // bypassCSP: axe is injected as an inline script, which a strict page policy would refuse
  const page = await newPage(env.browser, { contextOptions: { bypassCSP: true } });
  const steps = sampleSteps();
  await openAt(page, env.base, steps[0].id);
  const found = [];
  for (const step of steps) {
    await showStep(page, step.id);
    // with a number taken apart: the panel (and its operand grids) is checked too
    await page.locator(`${stepSelector(step.id)} td.cell`).last().click();
    await page.locator('#take-apart').waitFor();
    await page.addScriptTag({ path: `${root}node_modules/axe-core/axe.min.js` });
    const violations = await page.evaluate(async () => {
      const result = await window.axe.run(document, { resultTypes: ['violations'] });
      return result.violations.map((v) => ({
        id: v.id,
        impact: v.impact,
        help: v.help,
        nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}: ${n.failureSummary.replace(/\s+/g, ' ')}`),
        count: v.nodes.length,
      }));
    });
    for (const v of violations) {
      const line = `[${step.id}] ${v.impact} ${v.id} (${v.count} nodes): ${v.help}\n    ${v.nodes.join('\n    ')}`;
      if (v.impact === 'serious' || v.impact === 'critical') found.push(line);
      else t.diagnostic(`minor: ${line}`);
    }
  }
  if (found.length) console.log(`axe serious/critical violations:\n${found.join('\n')}`);
  assert.deepEqual(found, [], `axe-core reports serious or critical violations:\n${found.join('\n')}`);
  assertNoProblems(page);
  await closePage(page);
});

test('screenshots at 1280 px and 390 px', async () => {
  for (const width of [1280, 390]) {
    const page = await newPage(env.browser, { width, height: width === 390 ? 844 : 900 });
    const steps = sampleSteps();
    await openAt(page, env.base, steps[0].id);
    for (const step of steps) {
      await showStep(page, step.id);
      await page.screenshot({ path: `${artifacts}step-${step.id}-${width}.png`, fullPage: true });
    }
    assertNoProblems(page);
    await closePage(page);
  }
});

test('no page-level horizontal scroll (and nothing cut off) at 390 px, on every step', async () => {
  for (const old of readdirSync(artifacts).filter((f) => f.startsWith('overflow-'))) rmSync(`${artifacts}${old}`);
  const page = await newPage(env.browser, { width: 390, height: 844 });
  await openAt(page, env.base, STEPS[0].id);
  const wide = [];
  for (const step of STEPS) {
    await showStep(page, step.id);
    const m = await page.evaluate(() => {
      const width = document.documentElement.scrollWidth;
      // what sticks out to the right of the viewport without a scrolling box around it, outermost first
      const clipped = (el) => {
        for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
          const style = getComputedStyle(a);
          if (style.overflowX !== 'visible' && a.getBoundingClientRect().right <= 391) return true;
          if (style.position === 'fixed' || style.clip !== 'auto') return true;
        }
        return false;
      };
      const sticking = new Set(
        [...document.querySelectorAll('body *')].filter((el) => el.getClientRects().length > 0 && el.getBoundingClientRect().right > 391 && !clipped(el)),
      );
      const describe = (el) => {
        const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
        return `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${cls} (right ${Math.round(el.getBoundingClientRect().right)})`;
      };
      const culprits = [...sticking]
        .filter((el) => !sticking.has(el.parentElement))
        .slice(0, 6)
        .map(describe);
      // a display formula that only fits by scrolling sideways inside its box is cut off to a reader
      const formula = document.querySelector('.step .formula');
      if (formula && formula.scrollWidth > formula.clientWidth + 1) {
        culprits.push(`a formula ${formula.scrollWidth} px wide in a ${formula.clientWidth} px box`);
      }
      return { width, culprits };
    });
    // scrollWidth, and nothing cut off at the right edge (body's overflow-x: hidden would hide it)
    if (m.width > 390 || m.culprits.length > 0) {
      wide.push(`${step.id}: scrollWidth ${m.width}; sticking out: ${m.culprits.join(', ') || 'nothing'}`);
      await page.screenshot({ path: `${artifacts}overflow-${step.id}-390.png`, fullPage: true });
    }
  }
  assert.deepEqual(wide, [], `steps wider than a 390 px viewport:\n${wide.join('\n')}`);
  assertNoProblems(page);
  await closePage(page);
});
