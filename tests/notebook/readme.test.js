// The README's notebook example runs as shown (through the package export) and prints what the README says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

function readmeBlock(marker) {
  const readme = readFileSync(`${root}README.md`, 'utf8');
  const match = readme.match(new RegExp(`<!-- ${marker} -->\\s*\`\`\`\\w*\\n([\\s\\S]*?)\`\`\``));
  assert.ok(match, `README.md has no block after <!-- ${marker} -->`);
  return match[1];
}

test("the README's notebook example prints the README's output under Node", () => {
  const dir = `${root}build/readme`; // inside the package: 'attention-lab/notebook' resolves through "exports"
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/notebook-example.mjs`, readmeBlock('notebook-example'));
  const printed = execFileSync(process.execPath, [`${dir}/notebook-example.mjs`], { encoding: 'utf8' });
  assert.equal(printed, readmeBlock('notebook-output'));
});
