// What a cell printed here against what the learner's machine printed, line by line: each line's numbers are
// paired when the text around them is the same, so that a differing number is marked on its own.

const NUMBER = /[+-]?(?:\d+\.?\d*(?:e[+-]?\d+)?|\.\d+(?:e[+-]?\d+)?|inf|nan)/gi;

// A line as text and numbers, in order.
function segments(line) {
  const parts = [];
  let at = 0;
  for (const m of line.matchAll(NUMBER)) {
    if (m.index > at) parts.push({ text: line.slice(at, m.index), number: false });
    parts.push({ text: m[0], number: true });
    at = m.index + m[0].length;
  }
  if (at < line.length) parts.push({ text: line.slice(at), number: false });
  return parts;
}

const linesOf = (text) => {
  const lines = String(text ?? '').replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd());
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines;
};
const skeleton = (parts) => parts.map((p) => (p.number ? '#' : p.text.replace(/\s+/g, ' '))).join('');
const sameNumber = (a, b) => a === b || Number(a) === Number(b) || (Number.isNaN(Number(a)) && Number.isNaN(Number(b)) && a.toLowerCase() === b.toLowerCase());

/**
 * -> { same, differing (numbers that differ), lines: [{ parts: [{ text, number, differs }], differs, ours }] }
 * where each line is the learner's (`yours`), with `ours` the line printed here (null past the end).
 */
export function compareOutputs(ours, yours) {
  const mine = linesOf(ours);
  const theirs = linesOf(yours);
  let differing = 0;
  const lines = [];
  for (let i = 0; i < Math.max(mine.length, theirs.length); i++) {
    const yourParts = segments(theirs[i] ?? '');
    const ourParts = segments(mine[i] ?? '');
    const ourLine = mine[i] ?? null;
    if (theirs[i] !== undefined && ourLine !== null && skeleton(yourParts) === skeleton(ourParts)) {
      const ourNumbers = ourParts.filter((p) => p.number);
      let k = 0;
      const parts = yourParts.map((p) => ({ ...p, differs: p.number ? !sameNumber(p.text, ourNumbers[k++].text) : false }));
      const count = parts.filter((p) => p.differs).length;
      differing += count;
      lines.push({ parts, differs: count > 0, ours: ourLine });
    } else {
      differing += Math.max(yourParts.filter((p) => p.number).length, ourParts.filter((p) => p.number).length, 1);
      lines.push({ parts: yourParts.map((p) => ({ ...p, differs: true })), differs: true, ours: ourLine });
    }
  }
  return { same: lines.every((l) => !l.differs), differing, lines };
}
