export class ApiError extends Error {
  readonly code: string;
  readonly fields: Record<string, string>;
  /** The HTTP status, where known (0: not known). */
  readonly status: number;

  constructor(code: string, message: string, fields: Record<string, string> = {}, status = 0) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.fields = fields;
    this.status = status;
  }
}

type Envelope<T> =
  | { status: "success"; data: T; nextCursor?: string }
  | { status: "error"; code: string; message: string; fields?: Record<string, string> };

type RequestOptions = {
  method?: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  body?: unknown;
  /** false for the calls that make a session, which must not wait for one. */
  bearer?: boolean;
  /** More request headers (e.g. Idempotency-Key). */
  headers?: Record<string, string>;
};

/** A page of a list: its items and the cursor of the next page, absent on the last. */
export type Page<T> = { items: T[]; nextCursor?: string };

/** What the client needs of the session: its ID token, and who to tell when the server refuses it. */
export type SessionHooks = {
  idToken: () => Promise<string | undefined>;
  onInvalidToken: () => void;
};

// Without a session (until start-up wires one) requests go out anonymous.
let session: SessionHooks = { idToken: async () => undefined, onInvalidToken: () => undefined };

/** Wires the client to the session once at start-up; lib/auth.ts depends on this file, never the reverse. */
export function connectSession(hooks: SessionHooks) {
  session = hooks;
}

/** The session's Authorization header, for requests made without api() (uploads, downloads). */
export async function authHeaders(): Promise<Record<string, string>> {
  const token = await session.idToken();
  return token === undefined ? {} : { Authorization: `Bearer ${token}` };
}

/** The API's error from an error envelope's text; a reply without one says its status. */
export function errorOfReply(status: number, text: string) {
  try {
    const envelope = JSON.parse(text) as Envelope<unknown>;
    if (envelope.status === "error") {
      if (envelope.code === "auth/invalid-user-token") session.onInvalidToken();
      return new ApiError(envelope.code, envelope.message, envelope.fields, status);
    }
  } catch {
    // not an envelope
  }
  return new ApiError("internal/error", `Unexpected reply from the server (HTTP ${status}).`, {}, status);
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await request<T>(path, options)).data;
}

/** Reads a page of a list: the data, with the envelope's nextCursor. */
export async function apiPage<T>(path: string): Promise<Page<T>> {
  const envelope = await request<T[]>(path, {});
  return { items: envelope.data, nextCursor: envelope.nextCursor };
}

/** A file the API answers with (a download, not the envelope): its bytes and the name the server gives it. */
export type Download = { blob: Blob; name: string };

/** Downloads path with the session's bearer; an error reply is thrown as ApiError like api's. */
export async function apiDownload(path: string, fallbackName: string): Promise<Download> {
  const token = await session.idToken();
  const response = await fetch(`/api/${path}`, {
    credentials: "same-origin",
    headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
  });
  if (!response.ok) {
    let envelope: Envelope<unknown> | undefined;
    try {
      envelope = (await response.json()) as Envelope<unknown>;
    } catch {
      // not the envelope
    }
    if (envelope?.status !== "error") throw new ApiError("internal/error", `Unexpected reply from the server (HTTP ${response.status}).`);
    if (envelope.code === "auth/invalid-user-token") session.onInvalidToken();
    throw new ApiError(envelope.code, envelope.message, envelope.fields);
  }
  const disposition = response.headers.get("Content-Disposition") ?? "";
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  return { blob: await response.blob(), name };
}

async function request<T>(path: string, { method = "GET", body, bearer = true, headers = {} }: RequestOptions) {
  const token = bearer ? await session.idToken() : undefined;
  const response = await fetch(`/api/${path}`, {
    method,
    credentials: "same-origin",
    headers: {
      "Content-Type": "application/json",
      ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

  let envelope: Envelope<T>;
  try {
    envelope = (await response.json()) as Envelope<T>;
  } catch {
    // A proxy or a crashed server can answer without the envelope.
    throw new ApiError("internal/error", `Unexpected reply from the server (HTTP ${response.status}).`, {}, response.status);
  }

  if (envelope.status === "error") {
    if (envelope.code === "auth/invalid-user-token") {
      session.onInvalidToken();
    }
    throw new ApiError(envelope.code, envelope.message, envelope.fields, response.status);
  }
  return envelope;
}
