import { api } from "./api-client";

/**
 * This device's copies of the message dialog's drafts live in localStorage under this prefix, per
 * user and key (features/dashboard/api/drafts.ts writes them).
 */
export const localDraftPrefix = (uid: string) => `sendlater:draft:${uid}:`;

/** The server's copy of a draft (docs/api.md, "Drafts"). */
export const draftPath = (key: string) => `drafts/${encodeURIComponent(key)}`;

/** What a PUT of a draft sends: the form's four fields, nothing else. */
export const draftBody = (d: { title?: unknown; recipients?: unknown; message?: unknown; interval?: unknown }) => ({
  title: d.title,
  recipients: d.recipients,
  message: d.message,
  interval: d.interval,
});

type Stored = { title?: unknown; recipients?: unknown; message?: unknown; interval?: unknown; updatedAt?: unknown };

/**
 * Before an explicit sign-out: hands each of this device's drafts of uid to the server (unless the
 * server's copy is as new), then forgets it here, so that the next person on a shared browser
 * profile finds none. A draft the server did not take in time stays: a letter is never lost to a
 * sign-out. Never throws; gives up after timeoutMs.
 */
export async function flushLocalDrafts(uid: string, timeoutMs = 3000): Promise<void> {
  let keys: string[];
  try {
    const prefix = localDraftPrefix(uid);
    keys = Array.from({ length: localStorage.length }, (_, i) => localStorage.key(i)).filter((k): k is string => !!k?.startsWith(prefix));
  } catch {
    return; // no storage here: nothing kept
  }
  const flushOne = async (storageKey: string) => {
    const key = storageKey.slice(localDraftPrefix(uid).length);
    const raw = localStorage.getItem(storageKey);
    if (raw === null) return;
    let d: Stored;
    try {
      d = JSON.parse(raw) as Stored;
    } catch {
      localStorage.removeItem(storageKey); // unreadable: it holds no letter
      return;
    }
    const path = draftPath(key);
    const server = await api<{ updatedAt?: number } | null>(path);
    if (!server || typeof server.updatedAt !== "number" || typeof d.updatedAt !== "number" || server.updatedAt < d.updatedAt) {
      await api(path, { method: "PUT", body: draftBody(d) });
    }
    localStorage.removeItem(storageKey);
  };
  const all = Promise.allSettled(keys.map(flushOne));
  await Promise.race([all, new Promise((resolve) => setTimeout(resolve, timeoutMs))]);
}
