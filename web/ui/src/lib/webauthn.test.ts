import { afterEach, expect, test, vi } from "vitest";
import { stubWebAuthn, unstubWebAuthn } from "../testing/webauthn";
import { creationOptions, credentialJSON, fromBase64url, passkeyError, passkeysSupported, requestOptions, toBase64url } from "./webauthn";

afterEach(() => {
  unstubWebAuthn();
  vi.unstubAllGlobals();
});

const bytes = (buffer: ArrayBuffer) => [...new Uint8Array(buffer)];

test("base64url both ways, without padding, with - and _", () => {
  const data = new Uint8Array([0xfb, 0xff, 0xfe, 0x00, 0x01]);
  const text = toBase64url(data);
  expect(text).toBe("-__-AAE");
  expect(bytes(fromBase64url(text))).toEqual([...data]);
  expect(bytes(fromBase64url(""))).toEqual([]);
});

test("the server's options get their binary fields decoded, the rest as sent", () => {
  const create = creationOptions({
    challenge: "AQID",
    rp: { id: "sendlater.test", name: "Sendlater" },
    user: { id: "dTE", name: "ada@example.com", displayName: "Ada" },
    excludeCredentials: [{ type: "public-key", id: "BAU" }],
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
  expect(bytes(create.challenge as ArrayBuffer)).toEqual([1, 2, 3]);
  expect(bytes(create.user.id as ArrayBuffer)).toEqual([...new TextEncoder().encode("u1")]);
  expect(bytes(create.excludeCredentials![0]!.id as ArrayBuffer)).toEqual([4, 5]);
  expect(create.rp.name).toBe("Sendlater");
  expect(create.authenticatorSelection?.residentKey).toBe("required");

  const get = requestOptions({ challenge: "AQID", rpId: "sendlater.test" });
  expect(bytes(get.challenge as ArrayBuffer)).toEqual([1, 2, 3]);
  expect(get.allowCredentials).toBeUndefined();
  expect(get.rpId).toBe("sendlater.test");
});

test("a browser without toJSON(): the credential's JSON is built field by field, in base64url", () => {
  const buffer = (...b: number[]) => new Uint8Array(b).buffer;
  const made = {
    id: "AQI",
    rawId: buffer(1, 2),
    type: "public-key",
    authenticatorAttachment: "platform",
    getClientExtensionResults: () => ({}),
    response: { clientDataJSON: buffer(3), attestationObject: buffer(4), getTransports: () => ["internal"] },
  } as unknown as PublicKeyCredential;
  expect(credentialJSON(made)).toEqual({
    id: "AQI",
    rawId: "AQI",
    type: "public-key",
    authenticatorAttachment: "platform",
    clientExtensionResults: {},
    response: { clientDataJSON: "Aw", attestationObject: "BA", transports: ["internal"] },
  });
  const used = { ...made, response: { clientDataJSON: buffer(3), authenticatorData: buffer(5), signature: buffer(6), userHandle: buffer(7) } };
  expect((credentialJSON(used as unknown as PublicKeyCredential) as { response: unknown }).response).toEqual({
    clientDataJSON: "Aw",
    authenticatorData: "BQ",
    signature: "Bg",
    userHandle: "Bw",
  });
});

test("the browser's refusals in words: closed, already there, not supported, stopped by the page", () => {
  const refused = (name: string, creating: boolean) => passkeyError(new DOMException("x", name), creating);
  expect(refused("NotAllowedError", true).message).toMatch(/^The passkey was not added: the prompt was closed/);
  expect(refused("NotAllowedError", false).message).toMatch(/^No passkey was used/);
  expect(refused("InvalidStateError", true).message).toBe("This device already has a passkey for your account: it is in the list.");
  expect(refused("NotSupportedError", true).message).toMatch(/^This browser cannot use passkeys/);
  expect(refused("SecurityError", false).message).toMatch(/https:\/\//);
  expect(refused("AbortError", false)).toMatchObject({ reason: "aborted", message: "" });
  expect(passkeyError(new Error("odd"), false).reason).toBe("failed");
});

test("passkeys are supported where the browser has PublicKeyCredential and navigator.credentials", () => {
  expect(passkeysSupported()).toBe(false);
  stubWebAuthn();
  expect(passkeysSupported()).toBe(true);
});
