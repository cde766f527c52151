// Sealed messages (docs/sealed.md): the body encrypted in the browser with a
// key derived from a passphrase the server never sees. This is the format's
// browser implementation; core/message_sealed.go is Go's, and both pass the
// golden vectors of testdata/sealed/vectors-v1.json. Argon2id comes from
// hash-wasm, loaded only when a message is sealed or opened.

export type SealParams = { m: number; t: number; p: number };

/** The costs of a new seal: 64 MiB, 3 passes, 1 lane. */
export const defaultSealParams: SealParams = { m: 64 * 1024, t: 3, p: 1 };

/** The strength a seal's passphrase needs, in bits. */
export const sealMinBits = 60;

const prefix = "sealed:";
const saltLen = 16;
const nonceLen = 12;

/** Why an envelope did not open. */
export class SealedError extends Error {
  constructor(readonly kind: "wrong-passphrase" | "invalid") {
    super(
      kind === "wrong-passphrase"
        ? "This passphrase does not open the message."
        : "This is not a sealed message this version of Sendlater can open.",
    );
  }
}

export type Bytes = Uint8Array<ArrayBuffer>;
type Envelope = SealParams & { salt: Bytes; nonce: Bytes; ct: Bytes };

export function b64encode(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** Base64url without padding, one spelling only (as Go's Strict()). */
export function b64decode(s: string): Bytes {
  if (!/^[A-Za-z0-9_-]*$/.test(s) || s.length % 4 === 1) throw new SealedError("invalid");
  const bin = atob(s.replaceAll("-", "+").replaceAll("_", "/"));
  const b = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  if (b64encode(b) !== s) throw new SealedError("invalid");
  return b;
}

function check(e: SealParams & { salt: Uint8Array; nonce: Uint8Array }) {
  const ints = [e.m, e.t, e.p].every(Number.isSafeInteger);
  if (!ints || e.m < 64 * 1024 || e.m > 256 * 1024 || e.t < 1 || e.t > 10 || e.p < 1 || e.p > 4 ||
    e.salt.length !== saltLen || e.nonce.length !== nonceLen) {
    throw new SealedError("invalid");
  }
}

function format(e: Envelope): string {
  return `${prefix}v1$argon2id$m=${e.m},t=${e.t},p=${e.p}$${b64encode(e.salt)}$${b64encode(e.nonce)}$${b64encode(e.ct)}`;
}

function parse(s: string): Envelope {
  const parts = s.startsWith(prefix) ? s.slice(prefix.length).split("$") : [];
  const [version, kdf, costText = "", salt = "", nonce = "", ct = ""] = parts;
  const costs = /^m=(\d+),t=(\d+),p=(\d+)$/.exec(costText);
  if (parts.length !== 6 || version !== "v1" || kdf !== "argon2id" || !costs) throw new SealedError("invalid");
  const [m = 0, t = 0, p = 0] = costs.slice(1).map(Number);
  if (costText !== `m=${m},t=${t},p=${p}`) throw new SealedError("invalid");
  const e = { m, t, p, salt: b64decode(salt), nonce: b64decode(nonce), ct: b64decode(ct) };
  check(e);
  if (e.ct.length < 16 || e.ct.length > 1 << 20) throw new SealedError("invalid");
  return e;
}

const ad = (messageId: string) => new TextEncoder().encode("sendlater sealed v1\n" + messageId);

/** The AES-256-GCM key of a passphrase, salt and costs: the envelope's and the sealed files' (docs/sealed.md). */
export async function deriveKey(passphrase: string, salt: Bytes, c: SealParams, uses: KeyUsage[]): Promise<CryptoKey> {
  const { argon2id } = await import("hash-wasm");
  const raw = await argon2id({
    password: new TextEncoder().encode(passphrase.normalize("NFC")),
    salt, parallelism: c.p, iterations: c.t, memorySize: c.m, hashLength: 32, outputType: "binary",
  });
  return crypto.subtle.importKey("raw", new Uint8Array(raw), "AES-GCM", false, uses);
}

/** sealWith is sealMessage with the salt and nonce given (the golden vectors'). */
export async function sealWith(passphrase: string, messageId: string, body: string, c: SealParams,
  salt: Bytes, nonce: Bytes): Promise<string> {
  check({ ...c, salt, nonce });
  const k = await deriveKey(passphrase, salt, c, ["encrypt"]);
  const ct = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce, additionalData: ad(messageId) }, k,
    new TextEncoder().encode(body));
  return format({ ...c, salt, nonce, ct: new Uint8Array(ct) });
}

/** Seals body for the message messageId under passphrase: the envelope's string. */
export function sealMessage(passphrase: string, messageId: string, body: string,
  c: SealParams = defaultSealParams): Promise<string> {
  return sealWith(passphrase, messageId, body, c,
    crypto.getRandomValues(new Uint8Array(saltLen)), crypto.getRandomValues(new Uint8Array(nonceLen)));
}

/** Opens an envelope sealed for messageId; throws a SealedError. */
export async function openSealed(passphrase: string, messageId: string, envelope: string): Promise<string> {
  const e = parse(envelope);
  const k = await deriveKey(passphrase, e.salt, e, ["decrypt"]);
  try {
    const body = await crypto.subtle.decrypt({ name: "AES-GCM", iv: e.nonce, additionalData: ad(messageId) }, k, e.ct);
    return new TextDecoder("utf-8", { fatal: true }).decode(body);
  } catch {
    throw new SealedError("wrong-passphrase");
  }
}

function distinct(s: string): number {
  return new Set(Array.from(s)).size;
}

/**
 * A conservative estimate of how many bits of guessing a passphrase resists:
 * the rule of core.PassphraseBits, to the bit (docs/sealed.md).
 */
export function passphraseBits(passphrase: string): number {
  const rs = Array.from(passphrase.normalize("NFC"));
  const kind = (r = "") => (/\p{L}/u.test(r) ? 0 : /\p{Nd}/u.test(r) ? 1 : 2);
  const seen = new Set<string>();
  let total = 0;
  for (let i = 0; i < rs.length;) {
    const k = kind(rs[i]);
    let j = i + 1;
    while (j < rs.length && k !== 2 && kind(rs[j]) === k) j++;
    const run = rs.slice(i, j).join("").toLowerCase();
    const n = j - i;
    let bits: number;
    if (seen.has(run)) bits = 1;
    else if (k === 0 && n <= 2) bits = n * 4.7;
    else if (k === 0 && n === 3) bits = 7;
    else if (k === 0 && n <= 8) bits = 11;
    else if (k === 0) bits = 11 + (n - 8) * 2.35 * Math.min(1, distinct(run) / 8);
    else if (k === 1 && n <= 4) bits = n * 1.66;
    else if (k === 1) bits = 4 * 1.66 + (n - 4) * 3.32;
    else if (run === " " || run === "-") bits = 1;
    else bits = 5;
    seen.add(run);
    total += bits;
    i = j;
  }
  return Math.floor(total + 1e-9);
}
