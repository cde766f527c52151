import { vi } from "vitest";

export type ApiCall = {
  method: string;
  path: string;
  body: unknown;
  authorization?: string;
  headers: Record<string, string>;
  /** A body sent as bytes (an upload's part). */
  blob?: Blob;
};

/** A reply: an envelope, or (body undefined) none, with headers. */
type Reply = { status: number; body: unknown; headers?: Record<string, string> };
type Handler = (call: ApiCall) => Reply | Promise<Reply>;

export const ok = (data: unknown, status = 200): Reply => ({ status, body: { status: "success", data } });

/** A reply without a body (204, a HEAD's), with its headers. */
export const empty = (status: number, headers: Record<string, string>): Reply => ({ status, body: undefined, headers });

export const fail = (status: number, code: string, message: string, fields?: Record<string, string>): Reply => ({
  status,
  body: { status: "error", code, message, ...(fields ? { fields } : {}) },
});

/**
 * Stubs fetch with the API's replies, by "METHOD path" (the path after /api/, query
 * included). Anything else answers as the server does for an unknown endpoint. Returns
 * the calls made, in order. Undo with vi.unstubAllGlobals().
 */
export function mockApi(handlers: Record<string, Handler>) {
  const calls: ApiCall[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const path = String(input).replace(/^\/api\//, "");
      const method = init?.method ?? "GET";
      const headers = (init?.headers ?? {}) as Record<string, string>;
      const call = {
        method,
        path,
        body: typeof init?.body === "string" ? JSON.parse(init.body) : undefined,
        authorization: headers.Authorization,
        headers,
        blob: init?.body instanceof Blob ? init.body : undefined,
      };
      calls.push(call);
      const handler = handlers[`${method} ${path}`];
      const reply = handler ? await handler(call) : fail(404, "request/not-found", `There is no API endpoint ${method} /api/${path}.`);
      if (reply.body === undefined) return new Response(null, { status: reply.status, headers: reply.headers });
      return new Response(JSON.stringify(reply.body), { status: reply.status, headers: reply.headers });
    }),
  );
  return calls;
}

/** A promise to settle from the test, for watching a request in flight. */
export function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((res) => {
    resolve = res;
  });
  return { promise, resolve };
}
