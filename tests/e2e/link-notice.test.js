// Hostile links on the page: every setting the page cannot use is named in its notice, on opening the link
// and on pasting it over the page; the address then holds what is really used.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { assertNoProblems, closePage, newPage, siteForTests, waitForStep } from './harness.mjs';
import { SETTINGS, parseHash } from '../../web/state.js';

const env = siteForTests();

// Each link, and the settings (by key) it carries that cannot be used.
const LINKS = [
  ['seed=abc&seedV2=NaN', ['seed', 'seedV2']],
  ['x=1,2,abc,4', ['embeddings']],
  ['p=&d_out=0x10&heads=Infinity', ['p', 'd_out', 'heads']],
  ['profile=intel&qkv_bias=yes&context_length=many', ['profile', 'qkv_bias', 'context_length']],
  [`tokens=${encodeURIComponent('["a","b"')}&d_in=99&x=1,2`, ['tokens', 'd_in', 'embeddings']],
  ['seed=1.5&p=1', ['seed', 'p']], // read, but out of range
];

const noticeText = (page) => page.locator('#notices').textContent();

function assertNames(text, keys, link) {
  for (const [key, setting] of Object.entries(SETTINGS)) {
    const named = text.includes(`${setting.name} (`);
    assert.equal(named, keys.includes(key), `${link}: ${setting.name} ${keys.includes(key) ? 'is' : 'is not'} named in “${text}”`);
  }
  assert.match(text, /could not be used; the page uses the book’s settings there instead\.$/, link);
}

test('opening a hostile link names each setting it cannot use', async () => {
  const page = await newPage(env.browser);
  for (const [link, keys] of LINKS) {
    await page.goto(`${env.base}#step=embeddings&${link}`);
    await waitForStep(page, 'embeddings');
    assertNames(await noticeText(page), keys, link);
    assert.deepEqual(parseHash(new URL(page.url()).hash).dropped, [], `${link}: the address holds only what is used`);
  }
  assertNoProblems(page);
  await closePage(page);
});

test('a hostile link pasted over the book’s settings is named too', async () => {
  const page = await newPage(env.browser);
  await page.goto(`${env.base}#step=embeddings`);
  await waitForStep(page, 'embeddings');
  await page.evaluate(() => { location.hash = '#step=embeddings&seed=abc'; });
  await page.waitForFunction(() => !location.hash.includes('seed='));
  assertNames(await noticeText(page), ['seed'], 'seed=abc');
  assertNoProblems(page);
  await closePage(page);
});
