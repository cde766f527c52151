import { useEffect, useRef, useState } from "react";
import {
  deleteServerDraft,
  getServerDraft,
  putServerDraft,
  readLocalDraft,
  removeLocalDraft,
  writeLocalDraft,
  type Draft,
  type DraftKey,
} from "../api/drafts";

export type DraftText = Omit<Draft, "updatedAt">;

export type DraftStatus = "none" | "saving" | "saved" | "device";

/** Whether two drafts say the same (their times aside). */
export const sameText = (a: DraftText, b: DraftText) =>
  a.title === b.title &&
  a.message === b.message &&
  a.interval === b.interval &&
  a.recipients.length === b.recipients.length &&
  a.recipients.every((r, i) => r.name === b.recipients[i]?.name && r.recipient === b.recipients[i]?.recipient);

/** How long the writing rests before the server's copy is written. */
export const serverDelay = 1000;

/** This device's draft of key when it says something other than what is stored, read once. */
export function useLocalDraft(uid: string | undefined, key: DraftKey, stored: DraftText) {
  const [local] = useState(() => {
    const d = uid === undefined ? undefined : readLocalDraft(uid, key);
    return d !== undefined && !sameText(d, stored) ? d : undefined;
  });
  return local;
}

/**
 * Keeps the dialog's draft: on this device at every change (localStorage, per user and key),
 * on the server a second after the writing rests, and offers back the newer of the two when the
 * dialog opens (the local one at once, the server's when it answers, unless the author typed
 * meanwhile). A draft back to what is stored is deleted. The server's writes go one after the
 * other, so a delete after a save is the last word.
 */
export function useDraft({
  uid,
  draftKey,
  text,
  stored,
  restoredLocal,
  apply,
}: {
  uid: string | undefined;
  draftKey: DraftKey;
  /** The form now. */
  text: DraftText;
  /** What the message says (empty for a new one): no draft is needed to keep it. */
  stored: DraftText;
  /** The local draft the form opened with, if any (useLocalDraft). */
  restoredLocal: Draft | undefined;
  /** Puts a draft in the form. */
  apply: (d: DraftText) => void;
}) {
  const [restoredAt, setRestoredAt] = useState(restoredLocal?.updatedAt);
  const [status, setStatus] = useState<DraftStatus>(restoredLocal ? "device" : "none");
  const typed = useRef(false);
  const stopped = useRef(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const chain = useRef<Promise<unknown>>(Promise.resolve());
  const latest = useRef(text);
  const shown = useRef(JSON.stringify(text));
  latest.current = text;
  const signedIn = uid !== undefined;

  const queue = (op: () => Promise<unknown>) => {
    chain.current = chain.current.then(op, op);
    return chain.current;
  };

  const pushToServer = () => {
    clearTimeout(timer.current);
    timer.current = undefined;
    if (!signedIn) return;
    const t = latest.current;
    if (sameText(t, stored)) {
      void queue(() => deleteServerDraft(draftKey).catch(() => undefined));
      return;
    }
    void queue(() =>
      putServerDraft(draftKey, t).then(
        () => !stopped.current && setStatus("saved"),
        () => !stopped.current && setStatus("device"),
      ),
    );
  };

  // The server's copy, when it is newer than this device's and the author has not typed yet.
  useEffect(() => {
    if (!signedIn) return;
    let live = true;
    void getServerDraft(draftKey).then((d) => {
      if (!live || d === undefined || typed.current || stopped.current) return;
      if (d.updatedAt <= (restoredLocal?.updatedAt ?? 0) || sameText(d, stored)) return;
      shown.current = JSON.stringify({ title: d.title, recipients: d.recipients, message: d.message, interval: d.interval });
      apply(d);
      writeLocalDraft(uid, draftKey, d);
      setRestoredAt(d.updatedAt);
      setStatus("saved");
    });
    return () => {
      live = false;
    };
    // Once, when the dialog opens.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // Every change: this device now, the server after a rest.
  const serialized = JSON.stringify(text);
  useEffect(() => {
    if (serialized === shown.current || stopped.current) return;
    shown.current = serialized;
    typed.current = true;
    if (uid === undefined) return;
    if (sameText(latest.current, stored)) {
      removeLocalDraft(uid, draftKey);
      setStatus("none");
    } else {
      writeLocalDraft(uid, draftKey, { ...latest.current, updatedAt: Date.now() });
      setStatus("saving");
    }
    clearTimeout(timer.current);
    timer.current = setTimeout(pushToServer, serverDelay);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [serialized]);

  // A closed dialog writes what waits at once.
  useEffect(
    () => () => {
      if (timer.current !== undefined && !stopped.current) pushToServer();
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [],
  );

  return {
    status,
    /** When the draft the form shows was written, if one was offered back. */
    restoredAt,
    /** Writes the server's copy now (leaving the dialog). */
    flush: () => {
      if (timer.current !== undefined) pushToServer();
    },
    /** Forgets the draft: the form goes back to what is stored. */
    discard: () => {
      clearTimeout(timer.current);
      timer.current = undefined;
      if (uid !== undefined) removeLocalDraft(uid, draftKey);
      if (signedIn) void queue(() => deleteServerDraft(draftKey).catch(() => undefined));
      shown.current = JSON.stringify(stored);
      apply(stored);
      setRestoredAt(undefined);
      setStatus("none");
    },
    /** The message was saved or deleted: no draft is kept any more. */
    done: () => {
      stopped.current = true;
      clearTimeout(timer.current);
      timer.current = undefined;
      if (uid !== undefined) removeLocalDraft(uid, draftKey);
      if (signedIn) void queue(() => deleteServerDraft(draftKey).catch(() => undefined));
    },
  };
}
