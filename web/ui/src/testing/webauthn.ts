import { vi } from "vitest";

type Options = { publicKey: Record<string, unknown>; mediation?: string; signal?: AbortSignal };

/**
 * Stubs the browser's WebAuthn: PublicKeyCredential (with isConditionalMediationAvailable
 * answering conditional) and navigator.credentials' create and get, which answer with a
 * credential whose toJSON() is json, or with the given DOMException's name. Undo with
 * unstubWebAuthn().
 */
export function stubWebAuthn({
  conditional = false,
  create = () => Promise.resolve(credential({ id: "new-cred" })),
  get = () => Promise.resolve(credential({ id: "cred-1" })),
}: {
  conditional?: boolean;
  create?: (options: Options) => Promise<unknown>;
  get?: (options: Options) => Promise<unknown>;
} = {}) {
  const PublicKeyCredential = function PublicKeyCredential() {} as unknown as { isConditionalMediationAvailable: () => Promise<boolean> };
  PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(conditional);
  vi.stubGlobal("PublicKeyCredential", PublicKeyCredential);
  const credentials = { create: vi.fn(create), get: vi.fn(get) };
  Object.defineProperty(navigator, "credentials", { value: credentials, configurable: true });
  return credentials;
}

export function unstubWebAuthn() {
  Reflect.deleteProperty(navigator, "credentials");
  document.getElementById("public-settings")?.remove();
}

/** The server's settings block saying it does passkeys (web/public_settings.go). */
export function serverDoesPasskeys() {
  const block = document.createElement("script");
  block.type = "application/json";
  block.id = "public-settings";
  block.textContent = JSON.stringify({ passkeys: true });
  document.head.append(block);
}

/** A credential as the browser gives it, with its JSON. */
export const credential = (json: Record<string, unknown>) => ({ ...json, toJSON: () => json });

/** The browser's refusal of a prompt. */
export const refusal = (name: string) => Promise.reject(new DOMException("refused", name));

/** A get that waits until its signal aborts, as a conditional request does until the autofill is used. */
export const waitForAbort = (options: Options) =>
  new Promise((_, reject) => options.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
