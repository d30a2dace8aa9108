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

/** The cells and profile of a hash made by notebookHash, or null when it holds none (or is damaged). */
export async function readNotebookHash(hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const packed = params.get('cells');
  if (!packed) return null;
  try {
    let bytes = fromBase64Url(packed.slice(1));
    if (packed[0] === 'z') bytes = await pipe(bytes, new DecompressionStream('deflate-raw'));
    const cells = JSON.parse(new TextDecoder().decode(bytes));
    if (!Array.isArray(cells) || !cells.every((c) => typeof c === 'string')) return null;
    return { cells, profile: params.get('profile') === 'mkl' ? 'mkl' : 'default' };
  } catch {
    return null;
  }
}
