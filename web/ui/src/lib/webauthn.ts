// The browser's side of passkeys (WebAuthn): the server's options (JSON, binary fields in
// base64url) turned into what navigator.credentials takes, the browser's credential turned back
// into JSON (PublicKeyCredential.toJSON() where the browser has it), and the browser's refusals
// turned into sentences. The ceremonies are the server's (docs/identity.md, "Passkeys").

/** A ceremony's start (POST …/begin): the options for navigator.credentials and the state to send back. */
export type Ceremony = { options: { publicKey: Record<string, unknown>; mediation?: string }; state: string };

/** A passkey prompt that did not give a credential, in words for the person. */
export class PasskeyError extends Error {
  /** "cancelled": closed, timed out or refused; "aborted": stopped by the page (no message to show). */
  constructor(
    message: string,
    readonly reason: "cancelled" | "exists" | "unsupported" | "aborted" | "failed",
  ) {
    super(message);
    this.name = "PasskeyError";
  }
}

export const unsupportedMessage =
  "This browser cannot use passkeys. Use a recent Chrome, Edge, Safari or Firefox, or sign in with your password.";

/** Whether this browser has WebAuthn at all (false in the prerender and in old browsers). */
export function passkeysSupported() {
  return typeof window !== "undefined" && typeof window.PublicKeyCredential === "function" && !!navigator.credentials;
}

/** Whether the browser offers passkeys in the email field's autofill (conditional mediation). */
export async function autofillSupported() {
  if (!passkeysSupported()) return false;
  const check = (PublicKeyCredential as unknown as { isConditionalMediationAvailable?: () => Promise<boolean> })
    .isConditionalMediationAvailable;
  if (typeof check !== "function") return false;
  try {
    return await check.call(PublicKeyCredential);
  } catch {
    return false;
  }
}

export function fromBase64url(text: string): ArrayBuffer {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/").padEnd(Math.ceil(text.length / 4) * 4, "=");
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes.buffer;
}

export function toBase64url(buffer: ArrayBuffer | ArrayBufferView): string {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

type Descriptor = { id: string; type: string; transports?: string[] };

const descriptors = (list: unknown) =>
  Array.isArray(list) ? (list as Descriptor[]).map((d) => ({ ...d, id: fromBase64url(d.id) })) : undefined;

/** The server's creation options with their binary fields decoded. */
export function creationOptions(publicKey: Record<string, unknown>): PublicKeyCredentialCreationOptions {
  const user = publicKey.user as { id: string; name: string; displayName: string };
  return {
    ...(publicKey as unknown as PublicKeyCredentialCreationOptions),
    challenge: fromBase64url(publicKey.challenge as string),
    user: { ...user, id: fromBase64url(user.id) },
    excludeCredentials: descriptors(publicKey.excludeCredentials) as PublicKeyCredentialDescriptor[] | undefined,
  };
}

/** The server's request options with their binary fields decoded. */
export function requestOptions(publicKey: Record<string, unknown>): PublicKeyCredentialRequestOptions {
  return {
    ...(publicKey as unknown as PublicKeyCredentialRequestOptions),
    challenge: fromBase64url(publicKey.challenge as string),
    allowCredentials: descriptors(publicKey.allowCredentials) as PublicKeyCredentialDescriptor[] | undefined,
  };
}

type AnyResponse = AuthenticatorResponse & {
  attestationObject?: ArrayBuffer;
  authenticatorData?: ArrayBuffer;
  signature?: ArrayBuffer;
  userHandle?: ArrayBuffer | null;
  getTransports?: () => string[];
};

/** The credential as JSON for the server: the browser's own toJSON() where it has one. */
export function credentialJSON(credential: PublicKeyCredential): unknown {
  const withJSON = credential as PublicKeyCredential & { toJSON?: () => unknown };
  if (typeof withJSON.toJSON === "function") return withJSON.toJSON();
  const r = credential.response as AnyResponse;
  const response: Record<string, unknown> = { clientDataJSON: toBase64url(r.clientDataJSON) };
  if (r.attestationObject) {
    response.attestationObject = toBase64url(r.attestationObject);
    if (typeof r.getTransports === "function") response.transports = r.getTransports();
  }
  if (r.authenticatorData) response.authenticatorData = toBase64url(r.authenticatorData);
  if (r.signature) response.signature = toBase64url(r.signature);
  if (r.userHandle) response.userHandle = toBase64url(r.userHandle);
  return {
    id: credential.id,
    rawId: toBase64url(credential.rawId),
    type: credential.type,
    authenticatorAttachment: credential.authenticatorAttachment ?? undefined,
    clientExtensionResults: credential.getClientExtensionResults(),
    response,
  };
}

/** The browser's refusal in words; what the page stopped itself is "aborted". */
export function passkeyError(error: unknown, creating: boolean): PasskeyError {
  const name = error instanceof Error || error instanceof DOMException ? error.name : "";
  switch (name) {
    case "AbortError":
      return new PasskeyError("", "aborted");
    case "NotAllowedError":
      return new PasskeyError(
        creating
          ? "The passkey was not added: the prompt was closed, timed out or refused. Nothing changed; try again when you are ready."
          : "No passkey was used: the prompt was closed, timed out or refused. Try again, or sign in with your password.",
        "cancelled",
      );
    case "InvalidStateError":
      return new PasskeyError(
        creating ? "This device already has a passkey for your account: it is in the list." : "This passkey cannot be used here.",
        "exists",
      );
    case "NotSupportedError":
      return new PasskeyError(unsupportedMessage, "unsupported");
    case "SecurityError":
      return new PasskeyError("Passkeys do not work at this address: open the site at its own https:// address.", "unsupported");
    default:
      return new PasskeyError("The passkey prompt failed. Please try again.", "failed");
  }
}

/** Makes a passkey with the server's options; throws a PasskeyError. */
export async function createPasskey(ceremony: Ceremony): Promise<unknown> {
  if (!passkeysSupported()) throw new PasskeyError(unsupportedMessage, "unsupported");
  let credential: Credential | null;
  try {
    credential = await navigator.credentials.create({ publicKey: creationOptions(ceremony.options.publicKey) });
  } catch (error) {
    throw passkeyError(error, true);
  }
  if (!credential) throw new PasskeyError("The passkey was not added. Please try again.", "failed");
  return credentialJSON(credential as PublicKeyCredential);
}

/**
 * Asks for a passkey with the server's options: a prompt, or, with conditional, the email
 * field's autofill (until signal aborts it). Throws a PasskeyError.
 */
export async function getPasskey(ceremony: Ceremony, { conditional = false, signal }: { conditional?: boolean; signal?: AbortSignal } = {}) {
  if (!passkeysSupported()) throw new PasskeyError(unsupportedMessage, "unsupported");
  let credential: Credential | null;
  try {
    credential = await navigator.credentials.get({
      publicKey: requestOptions(ceremony.options.publicKey),
      signal,
      ...(conditional ? { mediation: "conditional" as CredentialMediationRequirement } : {}),
    });
  } catch (error) {
    throw passkeyError(error, false);
  }
  if (!credential) throw new PasskeyError("No passkey was used. Please try again.", "failed");
  return credentialJSON(credential as PublicKeyCredential);
}
