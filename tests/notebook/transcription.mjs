// The chapter's notebook as a learner transcribed it (../shared/reference/chapter3-notebook.txt, outside this
// repository and read only here, at test time), split into cells: the code after each "In [n]:" and the
// output printed under it. Nothing of it is copied into the project.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const CANDIDATES = [
  process.env.ATTENTION_REFERENCE,
  fileURLToPath(new URL('../../../shared/reference/chapter3-notebook.txt', import.meta.url)),
  '/work/shared/reference/chapter3-notebook.txt',
].filter(Boolean);

/** The transcription's path, or null where it is not on this machine. */
export const transcriptionPath = CANDIDATES.find((p) => existsSync(p)) ?? null;

// A cell's text ends at the next cell, a heading (## and deeper: a "# " line is a comment), a figure or exercise caption, an image, or two blank lines
// (prose follows outputs after two blank lines).
const END = /^(In \[\d+\]:|#{2,6} |__|!\[)/;

// Where the output starts: the first paragraph (after the first) that does not begin like code. The
// transcription separates code and output by one blank line only, so this is decided by the first line.
const CODE_KEYWORD = /^(def|class|for|if|elif|while|with|try|return|import|from|assert)\b/;
const LOOKS_LIKE_OUTPUT = /^(tensor\(|torch\.Size\(|Parameter containing:|-?\d|[\w.]+: |\w+\([^)]*\): )/;
const LOOKS_LIKE_CODE = new RegExp(
  '^(\\s|#|else\\s*:|' +
    '[A-Za-z_][\\w.]*(\\[[^\\]]*\\])?(\\s*,\\s*[A-Za-z_]\\w*)*\\s*(=|\\+=|-=|\\*=|/=)(?!=)|' + // assignments
    '[A-Za-z_][\\w.]*\\s*\\(|' + // calls
    '[A-Za-z_]\\w*\\s*$)', // a bare name, shown like Jupyter shows a value
);
function isOutput(firstLine) {
  if (CODE_KEYWORD.test(firstLine)) return false;
  if (LOOKS_LIKE_OUTPUT.test(firstLine)) return true;
  return !LOOKS_LIKE_CODE.test(firstLine);
}

const trimLines = (lines) => {
  const out = lines.map((l) => l.replace(/\s+$/, ''));
  while (out.length && out[0] === '') out.shift();
  while (out.length && out[out.length - 1] === '') out.pop();
  return out;
};

/** Text compared line by line without trailing spaces or trailing blank lines. */
export const normalise = (text) => trimLines(text.split('\n')).join('\n');

/** [{ label: 'In [9]', code, expected }] in the transcription's order. */
export function readChapterNotebook(path = transcriptionPath) {
  const lines = readFileSync(path, 'utf8').split('\n');
  const cells = [];
  for (let i = 0; i < lines.length; i++) {
    const head = /^In \[(\d+)\]:\s*$/.exec(lines[i]);
    if (!head) continue;
    const body = [];
    let blanks = 0;
    for (i++; i < lines.length && !END.test(lines[i]); i++) {
      blanks = lines[i].trim() === '' ? blanks + 1 : 0;
      if (blanks === 2) break;
      body.push(lines[i]);
    }
    i--;
    // paragraphs: runs of lines separated by blank lines
    const paragraphs = [];
    let current = [];
    for (const line of body) {
      if (line.trim() === '') {
        if (current.length) paragraphs.push(current);
        current = [];
      } else current.push(line);
    }
    if (current.length) paragraphs.push(current);
    let split = paragraphs.findIndex((p, k) => k > 0 && isOutput(p[0]));
    if (split < 0) split = paragraphs.length;
    // Code keeps its blank lines (from the first code line to the last); output keeps its own.
    const firstOutputLine = split < paragraphs.length ? body.indexOf(paragraphs[split][0]) : body.length;
    const code = trimLines(body.slice(0, firstOutputLine)).join('\n');
    const expected = trimLines(body.slice(firstOutputLine)).join('\n');
    cells.push({ label: `In [${head[1]}]`, code, expected });
  }
  return cells;
}

// Run as a script, it prints the split for a reader to check.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const c of readChapterNotebook()) {
    console.log(`==== ${c.label}\n${c.code}\n---- expected\n${c.expected}`);
  }
}
