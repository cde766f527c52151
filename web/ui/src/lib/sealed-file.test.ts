import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { SealedError } from "./sealed";
import { defaultHeaderLength, FileKeys, openedFileSize, openFile, sealedFileSize, sealFile } from "./sealed-file";

// The golden vectors core's Go implementation writes (go test ./core -run SealedFileVectors):
// a file sealed by Go opens here, byte for byte the same sealed here, and the bad ones fail here too.
type Vectors = {
  chunkSize: number;
  files: { name: string; passphrase: string; messageId: string; salt: string; prefix: string; m: number; t: number; p: number;
    header: string; size: number; sealedSize: number; plaintext: string; sealed: string }[];
  bad: { name: string; passphrase: string; messageId: string; sealed: string; error: string }[];
};
const vectors: Vectors = JSON.parse(readFileSync(resolve(__dirname, "../../../../testdata/sealed/file-vectors-v1.json"), "utf8"));
const unhex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => parseInt(b, 16));

// The cheapest costs the format allows: the derivation is the envelope's, tested with it.
const cheap = { m: 64 * 1024, t: 1, p: 1 };
const passphrase = "orbit lantern velvet cactus thunder meadow";
const bytesOf = async (b: Blob) => new Uint8Array(await b.arrayBuffer());
const plain = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + (i >> 8)) & 255);

async function refusal(p: Promise<unknown>) {
  const err = await p.catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SealedError);
  return (err as SealedError).kind;
}

describe("sealed files, format v1: the golden vectors", () => {
  it("cover the sizes and cases the format names", () => {
    expect(vectors.chunkSize).toBe(65536);
    expect(vectors.files.map((v) => Number(v.size))).toEqual(expect.arrayContaining([0, 5, 65536, 65537, 200000]));
    expect(vectors.files.some((v) => v.t === 3)).toBe(true);
    expect(vectors.bad.length).toBeGreaterThanOrEqual(7);
  });
  for (const v of vectors.files) {
    it(`seals and opens as Go does: ${v.name}`, async () => {
      const c = { m: Number(v.m), t: Number(v.t), p: Number(v.p) };
      const keys = new FileKeys(v.passphrase, c, unhex(v.salt));
      const plain = unhex(v.plaintext);
      const sealed = await sealFile(keys, v.messageId, new Blob([plain]), unhex(v.prefix));
      const got = await bytesOf(sealed);
      expect(new TextDecoder().decode(got.subarray(0, v.header.length))).toBe(v.header);
      expect(got.length).toBe(Number(v.sealedSize));
      expect(Buffer.from(got).toString("hex")).toBe(v.sealed);
      expect(sealedFileSize(plain.length, v.header.length)).toBe(Number(v.sealedSize));
      expect(openedFileSize(Number(v.sealedSize), v.header.length)).toBe(Number(v.size));
      expect(await bytesOf(await openFile(new FileKeys(v.passphrase), v.messageId, new Blob([unhex(v.sealed)])))).toEqual(plain);
    }, 60_000);
  }
  for (const v of vectors.bad) {
    it(`refuses ${v.name}`, async () => {
      expect(await refusal(openFile(new FileKeys(v.passphrase), v.messageId, new Blob([unhex(v.sealed)])))).toBe(v.error);
    }, 60_000);
  }
});

describe("sealed files, format v1 (this implementation)", () => {
  const keys = new FileKeys(passphrase, cheap);
  for (const n of [0, 5, 65536, 65537, 200000]) {
    it(`seals and opens ${n} bytes, the sizes as the format says`, async () => {
      const sealed = await sealFile(keys, "m1", new Blob([plain(n)]));
      const headerLength = (await bytesOf(sealed)).indexOf(10) + 1;
      expect(sealed.size).toBe(sealedFileSize(n, headerLength));
      expect(openedFileSize(sealed.size, headerLength)).toBe(n);
      expect(await bytesOf(await openFile(new FileKeys(passphrase), "m1", sealed))).toEqual(plain(n));
    }, 30_000);
  }

  it("seals every file of one passphrase with one salt, and a new prefix each", async () => {
    const a = new TextDecoder().decode((await bytesOf(await sealFile(keys, "m1", new Blob(["x"])))).subarray(0, defaultHeaderLength));
    const b = new TextDecoder().decode((await bytesOf(await sealFile(keys, "m1", new Blob(["x"])))).subarray(0, defaultHeaderLength));
    expect(a.split("$").slice(0, 4)).toEqual(b.split("$").slice(0, 4));
    expect(a.split("$")[4]).not.toBe(b.split("$")[4]);
    expect(a.startsWith("sealedfile:v1$argon2id$m=65536,t=1,p=1$")).toBe(true);
  });

  it("refuses a wrong passphrase, another message, a cut, a drop, a swap, a flip alike", async () => {
    const n = 3 * 65536 + 100;
    const sealed = await bytesOf(await sealFile(keys, "m1", new Blob([plain(n)])));
    const h = sealed.indexOf(10) + 1;
    const step = 65536 + 16;
    const chunk = (i: number) => sealed.subarray(h + i * step, h + (i + 1) * step);
    const head = sealed.subarray(0, h);
    const flipped = sealed.slice();
    flipped[h + 5] = flipped[h + 5]! ^ 1;
    const cases: [string, FileKeys, string, Uint8Array<ArrayBuffer>][] = [
      ["a wrong passphrase", new FileKeys("orbit lantern velvet cactus thunder meadows"), "m1", sealed],
      ["another message", keys, "m2", sealed],
      ["a chunk dropped", keys, "m1", new Uint8Array(await new Blob([head, chunk(0), chunk(2), chunk(3)]).arrayBuffer())],
      ["cut at a chunk's edge", keys, "m1", sealed.subarray(0, h + 3 * step)],
      ["the last chunk cut", keys, "m1", sealed.subarray(0, sealed.length - 1)],
      ["cut inside the tag", keys, "m1", sealed.subarray(0, h + 3 * step + 10)],
      ["lengthened", keys, "m1", new Uint8Array(await new Blob([sealed, new Uint8Array(1)]).arrayBuffer())],
      ["two chunks swapped", keys, "m1", new Uint8Array(await new Blob([head, chunk(1), chunk(0), chunk(2), chunk(3)]).arrayBuffer())],
      ["a byte flipped", keys, "m1", flipped],
      ["the header only", keys, "m1", head],
    ];
    for (const [name, k, id, bytes] of cases) {
      expect([name, await refusal(openFile(k, id, new Blob([bytes])))]).toEqual([name, "wrong-passphrase"]);
    }
  }, 60_000);

  it("refuses a header of another spelling as invalid", async () => {
    const sealed = new TextDecoder().decode(await bytesOf(await sealFile(keys, "m1", new Blob([]))));
    const [, , , salt, rest] = sealed.split("$");
    for (const line of [
      `sealedfile:v1$argon2id$m=065536,t=1,p=1$${salt}$${rest}`,
      `sealedfile:v1$argon2id$t=1,m=65536,p=1$${salt}$${rest}`,
      `sealedfile:v1$argon2id$m=32768,t=1,p=1$${salt}$${rest}`,
      `sealedfile:v1$argon2id$m=65536,t=11,p=1$${salt}$${rest}`,
      `sealedfile:v2$argon2id$m=65536,t=1,p=1$${salt}$${rest}`,
      `sealedfile:v1$argon2i$m=65536,t=1,p=1$${salt}$${rest}`,
      `sealedfile:v1$argon2id$m=65536,t=1,p=1$${salt}=$${rest}`,
      "no header at all",
      "",
    ]) {
      expect([line, await refusal(openFile(keys, "m1", new Blob([line])))]).toEqual([line, "invalid"]);
    }
  });

  it("tells the opened size from the sealed size at the default costs", () => {
    for (const n of [0, 1, 65535, 65536, 65537, 131072, 131073, 25_000_000]) {
      expect(openedFileSize(sealedFileSize(n))).toBe(n);
    }
    expect(sealedFileSize(0)).toBe(defaultHeaderLength + 16);
    expect(defaultHeaderLength).toBe(74);
  });
});
