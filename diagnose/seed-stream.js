// torch.manual_seed's random stream in plain JavaScript, for scanning thousands of seeds cheaply
// (/work/shared/docs/torch-rng.md, sections 1-5): MT19937 seeded from the low 32 bits, and the words made into
// torch.rand's float uniforms, uniform_'s fused multiply-add, nn.Linear's kaiming bounds, randn and the two
// builds' dropout masks. Lazy: a seed's first words cost only the state they read (word k of the first block
// reads initial words k, k + 1 and k + 397), so a seed rejected on its first number costs ~400 multiplies, not a
// full seeding and twist. Skipping draws is free: a draw is read by its index.

const N = 624;
const M = 397;
const TWO_24 = 2 ** -24;
const TWO_53 = 2 ** -53;

export class SeedStream {
  constructor() {
    // (words kept as Int32Array bits: V8 reads a Uint32Array's words above 2^31 as doubles; every use is a bit
    // operation, and word() gives them unsigned)
    this.init = new Int32Array(N); // the seeded state, filled up to initCount
    this.first = new Int32Array(N); // the first twisted block, word by word as asked for
    this.firstDone = new Uint8Array(N);
    // later blocks, also word by word: word i of block b reads words i, i + 1 and i + 397 of block b - 1 (or,
    // from 227 on, word i - 227 of block b), so a dropout mask's element far into the stream costs a few words,
    // not whole twists; `laterDone[b - 1][i]` is the seed's `stamp` once the word is known
    this.later = [];
    this.laterDone = [];
    this.stamp = 0;
    this.initCount = 0;
  }

  /** torch.manual_seed(value): only the low 32 bits seed (a negative value as its two's complement). */
  seed(value) {
    this.init[0] = Number.isSafeInteger(value) ? value >>> 0 : Number(BigInt.asUintN(32, BigInt(value)));
    this.initCount = 1;
    this.firstDone.fill(0);
    this.stamp++;
    return this;
  }

  #initTo(i) {
    const s = this.init;
    for (let j = this.initCount; j <= i; j++) {
      const prev = s[j - 1];
      s[j] = Math.imul(1812433253, prev ^ (prev >>> 30)) + j;
    }
    if (i >= this.initCount) this.initCount = i + 1;
  }

  // word i of the first twist, as the in-place twist leaves it: words from 227 on read words it already twisted
  #firstWord(i) {
    if (this.firstDone[i]) return this.first[i];
    this.#initTo(i + M < N ? i + M : i + 1 < N ? i + 1 : i);
    const next = i + 1 < N ? this.init[i + 1] : this.#firstWord(0);
    const far = i + M < N ? this.init[i + M] : this.#firstWord(i + M - N);
    const y = (this.init[i] & 0x80000000) | (next & 0x7fffffff);
    const w = far ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    this.first[i] = w;
    this.firstDone[i] = 1;
    return w;
  }

  // word i of block b >= 1 (the b-th twist after the first), as the in-place twist leaves it
  #laterWord(b, i) {
    while (this.later.length < b) {
      this.later.push(new Int32Array(N));
      this.laterDone.push(new Uint32Array(N));
    }
    const words = this.later[b - 1];
    const done = this.laterDone[b - 1];
    if (done[i] === this.stamp) return words[i];
    const word = (j) => (b === 1 ? this.#firstWord(j) : this.#laterWord(b - 1, j));
    const next = i + 1 < N ? word(i + 1) : this.#laterWord(b, 0);
    const far = i + M < N ? word(i + M) : this.#laterWord(b, i + M - N);
    const y = (word(i) & 0x80000000) | (next & 0x7fffffff);
    const w = far ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
    words[i] = w;
    done[i] = this.stamp;
    return w;
  }

  /** The k-th tempered 32-bit word after the seed (0-based). */
  word(k) {
    let y = k < N ? this.#firstWord(k) : this.#laterWord(Math.floor(k / N), k % N);
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** torch.rand's float32 uniform from word k (1 draw). */
  uniform(k) {
    return (this.word(k) & 0xffffff) * TWO_24;
  }

  /** The double uniform from words k, k + 1 (2 draws, the first the high word). */
  uniform53(k) {
    return ((this.word(k) & 0x1fffff) * 4294967296 + this.word(k + 1)) * TWO_53;
  }
}

/** fmaf(a, b, c) for float32 a, b, c: a * b is exact in a double, and a sum that lands on a float tie is settled by its error. */
export function fmaf(a, b, c) {
  const p = a * b;
  const s = p + c;
  const f = Math.fround(s);
  if (f === s) return f;
  const other = f + 2 * (s - f);
  if (Math.fround(other) !== other || Math.abs(other - s) !== Math.abs(s - f)) return f;
  // s is halfway between two floats: the exact sum's error says which side it was on
  const bb = s - p;
  const err = p - (s - bb) + (c - bb);
  if (err === 0) return f;
  return err > 0 === other > f ? Math.fround(other) : f;
}

// kaiming_uniform_(a=sqrt(5)) in Python doubles: sqrt(5)**2 is 5.000000000000001
const GAIN = Math.sqrt(2 / (1 + Math.sqrt(5) ** 2));

/** uniform_(-bound, bound) of `count` numbers from draw `start` (a plain array: V8 makes small ones faster than typed arrays). */
export function uniformRange(stream, start, count, bound) {
  const from = Math.fround(-bound);
  const range = Math.fround(Math.fround(bound) - from);
  const out = new Array(count);
  for (let i = 0; i < count; i++) out[i] = fmaf(stream.uniform(start + i), range, from);
  return out;
}

/** nn.Linear(d_in, d_out, bias) drawn from `start`: { weight (d_out x d_in, row-major), bias or null, end }. */
export function linearAt(stream, start, d_in, d_out, bias) {
  const weight = uniformRange(stream, start, d_out * d_in, Math.sqrt(3) * (GAIN / Math.sqrt(d_in)));
  const end = start + d_out * d_in;
  return bias ? { weight, bias: uniformRange(stream, end, d_out, 1 / Math.sqrt(d_in)), end: end + d_out } : { weight, bias: null, end };
}

/** torch.rand(count) from draw `start`. */
export function randAt(stream, start, count) {
  const out = new Array(count);
  for (let i = 0; i < count; i++) out[i] = stream.uniform(start + i);
  return out;
}

/**
 * torch.randn(count) right after a seed, in doubles (the float path's Cephes log/sincos differ from Math's in
 * the last bits: near enough to reject a seed, not to print): below 16 numbers Box–Muller on double uniforms,
 * from 16 on blocks of 16 float uniforms, the last block drawn anew where count is not a multiple of 16.
 */
export function randnAt(stream, count) {
  const out = new Float64Array(count);
  if (count < 16) {
    for (let i = 0; i < count; i += 2) {
      const u1 = stream.uniform53(2 * i);
      const u2 = stream.uniform53(2 * i + 2);
      const r = Math.sqrt(-2 * Math.log(1 - u2));
      out[i] = Math.fround(r * Math.cos(2 * Math.PI * u1));
      if (i + 1 < count) out[i + 1] = Math.fround(r * Math.sin(2 * Math.PI * u1));
    }
    return out;
  }
  for (let i = 0; i < count; i++) out[i] = stream.uniform(i);
  const block = (at, d) => {
    for (let j = 0; j < 8; j++) {
      const radius = Math.sqrt(-2 * Math.log(Math.fround(1 - d[j])));
      const theta = Math.fround(6.2831855 * d[j + 8]);
      out[at + j] = Math.fround(radius * Math.cos(theta));
      out[at + j + 8] = Math.fround(radius * Math.sin(theta));
    }
  };
  for (let i = 0; i + 16 <= count; i += 16) block(i, out.slice(i, i + 16));
  if (count % 16) block(count - 16, Float64Array.from({ length: 16 }, (_, j) => stream.uniform(count + j)));
  return out;
}

// MKL's VSL_BRNG_MCG31: x -> a x mod (2^31 - 1), with a split so that every product stays exact in a double
const MCG_M = 2147483647;
const MCG_A_HIGH = 1132489760 >>> 15;
const MCG_A_LOW = 1132489760 & 0x7fff;
const mcgNext = (x) => (((((x * MCG_A_HIGH) % MCG_M) * 32768) % MCG_M) + ((x * MCG_A_LOW) % MCG_M)) % MCG_M;

/**
 * nn.Dropout(p)'s keep mask on `count` elements from draw `start` (training mode, 0 < p < 1), as 1s and 0s:
 * the default build keeps where a double uniform (2 draws each) is below 1 - p; Intel MKL's seeds MCG31 with one
 * word and keeps where x_i / m is below 1 - p.
 */
export function dropoutKeep(stream, start, count, p, profile) {
  const keep = new Array(count);
  if (profile === 'mkl') {
    let x = stream.word(start) % MCG_M || 1;
    for (let i = 0; i < count; i++, x = mcgNext(x)) keep[i] = x / MCG_M < 1 - p ? 1 : 0;
  } else {
    for (let i = 0; i < count; i++) keep[i] = stream.uniform53(start + 2 * i) < 1 - p ? 1 : 0;
  }
  return keep;
}

// a^k mod m, for MKL's skip-ahead
function mcgPower(k) {
  let result = 1;
  let base = 1132489760;
  for (; k > 0; k = Math.floor(k / 2)) {
    if (k % 2) result = mulMod(result, base);
    base = mulMod(base, base);
  }
  return result;
}
// x y mod (2^31 - 1) for x, y < 2^31, exact in doubles: y split into 16-bit halves
const mulMod = (x, y) => ((((x * Math.floor(y / 65536)) % MCG_M) * 65536) % MCG_M + ((x * (y % 65536)) % MCG_M)) % MCG_M;

/** keep(i) of nn.Dropout(p)'s mask from draw `start`, each element drawn only when asked for (element i of MKL's by skip-ahead). */
export function keeper(stream, start, p, profile) {
  if (profile === 'mkl') {
    let x0 = null;
    return (i) => mulMod((x0 ??= stream.word(start) % MCG_M || 1), mcgPower(i)) / MCG_M < 1 - p;
  }
  return (i) => stream.uniform53(start + 2 * i) < 1 - p;
}

/** The words nn.Dropout(p) draws on `count` elements in training mode. */
export const dropoutDraws = (count, p, profile) => (p <= 0 || p >= 1 ? 0 : profile === 'mkl' ? 1 : 2 * count);
