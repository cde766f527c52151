// Sealed messages' files (docs/sealed.md, "Sealed files"): encrypted here, before upload, with
// the passphrase's key, in chunks of 64 KiB; the server stores bytes it cannot open. This is the
// format's browser implementation; core's Go one writes testdata/sealed/file-vectors-v1.json,
// which both are held to (sealed-file.test.ts).
import {
  b64decode,
  b64encode,
  defaultSealParams,
  deriveKey,
  SealedError,
  type Bytes,
  type SealParams,
} from "./sealed";

/** Plaintext bytes a chunk; each is sealed with a 16-byte tag. */
export const fileChunkSize = 65536;
const tagSize = 16;
const headerStart = "sealedfile:v1$";
const headerMax = 200;
const saltLen = 16;
const prefixLen = 8;

/** The header's length at the default costs: the size of a file sealed by this app is known from it. */
export const defaultHeaderLength = header(defaultSealParams, new Uint8Array(saltLen), new Uint8Array(prefixLen)).length;

function header(c: SealParams, salt: Uint8Array, prefix: Uint8Array) {
  return new TextEncoder().encode(`${headerStart}argon2id$m=${c.m},t=${c.t},p=${c.p}$${b64encode(salt)}$${b64encode(prefix)}\n`);
}

/** A slice's bytes, copied (a test's Blob may come from another realm, which WebCrypto refuses). */
const read = async (b: Blob) => new Uint8Array(new Uint8Array(await b.arrayBuffer()));

const chunks = (plainSize: number) => Math.max(1, Math.ceil(plainSize / fileChunkSize));

/** The sealed size of a file of plainSize bytes: the size declared to the server (and counted). */
export const sealedFileSize = (plainSize: number, headerLength = defaultHeaderLength) =>
  headerLength + plainSize + tagSize * chunks(plainSize);

/**
 * The opened size of a sealed file of sealedSize bytes: its size minus the header and a tag a chunk.
 * The header's length depends on the costs' digits (74 to 76 bytes); the default's is assumed.
 */
export function openedFileSize(sealedSize: number, headerLength = defaultHeaderLength) {
  const body = sealedSize - headerLength;
  if (body < tagSize) return 0;
  return body - tagSize * Math.ceil(body / (fileChunkSize + tagSize));
}

/** The associated data of chunk index: the file is bound to its message and to its place. */
function ad(messageId: string, index: number, last: boolean) {
  const text = new TextEncoder().encode(`sendlater sealed file v1\n${messageId}\n`);
  const out = new Uint8Array(text.length + 5);
  out.set(text);
  new DataView(out.buffer).setUint32(text.length, index);
  out[text.length + 4] = last ? 1 : 0;
  return out;
}

function nonce(prefix: Uint8Array, index: number) {
  const out = new Uint8Array(12);
  out.set(prefix);
  new DataView(out.buffer).setUint32(8, index);
  return out;
}

const keyId = (salt: Uint8Array, c: SealParams) => `${b64encode(salt)}$${c.m},${c.t},${c.p}`;

/**
 * The keys of one passphrase: one salt for every file it seals (one derivation for a dialog),
 * the keys derived for opening kept by salt and costs (files sealed elsewhere may have others).
 */
export class FileKeys {
  private keys = new Map<string, Promise<CryptoKey>>();
  readonly salt: Bytes;

  constructor(readonly passphrase: string, readonly params: SealParams = defaultSealParams, salt?: Bytes) {
    this.salt = salt ?? crypto.getRandomValues(new Uint8Array(saltLen));
  }

  key(salt: Bytes, c: SealParams): Promise<CryptoKey> {
    const id = keyId(salt, c);
    let key = this.keys.get(id);
    if (!key) {
      key = deriveKey(this.passphrase, salt, c, ["encrypt", "decrypt"]);
      // A failed derivation is not kept: the next try derives again.
      key.catch(() => this.keys.delete(id));
      this.keys.set(id, key);
    }
    return key;
  }
}

/** Seals a file for the message messageId, chunk by chunk: the sealed bytes, to upload. */
export async function sealFile(keys: FileKeys, messageId: string, file: Blob, prefix?: Bytes): Promise<Blob> {
  const p = prefix ?? crypto.getRandomValues(new Uint8Array(prefixLen));
  const c = keys.params;
  if (p.length !== prefixLen || keys.salt.length !== saltLen) throw new SealedError("invalid");
  const key = await keys.key(keys.salt, c);
  const parts: BlobPart[] = [header(c, keys.salt, p)];
  const n = chunks(file.size);
  for (let i = 0; i < n; i++) {
    const plain = await read(file.slice(i * fileChunkSize, (i + 1) * fileChunkSize));
    const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce(p, i), additionalData: ad(messageId, i, i === n - 1) }, key, plain);
    parts.push(sealed);
  }
  return new Blob(parts, { type: "application/octet-stream" });
}

type Header = SealParams & { salt: Bytes; prefix: Bytes; length: number };

/** Reads a sealed file's header as the envelope's: one spelling, costs in bounds, else "invalid". */
function parseHeader(start: Uint8Array): Header {
  const end = start.indexOf(10);
  if (end < 0 || end + 1 > headerMax) throw new SealedError("invalid");
  const line = new TextDecoder().decode(start.subarray(0, end));
  const parts = line.startsWith(headerStart) ? line.slice(headerStart.length).split("$") : [];
  const [kdf, costText = "", salt = "", prefix = ""] = parts;
  const costs = /^m=(\d+),t=(\d+),p=(\d+)$/.exec(costText);
  if (parts.length !== 4 || kdf !== "argon2id" || !costs) throw new SealedError("invalid");
  const [m = 0, t = 0, p = 0] = costs.slice(1).map(Number);
  const h = { m, t, p, salt: b64decode(salt), prefix: b64decode(prefix), length: end + 1 };
  const ints = [m, t, p].every(Number.isSafeInteger);
  if (costText !== `m=${m},t=${t},p=${p}` || !ints || m < 64 * 1024 || m > 256 * 1024 || t < 1 || t > 10 || p < 1 || p > 4 ||
    h.salt.length !== saltLen || h.prefix.length !== prefixLen) {
    throw new SealedError("invalid");
  }
  return h;
}

/**
 * Opens a sealed file of the message messageId: the file's bytes. A wrong passphrase, another
 * message, a chunk changed, moved, dropped or cut all throw SealedError("wrong-passphrase") alike;
 * a header this version cannot read, "invalid".
 */
export async function openFile(keys: FileKeys, messageId: string, sealed: Blob): Promise<Blob> {
  const h = parseHeader(await read(sealed.slice(0, headerMax)));
  const key = await keys.key(h.salt, h);
  const body = sealed.size - h.length;
  const step = fileChunkSize + tagSize;
  const n = Math.max(1, Math.ceil(body / step));
  const parts: BlobPart[] = [];
  try {
    // The last chunk holds at least its tag (anything shorter was cut), and a byte unless it is the
    // only one: an empty chunk after a full one is not how a file is cut.
    const last = body - (n - 1) * step;
    if (last < tagSize || (n > 1 && last === tagSize)) throw new Error("cut");
    for (let i = 0; i < n; i++) {
      const from = h.length + i * step;
      const chunk = await read(sealed.slice(from, from + step));
      parts.push(await crypto.subtle.decrypt({ name: "AES-GCM", iv: nonce(h.prefix, i), additionalData: ad(messageId, i, i === n - 1) }, key, chunk));
    }
  } catch {
    throw new SealedError("wrong-passphrase");
  }
  return new Blob(parts);
}
