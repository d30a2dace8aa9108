// The README's JavaScript examples (the API's and the notebook's) run as shown and print what the README says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

// The fenced block that follows an HTML comment marker.
function readmeBlock(marker) {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const match = readme.match(new RegExp(`<!-- ${marker} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``));
  assert.ok(match, `README.md has no block after <!-- ${marker} -->`);
  return match[1];
}

test('the README example prints the README output under Node', () => {
  // Inside the package, so that the bare name 'attention-lab' resolves through package.json "exports".
  const dir = `${root}build/readme`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/example.mjs`, readmeBlock('readme-example'));
  const printed = execFileSync(process.execPath, [`${dir}/example.mjs`], { encoding: 'utf8' });
  assert.equal(printed, readmeBlock('readme-output'));
});

test("the README's notebook example prints the README's output under Node", () => {
  const dir = `${root}build/readme`;
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/notebook-example.mjs`, readmeBlock('notebook-example'));
  const printed = execFileSync(process.execPath, [`${dir}/notebook-example.mjs`], { encoding: 'utf8' });
  assert.equal(printed, readmeBlock('notebook-output'));
});
