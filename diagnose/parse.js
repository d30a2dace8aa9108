// Reads a tensor as PyTorch prints it: `tensor([[0.4421, 0.5931], ...])` with or without `grad_fn=<...>`,
// `requires_grad=True` or a `Parameter containing:` line, at any set_printoptions precision (fixed or
// scientific), a 0-d `tensor(0.7600)`, or a `torch.Size([2, 6, 2])`. Each number keeps the text it was
// printed as, so that a result can be compared at exactly the printed precision.

export class DiagnoseError extends Error {
  constructor(message) {
    super(message);
    this.name = 'DiagnoseError';
  }
}

// Enough for 16 words x 16 dims x 16 heads x 2 copies of the batch, many times over; more is not a printout.
export const MAX_PASTE_CHARS = 1_000_000;
export const MAX_PASTE_NUMBERS = 100_000;

const NUMBER = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf|nan)$/i;

/**
 * printed text -> { kind: 'tensor', shape, numbers: [{ text, value, decimals, scientific }] }
 *               | { kind: 'size', shape }
 * Throws a DiagnoseError that says what is wrong with the text.
 */
export function parsePrinted(printed) {
  if (typeof printed !== 'string') throw new DiagnoseError('Paste the text PyTorch printed (a string), such as tensor([[0.1, 0.2]]).');
  if (printed.length > MAX_PASTE_CHARS) {
    throw new DiagnoseError(`The paste is ${printed.length.toLocaleString('en')} characters long; a printout of the chapter's tensors is far shorter (at most ${MAX_PASTE_CHARS.toLocaleString('en')}).`);
  }
  const text = printed.replace(/\u2212/g, '-').trim();
  if (text === '') throw new DiagnoseError('Nothing was pasted: paste what PyTorch printed, such as tensor([[0.1, 0.2]]).');
  const size = /torch\.Size\(\s*\[([^\]]*)\]\s*\)/.exec(text);
  const start = text.search(/tensor\(/);
  if (start < 0) {
    if (size) return { kind: 'size', shape: sizeOf(size[1]) };
    throw new DiagnoseError('This is not a tensor as PyTorch prints it: no “tensor(” in the paste. Paste the whole printout, from “tensor(” to its closing bracket.');
  }
  const body = text.slice(start + 'tensor('.length);
  if (/(^|[\s,[])\.\.\.([\s,\]]|$)/.test(body.split(/\)\s*($|\n)/)[0])) {
    throw new DiagnoseError('This printout is shortened with “...”: print it whole with torch.set_printoptions(profile="full") and paste that.');
  }
  return { kind: 'tensor', ...readNested(body) };
}

function sizeOf(list) {
  const dims = list.split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (!dims.every((d) => /^\d+$/.test(d))) throw new DiagnoseError(`torch.Size([${list}]) holds something other than whole numbers.`);
  return dims.map(Number);
}

// The nested lists after "tensor(", up to the bracket that closes them (or the 0-d number).
function readNested(body) {
  const tokens = body.match(/\[|\]|,|\)|[^\s[\],)]+/g) ?? [];
  const numbers = [];
  let pos = 0;
  const number = (token) => {
    if (!NUMBER.test(token)) throw new DiagnoseError(`“${token.slice(0, 20)}” is not a number as PyTorch prints one.`);
    if (numbers.length >= MAX_PASTE_NUMBERS) throw new DiagnoseError(`The tensor holds more than ${MAX_PASTE_NUMBERS.toLocaleString('en')} numbers; the chapter's are far smaller.`);
    numbers.push(numberOf(token));
  };
  // returns the shape of the list at pos
  const list = (depth) => {
    if (depth > 64) throw new DiagnoseError('The brackets are nested more than 64 deep; a tensor has at most 64 dims.');
    pos++; // '['
    let shape = null;
    let count = 0;
    for (;;) {
      const token = tokens[pos];
      if (token === undefined) throw new DiagnoseError('The printout ends before its brackets close: paste it whole.');
      if (token === ']') break;
      let inner;
      if (token === '[') inner = list(depth + 1);
      else {
        number(token);
        pos++;
        inner = [];
      }
      if (shape && shape.join() !== inner.join()) {
        throw new DiagnoseError(`The rows are ragged: ${describe(count, depth)} has ${describeShape(inner)} where the one before has ${describeShape(shape)}. A tensor's rows all have the same length.`);
      }
      shape = inner;
      count++;
      if (tokens[pos] === ',') pos++;
      else if (tokens[pos] === undefined) throw new DiagnoseError('The printout ends before its brackets close: paste it whole.');
      else if (tokens[pos] !== ']') throw new DiagnoseError(`Expected “,” or “]” after ${describe(count - 1, depth)}, found “${tokens[pos] ?? 'the end'}”.`);
    }
    pos++; // ']'
    return [count, ...(shape ?? [])];
  };
  let shape;
  if (tokens[0] === '[') shape = list(0);
  else if (tokens[0] !== undefined && tokens[0] !== ')') {
    number(tokens[0]);
    pos = 1;
    shape = [];
  } else throw new DiagnoseError('The tensor holds no numbers.');
  if (shape.includes(0) || numbers.length === 0) throw new DiagnoseError('The tensor is empty: it holds no numbers to compare.');
  return { shape, numbers };
}

const describe = (index, depth) => `${depth === 0 ? 'row' : 'entry'} ${index + 1}${depth > 0 ? ` at depth ${depth + 1}` : ''}`;
const describeShape = (shape) => (shape.length === 0 ? 'a number' : shape.length === 1 ? `${shape[0]} number${shape[0] === 1 ? '' : 's'}` : `shape [${shape.join(', ')}]`);

function numberOf(text) {
  const lower = text.toLowerCase();
  const value = lower.endsWith('inf') ? (lower.startsWith('-') ? -Infinity : Infinity) : lower === 'nan' ? NaN : Number(text);
  const [mantissa] = lower.split('e');
  const decimals = mantissa.includes('.') ? mantissa.length - mantissa.indexOf('.') - 1 : 0;
  return { text, value, decimals, scientific: lower.includes('e') };
}

/** Whether a computed value prints as the pasted number did, at its printed precision. */
export function printsAs(value, number) {
  if (!Number.isFinite(number.value) || !Number.isFinite(value)) return Object.is(value, number.value) || (Number.isNaN(value) && Number.isNaN(number.value));
  const shown = number.scientific ? value.toExponential(number.decimals) : value.toFixed(number.decimals);
  return Number(shown) === number.value;
}
