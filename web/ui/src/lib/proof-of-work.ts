// The puzzle the server asks of a sign-in to an account under attack (docs/identity.md):
// a nonce such that SHA-256(challenge ":" nonce) starts with `difficulty` zero bits. SHA-256
// is written out here because crypto.subtle is async per hash (far too slow for the
// hundreds of thousands a puzzle takes) and missing outside https.

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const rotr = (x: number, n: number) => (x >>> n) | (x << (32 - n));

/** SHA-256 of an ASCII string, as eight 32-bit words. */
export function sha256(ascii: string): Uint32Array {
  const length = ascii.length;
  const blocks = Math.ceil((length + 9) / 64);
  const w = new Uint32Array(blocks * 16);
  const put = (i: number, byte: number) => (w[i >> 2] = w[i >> 2]! | (byte << (24 - (i % 4) * 8)));
  for (let i = 0; i < length; i++) put(i, ascii.charCodeAt(i));
  put(length, 0x80);
  w[blocks * 16 - 1] = length * 8;
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const m = new Uint32Array(64);
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < 16; i++) m[i] = w[b * 16 + i]!;
    for (let i = 16; i < 64; i++) {
      const x = m[i - 15]!,
        y = m[i - 2]!;
      const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
      const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
      m[i] = (m[i - 16]! + s0 + m[i - 7]! + s1) | 0;
    }
    let a = h[0]!,
      bb = h[1]!,
      c = h[2]!,
      d = h[3]!,
      e = h[4]!,
      f = h[5]!,
      g = h[6]!,
      hh = h[7]!;
    for (let i = 0; i < 64; i++) {
      const t1 = (hh + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K[i]! + m[i]!) | 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c))) | 0;
      hh = g;
      g = f;
      f = e;
      e = (d + t1) | 0;
      d = c;
      c = bb;
      bb = a;
      a = (t1 + t2) | 0;
    }
    [a, bb, c, d, e, f, g, hh].forEach((v, i) => (h[i] = (h[i]! + v) | 0));
  }
  return h;
}

/** Whether the hash starts with `difficulty` zero bits. */
export function solves(hash: Uint32Array, difficulty: number) {
  for (let i = 0; difficulty > 0; i++, difficulty -= 32) {
    const mask = difficulty >= 32 ? 0xffffffff : ~(0xffffffff >>> difficulty);
    if ((hash[i]! & mask) !== 0) return false;
  }
  return true;
}

/** Finds the nonce of a challenge, pausing now and then so that the page stays responsive. */
export async function solve(challenge: string, difficulty: number): Promise<string> {
  for (let nonce = 0; ; nonce++) {
    if (solves(sha256(`${challenge}:${nonce}`), difficulty)) return String(nonce);
    if (nonce % 20_000 === 19_999) await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
