// A notebook in a link: its cells (and the RNG profile) in the URL hash, compressed. Tiny and free of the
// editor, so the walk-through can make "Open in notebook" links without loading it.

const toBase64Url = (bytes) => {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const fromBase64Url = (text) => {
  const raw = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
};

async function pipe(bytes, stream) {
  const out = new Response(new Blob([bytes]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

/** '#cells=…[&profile=mkl]': the cells as deflated JSON (z) or, where CompressionStream is missing, plain (j). */
export async function notebookHash(cells, profile = 'default') {
  const json = new TextEncoder().encode(JSON.stringify(cells));
  const params = new URLSearchParams();
  if (typeof CompressionStream === 'function') {
    params.set('cells', `z${toBase64Url(await pipe(json, new CompressionStream('deflate-raw')))}`);
  } else {
    params.set('cells', `j${toBase64Url(json)}`);
  }
  if (profile !== 'default') params.set('profile', profile);
  return `#${params}`;
}

// The most a link's notebook may hold: a larger link is refused before it is decoded, and a link whose cells
// inflate past the limit as soon as they do (the inflate is streamed and stopped there), so that a small link
// cannot unpack into a notebook that would stall or crash the page.
export const MAX_LINK_CHARS = 512 * 1024; // of the cells parameter
export const MAX_NOTEBOOK_BYTES = 1024 * 1024; // of the cells' JSON

/** A notebook link that is refused: `reason` says which limit it passes; the message, what the page tells. */
export class NotebookLinkError extends Error {
  name = 'NotebookLinkError';

  constructor(reason) {
    super(`This link’s notebook is too large: ${reason}. Nothing was loaded from it.`);
    this.reason = reason;
  }
}

const sizeText = (bytes) => (bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MB` : `${Math.ceil(bytes / 1024)} KB`);

/** `bytes` inflated, or a NotebookLinkError once the inflated text passes `limit` bytes. */
async function inflateAtMost(bytes, limit) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const chunks = [];
  let size = 0;
  for (let part = await reader.read(); !part.done; part = await reader.read()) {
    size += part.value.length;
    if (size > limit) {
      await reader.cancel();
      throw new NotebookLinkError(`its cells unpack to more than the ${sizeText(limit)} a notebook link may hold`);
    }
    chunks.push(part.value);
  }
  return new Uint8Array(await new Blob(chunks).arrayBuffer());
}

/**
 * The cells and profile of a hash made by notebookHash, or null when it holds none (or is damaged).
 * Throws a NotebookLinkError when its notebook is larger than a link may hold.
 */
export async function readNotebookHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const packed = params.get('cells');
  if (!packed) return null;
  if (packed.length > MAX_LINK_CHARS) {
    throw new NotebookLinkError(`the link is ${sizeText(packed.length)}, more than the ${sizeText(MAX_LINK_CHARS)} a notebook link may be`);
  }
  let bytes;
  try {
    bytes = fromBase64Url(packed.slice(1));
  } catch {
    return null;
  }
  if (packed[0] === 'j' && bytes.length > MAX_NOTEBOOK_BYTES) {
    throw new NotebookLinkError(`its cells are more than the ${sizeText(MAX_NOTEBOOK_BYTES)} a notebook link may hold`);
  }
  try {
    if (packed[0] === 'z') bytes = await inflateAtMost(bytes, MAX_NOTEBOOK_BYTES);
    const cells = JSON.parse(new TextDecoder().decode(bytes));
    if (!Array.isArray(cells) || !cells.every((c) => typeof c === 'string')) return null;
    return { cells, profile: params.get('profile') === 'mkl' ? 'mkl' : 'default' };
  } catch (error) {
    if (error instanceof NotebookLinkError) throw error;
    return null;
  }
}
