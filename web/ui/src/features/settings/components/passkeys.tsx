import { useEffect, useRef, useState } from "react";
import { ConfirmButtons } from "../../../components/confirm-buttons";
import { Alert, errorMessage, SubmitButton, TextField, useForm } from "../../../components/form";
import { Fingerprint } from "../../../components/lucide";
import { Modal } from "../../../components/modal";
import { ApiError } from "../../../lib/api-client";
import type { SessionUser } from "../../../lib/auth";
import { hasHiddenCharacters, hiddenCharactersRule } from "../../../lib/text-rule";
import { PasskeyError } from "../../../lib/webauthn";
import { addPasskey, listPasskeys, removePasskey, renamePasskey, type Passkey } from "../api/passkeys";
import { useRecentLogin } from "./reauth";

/** The server's rule of every name (core.Passkey.Validate): one line of 1 to 100 characters, nothing hidden. */
export function passkeyNameError(name: string) {
  const trimmed = name.trim();
  if (trimmed === "") return "Please enter a name for the passkey";
  if ([...trimmed].length > 100 || /[\r\n]/.test(trimmed)) return "The name must be one line of at most 100 characters";
  if (hasHiddenCharacters(trimmed)) return `The name ${hiddenCharactersRule}`;
  return undefined;
}

/** Days in the author's time zone, else the browser's. */
function dayFormat(timeZone: string) {
  try {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "long", timeZone });
  } catch {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "long" });
  }
}

const isRecentLogin = (error: unknown) => error instanceof ApiError && error.code === "auth/requires-recent-login";

/**
 * Settings → Security's passkeys: each with when it was added and last used; add one (named,
 * after a recent sign-in, the browser's prompt in between), rename one, remove one after a
 * confirmation and a recent sign-in. A prompt the person closed says so and changes nothing.
 */
export function Passkeys({ account }: { account: SessionUser }) {
  const { guard, dialog } = useRecentLogin();
  const [passkeys, setPasskeys] = useState<Passkey[]>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [renaming, setRenaming] = useState<string>();
  const [confirming, setConfirming] = useState<Passkey>();
  const [removing, setRemoving] = useState(false);
  const [changed, setChanged] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const day = dayFormat(account.timezone);
  const form = useForm({ name: "" }, ({ name }) => ({ name: passkeyNameError(name) }));

  useEffect(() => {
    listPasskeys().then(
      (list) => setPasskeys((added) => [...list, ...(added ?? []).filter((p) => !list.some((l) => l.id === p.id))]),
      (caught: unknown) => setError(errorMessage(caught)),
    );
  }, []);

  // The button that opened the confirmation is gone: focus goes to the section's heading.
  useEffect(() => {
    if (changed > 0) heading.current?.focus();
  }, [changed]);

  const add = form.handleSubmit(async ({ name }) => {
    setError(undefined);
    setNotice(undefined);
    try {
      await guard(async () => {
        const made = await addPasskey(name.trim());
        setPasskeys((list) => list && [...list, made]);
        setNotice(`The passkey “${made.name}” is added: use it to sign in.`);
      });
    } catch (caught) {
      // Closing the sign-in-again dialog is no error; the page's own abort says nothing.
      if (isRecentLogin(caught) || (caught instanceof PasskeyError && caught.reason === "aborted")) return;
      throw caught;
    }
    form.setValues({ name: "" });
  });

  const remove = async (passkey: Passkey) => {
    setRemoving(true);
    setError(undefined);
    setNotice(undefined);
    setConfirming(undefined);
    try {
      await guard(() => removePasskey(passkey.id).then(() => undefined));
      setPasskeys((list) => list?.filter((p) => p.id !== passkey.id));
      setNotice(`The passkey “${passkey.name}” is removed: it no longer signs in to your account.`);
      setChanged((n) => n + 1);
    } catch (caught) {
      if (isRecentLogin(caught)) return;
      setError(errorMessage(caught));
      // Removed elsewhere already: the list catches up.
      if (caught instanceof ApiError && caught.code === "request/not-found") {
        setPasskeys((list) => list?.filter((p) => p.id !== passkey.id));
        setChanged((n) => n + 1);
      }
    } finally {
      setRemoving(false);
    }
  };

  const renamed = (passkey: Passkey) => {
    setPasskeys((list) => list?.map((p) => (p.id === passkey.id ? passkey : p)));
    setRenaming(undefined);
    setNotice(`The passkey is now named “${passkey.name}”.`);
  };

  return (
    <section aria-labelledby="passkeys-title">
      <h2 id="passkeys-title" ref={heading} tabIndex={-1}>
        Passkeys
      </h2>
      <p>
        A passkey signs you in with your fingerprint, face or screen lock instead of your password. It stays on your
        device or in your password manager, and it works only on this site.
      </p>
      {error && <Alert>{error}</Alert>}
      <div role="status">{notice && <p className="alert alert-success">{notice}</p>}</div>
      {passkeys?.length === 0 && (
        <div className="empty-state">
          <Fingerprint size={32} aria-hidden="true" />
          <p>
            <strong>No passkeys yet.</strong>
          </p>
          <p>Name one after the device it is on, then add it: your browser asks you to confirm.</p>
        </div>
      )}
      {passkeys && passkeys.length > 0 && (
        <ul className="token-list passkey-list">
          {passkeys.map((p) =>
            renaming === p.id ? (
              <li key={p.id}>
                <RenameForm passkey={p} onDone={renamed} onCancel={() => setRenaming(undefined)} />
              </li>
            ) : (
              <li key={p.id}>
                <strong>{p.name}</strong>
                <small>
                  Added on {day.format(p.createdAt)} · {p.lastUsedAt && p.lastUsedAt > p.createdAt ? `Last used on ${day.format(p.lastUsedAt)}` : "Not used to sign in yet"}
                  {p.synced && " · Synced"}
                </small>
                <span className="row-actions">
                  <button type="button" className="quiet" aria-label={`Rename ${p.name}`} onClick={() => setRenaming(p.id)}>
                    Rename
                  </button>
                  <button type="button" className="secondary outline" aria-label={`Remove ${p.name}`} onClick={() => setConfirming(p)}>
                    Remove
                  </button>
                </span>
              </li>
            ),
          )}
        </ul>
      )}
      <form onSubmit={add} noValidate aria-labelledby="new-passkey-title">
        <h3 id="new-passkey-title">Add a passkey</h3>
        {form.alert && <Alert>{form.alert}</Alert>}
        <TextField label="Passkey name" autoComplete="off" placeholder="For example, MacBook" {...form.bind("name")} />
        <SubmitButton busy={form.busy}>Add a passkey</SubmitButton>
      </form>
      {confirming && (
        <Modal labelledBy="remove-passkey-title" onClose={removing ? undefined : () => setConfirming(undefined)}>
          <article>
            <header>
              <button type="button" aria-label="Close" rel="prev" onClick={() => setConfirming(undefined)} disabled={removing} />
              <h2 id="remove-passkey-title">Remove “{confirming.name}”?</h2>
            </header>
            <p>
              It no longer signs in to your account. Your device may keep offering it: delete it there too (your browser's
              or password manager's passkey settings).
            </p>
            <footer className="confirm">
              <ConfirmButtons action="Remove passkey" busy={removing} onKeep={() => setConfirming(undefined)} onConfirm={() => void remove(confirming)} />
            </footer>
          </article>
        </Modal>
      )}
      {dialog}
    </section>
  );
}

/** A passkey's new name, in place of its row; Escape or Cancel keeps the old one. */
function RenameForm({ passkey, onDone, onCancel }: { passkey: Passkey; onDone: (p: Passkey) => void; onCancel: () => void }) {
  const form = useForm({ name: passkey.name }, ({ name }) => ({ name: passkeyNameError(name) }));
  const submit = form.handleSubmit(async ({ name }) => onDone(await renamePasskey(passkey.id, name.trim())));
  return (
    <form
      onSubmit={submit}
      noValidate
      aria-label={`Rename ${passkey.name}`}
      className="rename-form"
      onKeyDown={(event) => event.key === "Escape" && onCancel()}
    >
      {form.alert && <Alert>{form.alert}</Alert>}
      <TextField label={`New name for “${passkey.name}”`} autoComplete="off" autoFocus {...form.bind("name")} />
      <SubmitButton busy={form.busy} className="outline">
        Save name
      </SubmitButton>{" "}
      <button type="button" className="quiet" onClick={onCancel} disabled={form.busy}>
        Cancel
      </button>
    </form>
  );
}
