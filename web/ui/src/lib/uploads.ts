import { api, ApiError, authHeaders, errorOfReply } from "./api-client";

/** A file of a message as the server keeps it (docs/api.md, "Files"). */
export type StoredFile = {
  id: string;
  messageId: string;
  name: string;
  /** Sniffed by the server; "" until the first part arrives. */
  type: string;
  size: number;
  /** A program or a script: allowed, shown marked. */
  executable: boolean;
  clientSealed: boolean;
  state: "uploading" | "complete";
  /** Bytes stored: where the next part starts. */
  offset: number;
  partSize: number;
  createdAt: number;
  completedAt?: number;
  /** The recipients' downloads from their links, by address: in the list of a message sent to someone. */
  downloads?: FileDownload[];
};

/** One recipient's downloads of a file from their link (times in ms). */
export type FileDownload = { recipient: string; count: number; firstAt: number; lastAt: number };

/** The most files a message holds, whatever the plan. */
export const maxFiles = 10;

const filesPath = (messageId: string) => `messages/${encodeURIComponent(messageId)}/files`;
const filePath = (messageId: string, fileId: string) => `${filesPath(messageId)}/${encodeURIComponent(fileId)}`;

export const listFiles = (messageId: string) => api<StoredFile[]>(filesPath(messageId));

export const deleteFile = (messageId: string, fileId: string) => api<null>(filePath(messageId, fileId), { method: "DELETE" });

const createFile = (messageId: string, name: string, size: number) =>
  api<StoredFile>(filesPath(messageId), { method: "POST", body: { name, size } });

const getFile = (messageId: string, fileId: string) => api<StoredFile>(filePath(messageId, fileId));

/** A dropped connection or a reply that was no answer (a proxy's 502): worth sending again. */
export class NetworkError extends Error {
  constructor(message = "The connection dropped.") {
    super(message);
    this.name = "NetworkError";
  }
}

const abortError = () => new DOMException("The upload was cancelled.", "AbortError");
export const isAbort = (error: unknown) => error instanceof DOMException && error.name === "AbortError";

/** One part's request: PATCH url with the part at offset. Resolves to the server's new Upload-Offset. */
export type PartRequest = {
  url: string;
  offset: number;
  body: Blob;
  signal: AbortSignal;
  /** Bytes of this part sent so far. */
  onProgress: (sent: number) => void;
};
export type PartSender = (request: PartRequest) => Promise<number>;

const uploadContentType = "application/offset+octet-stream";

const replyOffset = (header: string | null) => {
  const offset = Number(header);
  if (header === null || !Number.isSafeInteger(offset) || offset < 0) throw new NetworkError("The server's reply had no Upload-Offset.");
  return offset;
};

/** The failure of a reply: the server's error (4xx, kept), or a retryable one (5xx, no envelope). */
const failureOf = (status: number, text: string) => {
  const error = errorOfReply(status, text);
  return status >= 500 || error.code === "internal/error" ? new NetworkError(error.message) : error;
};

/** Sends a part with XMLHttpRequest, whose upload events tell the bytes sent as they go. */
export const xhrPart: PartSender = async ({ url, offset, body, signal, onProgress }) => {
  const headers = await authHeaders();
  if (signal.aborted) throw abortError();
  return new Promise<number>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PATCH", url);
    for (const [name, value] of Object.entries(headers)) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader("Upload-Offset", String(offset));
    xhr.setRequestHeader("Content-Type", uploadContentType);
    xhr.upload.onprogress = (event) => onProgress(event.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(replyOffset(xhr.getResponseHeader("Upload-Offset")));
        } catch (error) {
          reject(error as Error);
        }
      } else reject(failureOf(xhr.status, xhr.responseText));
    };
    xhr.onerror = () => reject(new NetworkError());
    xhr.ontimeout = () => reject(new NetworkError("The connection timed out."));
    xhr.onabort = () => reject(abortError());
    signal.addEventListener("abort", () => xhr.abort(), { once: true });
    xhr.send(body);
  });
};

/** How parts go unless an upload says otherwise: XMLHttpRequest (tests put fetchPart here). */
export const transport: { sendPart: PartSender } = { sendPart: xhrPart };

/** Sends a part with fetch: progress only when the part is all there (tests, and a fallback). */
export const fetchPart: PartSender = async ({ url, offset, body, signal, onProgress }) => {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "PATCH",
      headers: { ...(await authHeaders()), "Upload-Offset": String(offset), "Content-Type": uploadContentType },
      body,
      signal,
    });
  } catch (error) {
    throw signal.aborted ? abortError() : new NetworkError(error instanceof Error ? error.message : undefined);
  }
  if (!response.ok) throw failureOf(response.status, await response.text());
  onProgress(body.size);
  return replyOffset(response.headers.get("Upload-Offset"));
};

/** Where the server's upload stands (HEAD): the offset to send from after a failed part. */
async function serverOffset(url: string, signal: AbortSignal) {
  let response: Response;
  try {
    response = await fetch(url, { method: "HEAD", headers: await authHeaders(), signal });
  } catch (error) {
    throw signal.aborted ? abortError() : new NetworkError(error instanceof Error ? error.message : undefined);
  }
  if (!response.ok) throw failureOf(response.status, "");
  return replyOffset(response.headers.get("Upload-Offset"));
}

/** What an upload tells as it goes. */
export type UploadUpdate = {
  /** The server's record, once made. */
  file?: StoredFile;
  /** Bytes of the file sent (the server's offset plus the part on its way). */
  sent?: number;
  /** "retrying": a part failed, the next attempt waits retryIn ms. */
  status?: "uploading" | "retrying";
  retryIn?: number;
};

export type UploadOptions = {
  messageId: string;
  name: string;
  body: Blob;
  signal: AbortSignal;
  onUpdate: (update: UploadUpdate) => void;
  /** The record of an upload made before (a retry after it failed): continues from the server's offset. */
  existing?: StoredFile;
  sendPart?: PartSender;
  /** Failed attempts in a row, on one part, before the upload gives up (then "failed, retry"). */
  attempts?: number;
  /** The wait before the nth attempt again (n from 1). */
  backoff?: (n: number) => number;
};

/** 1 s, 2 s, 4 s, 8 s, then 15 s. */
export const defaultBackoff = (n: number) => Math.min(1000 * 2 ** (n - 1), 15_000);

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal.aborted) return reject(abortError());
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      reject(abortError());
    };
    signal.addEventListener("abort", stop, { once: true });
  });

/** Whether an error is worth another attempt: a dropped connection, a server error, a conflict on the offset. */
const retryable = (error: unknown) =>
  error instanceof NetworkError || (error instanceof ApiError && (error.code === "request/conflict" || error.status >= 500));

/**
 * Uploads a file to a message by the resumable protocol: the record (POST, which reserves the
 * size), then one PATCH a part from the server's offset. A part that fails is sent again after a
 * wait, from the offset a HEAD reads (the cut part again, whole); after `attempts` failures in a
 * row it gives up with the last error, the record kept so that a retry (`existing`) continues.
 * The server's refusals (plan limits, a name) end it at once. Resolves to the complete record.
 */
export async function uploadFile(options: UploadOptions): Promise<StoredFile> {
  const { messageId, name, body, signal, onUpdate, sendPart = transport.sendPart, attempts = 5, backoff = defaultBackoff } = options;
  const size = body.size;
  let file = options.existing;
  let offset = 0;
  if (file === undefined) {
    file = await createFile(messageId, name, size);
    offset = file.offset;
    onUpdate({ file, sent: offset, status: "uploading" });
  } else {
    onUpdate({ status: "uploading" });
    offset = await serverOffset(`/api/${filePath(messageId, file.id)}`, signal);
    onUpdate({ sent: offset });
  }
  if (signal.aborted) throw abortError();
  const url = `/api/${filePath(messageId, file.id)}`;
  const partSize = file.partSize > 0 ? file.partSize : 1 << 20;
  let failures = 0;
  // An empty file is one empty part.
  let done = file.state === "complete";
  while (!done) {
    if (signal.aborted) throw abortError();
    try {
      const part = body.slice(offset, Math.min(offset + partSize, size));
      const from = offset;
      offset = await sendPart({ url, offset, body: part, signal, onProgress: (sent) => onUpdate({ sent: from + sent }) });
      failures = 0;
      onUpdate({ sent: offset, status: "uploading" });
      done = offset >= size;
    } catch (error) {
      if (signal.aborted || isAbort(error)) throw abortError();
      if (!retryable(error)) throw error;
      failures++;
      if (failures >= attempts) throw error;
      const wait = backoff(failures);
      onUpdate({ status: "retrying", retryIn: wait });
      await sleep(wait, signal);
      try {
        offset = await serverOffset(url, signal);
        onUpdate({ sent: offset, status: "uploading" });
        done = offset >= size && size > 0;
      } catch (headError) {
        if (signal.aborted || isAbort(headError)) throw abortError();
        if (!retryable(headError)) throw headError;
        // The HEAD failed too: the next turn sends from the offset known, and learns better.
      }
    }
  }
  return getFile(messageId, file.id);
}

/** A file's bytes as its author reads them (the bearer token goes in a header, so no plain link). */
export async function fetchFile(file: StoredFile): Promise<Blob> {
  const response = await fetch(`/api/${filePath(file.messageId, file.id)}/content`, { headers: await authHeaders() });
  if (!response.ok) throw failureOf(response.status, await response.text());
  return response.blob();
}

/** Saves bytes as a file named name, through a blob URL: the browser's own download. */
export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = name;
  link.rel = "noopener";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Downloads a file as its author; open, if given, turns the stored bytes into the file's (a sealed file). */
export async function downloadFile(file: StoredFile, open?: (stored: Blob) => Promise<Blob>) {
  const stored = await fetchFile(file);
  saveBlob(open ? await open(stored) : stored, file.name);
}

const sizeFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

/**
 * How often the recipients downloaded a file from their links, in a sentence: "Not downloaded
 * yet", "Downloaded once", "Downloaded 5 times by 2 recipients" (`messages files` prints "5 by 2
 * recipients").
 */
export function formatDownloads(downloads: FileDownload[] = []) {
  const times = downloads.reduce((n, d) => n + d.count, 0);
  if (times === 0) return "Not downloaded yet";
  if (times === 1) return "Downloaded once";
  const by = downloads.filter((d) => d.count > 0).length;
  return `Downloaded ${times} times by ${by === 1 ? "1 recipient" : `${by} recipients`}`;
}

/** A size as people read it: 812 bytes, 4.2 KB, 3.1 MB (powers of 1000, as the plans say 25 MB). */
export function formatSize(bytes: number) {
  if (bytes < 1000) return bytes === 1 ? "1 byte" : `${bytes} bytes`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${sizeFormat.format(value)} ${units[unit]}`;
}
