import { afterEach, describe, expect, it } from "vitest";
import { vi } from "vitest";
import { empty, fail, mockApi, ok, type ApiCall } from "../testing/api-mock";
import { ApiError } from "./api-client";
import { fetchPart, formatDownloads, formatSize, NetworkError, uploadFile, type StoredFile, type UploadUpdate } from "./uploads";

const partSize = 1000;
const base = "messages/m1/files";

/** A server's side of the protocol, in memory: the record, its offset and the bytes of whole parts. */
function fakeServer(options: { dropPatch?: (call: ApiCall, n: number) => boolean } = {}) {
  let file: StoredFile | undefined;
  const chunks: Uint8Array[] = [];
  let patches = 0;
  const calls = mockApi({
    [`POST ${base}`]: (call) => {
      const { name, size } = call.body as { name: string; size: number };
      file = { id: "f1", messageId: "m1", name, type: "", size, executable: false, clientSealed: false, state: "uploading",
        offset: 0, partSize, createdAt: 1 };
      return ok(file, 201);
    },
    [`HEAD ${base}/f1`]: () => empty(200, { "Upload-Offset": String(file?.offset ?? 0) }),
    [`GET ${base}/f1`]: () => ok(file),
    [`PATCH ${base}/f1`]: async (call) => {
      patches++;
      if (!file) return fail(404, "attachment/not-found", "No such file.");
      if (options.dropPatch?.(call, patches)) throw new TypeError("Failed to fetch");
      if (Number(call.headers["Upload-Offset"]) !== file.offset) {
        return { ...fail(409, "request/conflict", "The offset is not the server's.", { offset: "must be the server's" }), headers: { "Upload-Offset": String(file.offset) } };
      }
      const bytes = new Uint8Array(await call.blob!.arrayBuffer());
      chunks.push(bytes);
      file.offset += bytes.length;
      if (file.offset >= file.size) file.state = "complete";
      return empty(204, { "Upload-Offset": String(file.offset) });
    },
  });
  const stored = () => {
    const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      out.set(c, at);
      at += c.length;
    }
    return out;
  };
  return { calls, stored, file: () => file };
}

const bytesOf = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + 3) % 251);

const run = (body: Blob, extra: Partial<Parameters<typeof uploadFile>[0]> = {}) => {
  const updates: UploadUpdate[] = [];
  const controller = new AbortController();
  const done = uploadFile({
    messageId: "m1",
    name: "will.pdf",
    body,
    signal: controller.signal,
    onUpdate: (u) => updates.push(u),
    sendPart: fetchPart,
    backoff: () => 0,
    ...extra,
  });
  return { updates, controller, done };
};

const patchOffsets = (calls: ApiCall[]) => calls.filter((c) => c.method === "PATCH").map((c) => Number(c.headers["Upload-Offset"]));

afterEach(() => {
  vi.unstubAllGlobals();
});

describe("uploadFile", () => {
  it("sends the parts in order, telling the bytes sent, and resolves to the complete record", async () => {
    const server = fakeServer();
    const data = bytesOf(2500);
    const { updates, done } = run(new Blob([data]));
    const file = await done;
    expect(file.state).toBe("complete");
    expect(server.stored()).toEqual(data);
    expect(patchOffsets(server.calls)).toEqual([0, 1000, 2000]);
    const sent = updates.flatMap((u) => (u.sent === undefined ? [] : [u.sent]));
    expect(sent[0]).toBe(0);
    expect(sent.at(-1)).toBe(2500);
    expect(sent).toEqual([...sent].sort((a, b) => a - b)); // never backwards
    expect(sent).toContain(1000);
    expect(server.calls[0]!.body).toEqual({ name: "will.pdf", size: 2500 });
  });

  it("resumes from the server's offset after a part fails", async () => {
    // The second part's connection drops; the server kept the first part only.
    const server = fakeServer({ dropPatch: (_, n) => n === 2 });
    const data = bytesOf(2500);
    const { updates, done } = run(new Blob([data]));
    await done;
    expect(server.stored()).toEqual(data);
    const methods = server.calls.map((c) => c.method);
    expect(methods).toEqual(["POST", "PATCH", "PATCH", "HEAD", "PATCH", "PATCH", "GET"]);
    expect(patchOffsets(server.calls)).toEqual([0, 1000, 1000, 2000]);
    expect(updates.some((u) => u.status === "retrying")).toBe(true);
  });

  it("sends from the server's offset when it has more than the client thought", async () => {
    // The reply to the first part was lost after the server stored it.
    let lost = false;
    const server = fakeServer();
    const data = bytesOf(1500);
    const realFetch = globalThis.fetch;
    vi.stubGlobal("fetch", async (input: RequestInfo | URL, init?: RequestInit) => {
      const reply = await realFetch(input, init);
      if (init?.method === "PATCH" && !lost) {
        lost = true;
        throw new TypeError("network error");
      }
      return reply;
    });
    const { done } = run(new Blob([data]));
    await done;
    expect(server.stored()).toEqual(data);
    expect(patchOffsets(server.calls)).toEqual([0, 1000]);
  });

  it("gives up after the attempts, and a retry continues where the server is", async () => {
    let dropping = true;
    const server = fakeServer({ dropPatch: (_, n) => dropping && n >= 2 });
    const data = bytesOf(2500);
    const first = run(new Blob([data]), { attempts: 3 });
    await expect(first.done).rejects.toBeInstanceOf(NetworkError);
    expect(server.file()!.offset).toBe(1000);
    expect(patchOffsets(server.calls)).toEqual([0, 1000, 1000, 1000]);

    dropping = false;
    const again = run(new Blob([data]), { existing: server.file() });
    const file = await again.done;
    expect(file.state).toBe("complete");
    expect(server.stored()).toEqual(data);
    expect(again.updates.find((u) => u.sent !== undefined)?.sent).toBe(1000);
  });

  it("stops at once when cancelled, sending no more parts", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const server = fakeServer();
    const data = bytesOf(3000);
    const controller = new AbortController();
    const sendPart: typeof fetchPart = async (request) => {
      if (request.offset === 1000) {
        await held;
        if (request.signal.aborted) throw new DOMException("aborted", "AbortError");
      }
      return fetchPart(request);
    };
    const { done } = run(new Blob([data]), { signal: controller.signal, sendPart });
    await vi.waitFor(() => expect(patchOffsets(server.calls)).toEqual([0]));
    controller.abort();
    release();
    await expect(done).rejects.toMatchObject({ name: "AbortError" });
    expect(patchOffsets(server.calls)).toEqual([0]);
  });

  it("ends at the server's refusal, sending nothing", async () => {
    const calls = mockApi({
      [`POST ${base}`]: () => fail(403, "plan/limit-reached", "A message holds up to 25 MB of files on your plan.", { size: "at most 25 MB a message" }),
    });
    const { done } = run(new Blob([bytesOf(10)]));
    await expect(done).rejects.toBeInstanceOf(ApiError);
    await expect(done).rejects.toMatchObject({ code: "plan/limit-reached", fields: { size: "at most 25 MB a message" } });
    expect(calls.map((c) => c.method)).toEqual(["POST"]);
  });

  it("uploads an empty file as one empty part", async () => {
    const server = fakeServer();
    const file = await run(new Blob([])).done;
    expect(file.state).toBe("complete");
    expect(patchOffsets(server.calls)).toEqual([0]);
  });
});

describe("formatSize", () => {
  it("reads as people say sizes", () => {
    expect(formatSize(1)).toBe("1 byte");
    expect(formatSize(812)).toBe("812 bytes");
    expect(formatSize(4200)).toBe("4.2 KB");
    expect(formatSize(25_000_000)).toBe("25 MB");
  });
});

describe("formatDownloads", () => {
  it("says how often the recipients downloaded a file, as `messages files` counts", () => {
    expect(formatDownloads(undefined)).toBe("Not downloaded yet");
    expect(formatDownloads([])).toBe("Not downloaded yet");
    const by = (recipient: string, count: number) => ({ recipient, count, firstAt: 1, lastAt: 2 });
    expect(formatDownloads([by("ann@example.com", 1)])).toBe("Downloaded once");
    expect(formatDownloads([by("ann@example.com", 3)])).toBe("Downloaded 3 times by 1 recipient");
    expect(formatDownloads([by("ann@example.com", 2), by("bo@example.com", 3)])).toBe("Downloaded 5 times by 2 recipients");
  });
});
