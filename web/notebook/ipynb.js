// Jupyter's .ipynb files (nbformat 4): read into the notebook's cells, and written from them with their
// outputs, so that a learner's notebook goes both ways between this page and Jupyter.
//
// A cell here is { source, kind?: 'markdown', printed?: string }: a code cell's saved outputs become `printed`,
// the text Jupyter showed under it (streams, the text of results, tracebacks without their colours).

/** A file that is not a notebook this page can open; the message says what is wrong with it. */
export class IpynbError extends Error {
  name = 'IpynbError';
}

export const MAX_IPYNB_BYTES = 8 * 1024 * 1024;

const text = (value) => (Array.isArray(value) ? value.join('') : typeof value === 'string' ? value : '');
// Jupyter colours tracebacks with ANSI escapes: the text without them.
const ANSI = /\x1b\[[0-9;]*[A-Za-z]/g;

/** What a code cell's outputs showed, as one text (null when it has none). */
function printedText(outputs) {
  if (!Array.isArray(outputs) || outputs.length === 0) return null;
  const parts = outputs.map((o) => {
    switch (o?.output_type) {
      case 'stream': return text(o.text);
      case 'execute_result':
      case 'display_data': {
        const plain = text(o.data?.['text/plain']);
        return plain && !plain.endsWith('\n') ? `${plain}\n` : plain;
      }
      case 'error': return `${(o.traceback ?? []).map((l) => String(l).replace(ANSI, '')).join('\n')}\n`;
      default: return '';
    }
  });
  return parts.join('');
}

/**
 * The notebook in an .ipynb file's text: { name, profile, cells }. `fileName` names it (without .ipynb).
 * Throws an IpynbError naming what is wrong: not JSON, not a notebook, an nbformat before 4, too large.
 */
export function readIpynb(source, fileName = 'notebook.ipynb') {
  if (source.length > MAX_IPYNB_BYTES) {
    throw new IpynbError(`${fileName} is ${(source.length / 1048576).toFixed(1)} MB, more than the ${MAX_IPYNB_BYTES / 1048576} MB a notebook here may be.`);
  }
  let json;
  try {
    json = JSON.parse(source);
  } catch (error) {
    throw new IpynbError(`${fileName} is not a Jupyter notebook: it is not JSON (${error.message}).`);
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw new IpynbError(`${fileName} is not a Jupyter notebook: it holds no notebook object.`);
  if (typeof json.nbformat === 'number' && json.nbformat < 4) {
    throw new IpynbError(`${fileName} is an nbformat ${json.nbformat} notebook; this page opens version 4 (Jupyter's since 2015: open it in Jupyter and save it again).`);
  }
  if (!Array.isArray(json.cells)) throw new IpynbError(`${fileName} is not a Jupyter notebook: it has no list of cells.`);
  const cells = [];
  json.cells.forEach((cell, i) => {
    const type = cell?.cell_type;
    if (type !== 'code' && type !== 'markdown' && type !== 'raw') {
      throw new IpynbError(`${fileName}: cell ${i + 1} has no cell type this page knows (${JSON.stringify(type ?? null)}; expected "code", "markdown" or "raw").`);
    }
    const body = text(cell.source);
    if (type !== 'code') {
      cells.push({ source: body, kind: 'markdown' });
      return;
    }
    const printed = printedText(cell.outputs);
    cells.push(printed === null ? { source: body } : { source: body, printed });
  });
  if (cells.length === 0) cells.push({ source: '' });
  return { name: fileName.replace(/\.ipynb$/i, '') || 'notebook', profile: json.metadata?.attention_lab?.profile === 'mkl' ? 'mkl' : 'default', cells };
}

// Jupyter keeps a cell's source and an output's text as a list of lines, each with its newline.
const lines = (value) => value.split(/(?<=\n)/).filter((l) => l !== '');

// A cell id as nbformat 4.5 wants it: 1 to 64 letters, digits, '-' or '_', unique in the notebook.
const cellId = (i) => `cell-${i + 1}`;

/**
 * The .ipynb text (nbformat 4.5) of a notebook: { name, profile, cells }, each code cell with `run`, the page's
 * last run of it ({ count, output, error }), or else its `printed` text, as its outputs.
 */
export function writeIpynb({ profile = 'default', cells }) {
  const notebook = {
    cells: cells.map((cell, i) => {
      if (cell.kind === 'markdown') return { cell_type: 'markdown', id: cellId(i), metadata: {}, source: lines(cell.source) };
      const outputs = [];
      const output = cell.run ? cell.run.output : cell.printed;
      if (output) outputs.push({ name: 'stdout', output_type: 'stream', text: lines(output) });
      const error = cell.run?.error;
      if (error) {
        outputs.push({ ename: error.type ?? 'Error', evalue: error.message ?? '', output_type: 'error', traceback: error.traceback.split('\n') });
      }
      return { cell_type: 'code', execution_count: cell.run?.count ?? null, id: cellId(i), metadata: {}, outputs, source: lines(cell.source) };
    }),
    metadata: {
      attention_lab: { profile },
      kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' },
      language_info: { name: 'python' },
    },
    nbformat: 4,
    nbformat_minor: 5,
  };
  // As Jupyter writes it: one-space indents, keys sorted (they are, above), a final newline.
  return `${JSON.stringify(notebook, null, 1)}\n`;
}
