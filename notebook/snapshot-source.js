// The bytes of the build's snapshot of Python (notebook-python-snapshot.gz) as they arrive: fetched, and inflated
// when still gzipped. In a browser this runs on a thread of its own (snapshot-reader.js, started by index.js beside
// Python's worker) and hands the inflated bytes to Python's worker through a MessagePort: inflating the 30 MB takes
// some 0.2 s of CPU, which Python's worker then spends loading Pyodide instead, on the other core.

/**
 * The snapshot at `url` as it arrives: null when the host has none (404); else { size, received(), allReceived,
 * reader, cancel }, where `reader` reads the decoded bytes, `received()` counts the bytes from the network so far
 * (of `size`, 0 when unknown) and `allReceived` resolves once the last has come. `onReceived(bytes)` hears each
 * piece from the network as it comes.
 */
export async function fetchSnapshot(url, { onReceived } = {}) {
  // Low priority: on a slow network Pyodide's own files, which every start needs, come first.
  const response = await fetch(url, { priority: 'low' });
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const raw = response.body.getReader();
  const size = Number(response.headers.get('Content-Length')) || 0;
  let received = 0;
  let rawDone;
  const allReceived = new Promise((resolve) => { rawDone = resolve; });
  const count = (part) => {
    received += part.length;
    onReceived?.(part.length);
  };
  // Its first bytes tell whether it is still gzipped (a host that sent it with Content-Encoding: gzip decoded it).
  let first = new Uint8Array(0);
  let ended = false;
  while (first.length < 2) {
    const part = await raw.read();
    if (part.done) {
      ended = true;
      rawDone();
      break;
    }
    count(part.value);
    first = concat(first, part.value);
  }
  const body = new ReadableStream({
    start: (controller) => {
      controller.enqueue(first);
      if (ended) controller.close();
    },
    pull: async (controller) => {
      const part = await raw.read();
      if (part.done) {
        rawDone();
        controller.close();
      } else {
        count(part.value);
        controller.enqueue(part.value);
      }
    },
    cancel: (reason) => raw.cancel(reason),
  }, { highWaterMark: Infinity }); // read as fast as the network brings it, so that the rate measured is the network's, not the inflating's
  const reader = (first[0] === 0x1f && first[1] === 0x8b ? body.pipeThrough(new DecompressionStream('gzip')) : body).getReader();
  return { size, received: () => received, allReceived, reader, cancel: () => { reader.cancel().catch(() => {}); } };
}

// The decoded bytes go to Python's worker in pieces of about this size (fewer messages for it to take in).
const PIECE = 1 << 20;

/**
 * Reads the snapshot at `url` (fetchSnapshot) and sends it through `port`: { head: { size } } or { missing } first,
 * then { received } as the network brings bytes, { bytes } (transferred) as they are decoded, and { end }; or
 * { failed } with the reason. A { cancel } from the other side stops it. Resolves once all is sent.
 */
export async function sendSnapshot(url, port) {
  let source = null;
  port.onmessage = ({ data }) => { if (data?.cancel) source?.cancel(); };
  try {
    source = await fetchSnapshot(url, { onReceived: (received) => port.postMessage({ received }) });
    if (!source) {
      port.postMessage({ missing: true });
      return;
    }
    port.postMessage({ head: { size: source.size } });
    source.allReceived.then(() => port.postMessage({ allReceived: true }));
    let pieces = [];
    let held = 0;
    const send = () => {
      const bytes = pieces.length === 1 && pieces[0].byteOffset === 0 && pieces[0].byteLength === pieces[0].buffer.byteLength
        ? pieces[0] : concatAll(pieces, held);
      port.postMessage({ bytes }, [bytes.buffer]);
      pieces = [];
      held = 0;
    };
    let sentFirst = false;
    for (let part = await source.reader.read(); !part.done; part = await source.reader.read()) {
      pieces.push(part.value);
      held += part.value.length;
      // the first piece at once (its header sizes the memory), then about a megabyte at a time
      if (!sentFirst || held >= PIECE) {
        send();
        sentFirst = true;
      }
    }
    if (held) send();
    port.postMessage({ end: true });
  } catch (error) {
    port.postMessage({ failed: String(error?.message ?? error) });
  }
  // The port is left to the other side to close: what was sent is still delivered.
}

/** What sendSnapshot sends, read from `port` as fetchSnapshot's result (null when the host has none). */
export function snapshotFromPort(port, { onReceived } = {}) {
  let received = 0;
  let rawDone;
  const allReceived = new Promise((resolve) => { rawDone = resolve; });
  let controller;
  const stream = new ReadableStream({ start: (c) => { controller = c; } }, { highWaterMark: Infinity });
  const finish = () => {
    port.onmessage = null;
    port.close();
  };
  return new Promise((resolve, reject) => {
    port.onmessage = ({ data }) => {
      if (data.received !== undefined) {
        received += data.received;
        onReceived?.(data.received);
      } else if (data.allReceived) rawDone();
      else if (data.bytes) controller.enqueue(data.bytes);
      else if (data.end) {
        rawDone();
        controller.close();
        finish();
      } else if (data.missing) {
        finish();
        resolve(null);
      } else if (data.head) {
        const reader = stream.getReader();
        resolve({ size: data.head.size, received: () => received, allReceived, reader,
          cancel: () => {
            port.postMessage({ cancel: true });
            finish();
            reader.cancel().catch(() => {});
          } });
      } else if (data.failed !== undefined) {
        const error = new Error(data.failed);
        controller.error(error); // after the head: the reading fails; before it, the opening
        finish();
        reject(error);
      }
    };
    port.start?.();
  });
}

const concat = (a, b) => {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
};

function concatAll(parts, length) {
  const joined = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}
