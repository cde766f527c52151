import { api } from "../../../lib/api-client";
import { draftBody, draftPath as path, localDraftPrefix } from "../../../lib/local-drafts";
import type { Interval, RecipientInput } from "./messages";

/** The message dialog's unsent form: of a new message (key "new") or of one being edited (its id). */
export type Draft = {
  title: string;
  recipients: RecipientInput[];
  message: string;
  interval: Interval | "";
  /** When it was written, in ms. */
  updatedAt: number;
};

export type DraftKey = string;

/** The server's copy (docs/api.md, "Drafts"); undefined when there is none (null) or it cannot be read. */
export const getServerDraft = (key: DraftKey) =>
  api<Draft | null>(path(key)).then(
    (d) => d ?? undefined,
    () => undefined,
  );

export const putServerDraft = (key: DraftKey, draft: Omit<Draft, "updatedAt">) =>
  api<Draft>(path(key), { method: "PUT", body: draftBody(draft) });

export const deleteServerDraft = (key: DraftKey) => api<null>(path(key), { method: "DELETE" });

// This device's copy, per user and key: written on every change, so a closed tab, a crash or
// an ended session loses nothing, even offline. An explicit sign-out hands it to the server and
// forgets it here (lib/local-drafts.ts).
const localKey = (uid: string, key: DraftKey) => localDraftPrefix(uid) + key;

export function readLocalDraft(uid: string, key: DraftKey): Draft | undefined {
  try {
    const raw = localStorage.getItem(localKey(uid, key));
    if (raw === null) return undefined;
    const d = JSON.parse(raw) as Partial<Draft>;
    if (typeof d.message !== "string" || typeof d.updatedAt !== "number") return undefined;
    return {
      title: typeof d.title === "string" ? d.title : "",
      recipients: Array.isArray(d.recipients) ? d.recipients.filter((r) => typeof r?.name === "string" && typeof r?.recipient === "string") : [],
      message: d.message,
      interval: d.interval ?? "",
      updatedAt: d.updatedAt,
    };
  } catch {
    return undefined;
  }
}

export function writeLocalDraft(uid: string, key: DraftKey, draft: Draft) {
  try {
    localStorage.setItem(localKey(uid, key), JSON.stringify(draft));
    return true;
  } catch {
    return false; // full or forbidden: the server's copy remains
  }
}

export function removeLocalDraft(uid: string, key: DraftKey) {
  try {
    localStorage.removeItem(localKey(uid, key));
  } catch {
    // nothing kept, nothing to remove
  }
}
