import { expect, test } from "vitest";
import { sha256, solve, solves } from "./proof-of-work";

const hex = (h: Uint32Array) => Array.from(h, (w) => w.toString(16).padStart(8, "0")).join("");

test("SHA-256 of the standard vectors", () => {
  expect(hex(sha256(""))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  expect(hex(sha256("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Two blocks.
  expect(hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))).toBe(
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
});

test("the puzzle: the first nonce whose hash starts with enough zero bits", async () => {
  // The server's core.ProofSolved finds 6824 first for this challenge.
  const nonce = await solve("v1.1700000000.12.abc.def", 12);
  expect(nonce).toBe("6824");
  expect(solves(sha256(`v1.1700000000.12.abc.def:${nonce}`), 12)).toBe(true);
  expect(solves(sha256("v1.1700000000.12.abc.def:0"), 12)).toBe(false);
});
