import { useSyncExternalStore } from "react";
import { errorMessage } from "../../../components/form";
import { ApiError } from "../../../lib/api-client";
import { FileKeys, openedFileSize, sealFile } from "../../../lib/sealed-file";
import { deleteFile, isAbort, listFiles, maxFiles, uploadFile, type PartSender, type StoredFile } from "../../../lib/uploads";

/** A file's size as its author and recipients read it: a sealed one's opened size. */
export const openedSize = (file: StoredFile) => (file.clientSealed ? openedFileSize(file.size) : file.size);

/** One file of the dialog: picked here (with its bytes), or read from the server. */
export type UploadItem = {
  key: number;
  name: string;
  /** The file's own size (a sealed file's opened size). */
  size: number;
  /**
   * waiting: picked for a message not yet created (or whose seal changes when saved); sealing: being
   * encrypted with the passphrase's key; failed: may be retried (with its bytes).
   */
  status: "waiting" | "sealing" | "uploading" | "retrying" | "failed" | "done" | "removing";
  /** Bytes sent, of the bytes to send (total: a sealed file's sealed size). */
  sent: number;
  total?: number;
  /** The sealed bytes, kept: a retry sends the same bytes from the server's offset. */
  sealed?: Blob;
  file?: StoredFile;
  /** Why it failed, the server's sentence. */
  error?: string;
  blob?: Blob;
  controller?: AbortController;
};

export type UploadSnapshot = {
  items: UploadItem[];
  /** The latest thing to announce (a file uploaded or failed), for the live region. */
  announcement: string;
  /** The server said the plan has no files: the upgrade hint instead of the picker. */
  planRefused: boolean;
  /** Why files could not be added or loaded (too many, the list unreadable). */
  alert?: string;
  /** The server keeps no files (no file storage: its files endpoints answer 404): no section. */
  unavailable?: boolean;
};

let nextKey = 1;

/**
 * The files of one message dialog, uploading or uploaded. Kept outside the dialog's component so
 * that it outlives the dialog's remount as the saved message's (after Create): the uploads go on.
 */
export class UploadList {
  private snapshot: UploadSnapshot = { items: [], announcement: "", planRefused: false };
  private listeners = new Set<() => void>();
  private loaded = false;
  // Cancelled before the server's record came: the record, when it comes, is deleted.
  private orphaned = new Set<number>();
  messageId?: string;
  sendPart?: PartSender;
  /** The passphrase's keys of a sealed message: files are sealed with them before they go. */
  keys?: FileKeys;
  // Files wait (as for a new message) while the message's seal is to change when it is saved.
  private held = false;

  constructor(messageId?: string) {
    this.messageId = messageId;
  }

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  get = () => this.snapshot;

  private set(change: Partial<UploadSnapshot>) {
    this.snapshot = { ...this.snapshot, ...change };
    for (const listener of this.listeners) listener();
  }

  private update(key: number, change: Partial<UploadItem>) {
    this.set({ items: this.snapshot.items.map((item) => (item.key === key ? { ...item, ...change } : item)) });
  }

  private item(key: number) {
    return this.snapshot.items.find((item) => item.key === key);
  }

  /** Reads the stored message's files once. */
  async load() {
    if (this.loaded || this.messageId === undefined) return;
    this.loaded = true;
    try {
      const files = await listFiles(this.messageId);
      const known = new Set(this.snapshot.items.map((item) => item.file?.id));
      const stored = files
        .filter((file) => !known.has(file.id))
        .map<UploadItem>((file) => ({
          key: nextKey++,
          name: file.name,
          size: openedSize(file),
          total: file.size,
          file,
          sent: file.offset,
          ...(file.state === "complete"
            ? { status: "done" }
            : { status: "failed", error: "This upload did not finish: remove it and attach the file again." }),
        }));
      this.set({ items: [...stored, ...this.snapshot.items] });
    } catch (error) {
      if (error instanceof ApiError && error.code === "request/not-found") this.set({ unavailable: true });
      else this.set({ alert: `The message's files could not be read: ${errorMessage(error)}` });
    }
  }

  /** Whether any file is on its way (or waits for the message to be created). */
  get pending() {
    return this.snapshot.items.some((item) => ["waiting", "sealing", "uploading", "retrying"].includes(item.status));
  }

  /** Adds picked files: uploaded at once for a stored message, else when it is created (start). */
  add(files: File[]) {
    const room = maxFiles - this.snapshot.items.filter((item) => item.status !== "removing").length;
    const taken = files.slice(0, Math.max(room, 0));
    const items = taken.map<UploadItem>((file) => ({ key: nextKey++, name: file.name, size: file.size, status: "waiting", sent: 0, blob: file }));
    this.set({
      items: [...this.snapshot.items, ...items],
      alert: files.length > taken.length ? `A message holds up to ${maxFiles} files: ${files.length - taken.length} not added.` : undefined,
    });
    if (this.messageId !== undefined && !this.held) for (const item of items) void this.run(item.key);
  }

  /** Seals the files from now on with keys (a sealed message's), or (undefined) not. */
  sealWith(keys: FileKeys | undefined) {
    this.keys = keys;
  }

  /** Holds new files back (the message's seal changes when saved), or lets the waiting ones go. */
  hold(held: boolean) {
    this.held = held;
    if (held || this.messageId === undefined) return;
    for (const item of this.snapshot.items) if (item.status === "waiting") void this.run(item.key);
  }

  /** The message exists now: its waiting files start. */
  start(messageId: string) {
    this.messageId = messageId;
    this.loaded = true;
    for (const item of this.snapshot.items) if (item.status === "waiting") void this.run(item.key);
  }

  private async run(key: number) {
    const item = this.item(key);
    if (!item?.blob || this.messageId === undefined) return;
    const controller = new AbortController();
    const messageId = this.messageId;
    let made = item.file;
    try {
      let body = item.sealed ?? item.blob;
      if (this.keys && !item.sealed) {
        this.update(key, { status: "sealing", error: undefined, controller });
        body = await sealFile(this.keys, messageId, item.blob);
        if (controller.signal.aborted) return;
        this.update(key, { sealed: body, total: body.size });
      }
      this.update(key, { status: "uploading", error: undefined, controller });
      const file = await uploadFile({
        messageId,
        name: item.name,
        body,
        existing: item.file,
        signal: controller.signal,
        sendPart: this.sendPart,
        onUpdate: (u) => {
          made = u.file ?? made;
          this.update(key, {
            ...(u.file ? { file: u.file } : {}),
            ...(u.sent !== undefined ? { sent: u.sent } : {}),
            ...(u.status ? { status: u.status } : {}),
          });
        },
      });
      this.update(key, { status: "done", file, name: file.name, sent: file.size, total: file.size, sealed: undefined, controller: undefined });
      this.set({ announcement: `${file.name} uploaded.` });
    } catch (error) {
      if (isAbort(error)) {
        // remove() deletes the record it knew of; one that came after is deleted here.
        if (made && this.orphaned.delete(key)) void deleteFile(messageId, made.id).catch(() => undefined);
        return;
      }
      if (error instanceof ApiError && error.code === "plan/feature-not-included") {
        this.set({ planRefused: true, items: this.snapshot.items.filter((i) => i.key !== key) });
        return;
      }
      // A refusal made no record (or it is useless): a retry starts again.
      const refused = error instanceof ApiError && error.code !== "request/conflict" && error.status < 500;
      this.update(key, { status: "failed", error: errorMessage(error), controller: undefined, ...(refused ? { file: undefined, sent: 0 } : {}) });
      this.set({ announcement: `${item.name} failed to upload.` });
    }
  }

  /** Tries a failed upload again, from where the server is. */
  retry(key: number) {
    void this.run(key);
  }

  /** Cancels an upload (or removes a done file): the bytes on the server go too. */
  async remove(key: number) {
    const item = this.item(key);
    if (!item) return;
    item.controller?.abort();
    const drop = () => this.set({ items: this.snapshot.items.filter((i) => i.key !== key) });
    // The record, if the POST made one, is read from the latest state: it may have come meanwhile.
    const file = this.item(key)?.file;
    if (file === undefined || this.messageId === undefined) {
      if (item.controller) this.orphaned.add(key);
      drop();
      this.set({ announcement: `${item.name} removed.` });
      return;
    }
    this.update(key, { status: "removing", controller: undefined });
    try {
      await deleteFile(this.messageId, file.id);
      drop();
      this.set({ announcement: `${item.name} removed.` });
    } catch (error) {
      // Not found: already gone.
      if (error instanceof ApiError && error.code === "attachment/not-found") drop();
      else this.update(key, { status: "failed", error: `Not removed: ${errorMessage(error)}` });
    }
  }

  /** Cancels every upload under way (the dialog is left): their records go from the server. */
  cancelAll() {
    for (const item of this.snapshot.items) {
      if (item.status === "sealing" || item.status === "uploading" || item.status === "retrying") void this.remove(item.key);
    }
  }
}

// The lists of open dialogs, by message id, so that a dialog reopened as the saved message finds its uploads.
const lists = new Map<string, UploadList>();

/** The list of the message's dialog: the one kept for it, or a new one. */
export function uploadListFor(messageId: string | undefined) {
  if (messageId === undefined) return new UploadList();
  let list = lists.get(messageId);
  if (!list) {
    list = new UploadList(messageId);
    lists.set(messageId, list);
  }
  return list;
}

/** Keeps a new message's list under its id, once created. */
export function keepUploadList(list: UploadList, messageId: string) {
  lists.set(messageId, list);
  list.start(messageId);
}

/** Forgets a dialog's list when the dialog is left for good. */
export function dropUploadList(list: UploadList) {
  if (list.messageId !== undefined && lists.get(list.messageId) === list) lists.delete(list.messageId);
}

export function useUploadList(list: UploadList) {
  return useSyncExternalStore(list.subscribe, list.get, list.get);
}
