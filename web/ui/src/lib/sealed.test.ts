import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { openSealed, passphraseBits, sealMessage, sealWith, SealedError } from "./sealed";

// The golden vectors core/message_sealed_internal_test.go writes and checks:
// a message sealed by Go opens here and the other way round.
type Vectors = {
  seal: { name: string; passphrase: string; openWith?: string; messageId: string; body: string;
    salt: string; nonce: string; m: number; t: number; p: number; envelope: string }[];
  refuse: { name: string; passphrase: string; messageId: string; envelope: string; error: string }[];
  strength: { passphrase: string; bits: number }[];
};
const vectors: Vectors = JSON.parse(
  readFileSync(resolve(__dirname, "../../../../testdata/sealed/vectors-v1.json"), "utf8"),
);
const unb64 = (s: string) => Uint8Array.from(atob(s.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));

describe("sealed messages, format v1", () => {
  for (const v of vectors.seal) {
    it(`seals and opens as Go does: ${v.name}`, async () => {
      const env = await sealWith(v.passphrase, v.messageId, v.body, { m: v.m, t: v.t, p: v.p }, unb64(v.salt), unb64(v.nonce));
      expect(env).toBe(v.envelope);
      expect(await openSealed(v.passphrase, v.messageId, v.envelope)).toBe(v.body);
      if (v.openWith) expect(await openSealed(v.openWith, v.messageId, v.envelope)).toBe(v.body);
    });
  }
  for (const v of vectors.refuse) {
    it(`refuses ${v.name}`, async () => {
      const err = await openSealed(v.passphrase, v.messageId, v.envelope).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SealedError);
      expect((err as SealedError).kind).toBe(v.error);
    });
  }
  it("gives every seal its own salt and nonce", async () => {
    const c = { m: 64 * 1024, t: 1, p: 1 };
    const a = await sealMessage("orbit lantern velvet cactus thunder meadow", "m1", "hello", c);
    const b = await sealMessage("orbit lantern velvet cactus thunder meadow", "m1", "hello", c);
    expect(a).not.toBe(b);
    expect(await openSealed("orbit lantern velvet cactus thunder meadow", "m1", a)).toBe("hello");
  });
  it("estimates passphrases as Go does, to the bit", () => {
    for (const s of vectors.strength) expect([s.passphrase, passphraseBits(s.passphrase)]).toEqual([s.passphrase, s.bits]);
  });
});
