import { useEffect, useRef, useState } from "react";
import { ConfirmButtons } from "../../../components/confirm-buttons";
import { Alert, errorMessage, SubmitButton, TextField, useForm } from "../../../components/form";
import { Modal } from "../../../components/modal";
import { ApiError } from "../../../lib/api-client";
import type { SessionUser } from "../../../lib/auth";
import { hasHiddenCharacters, hiddenCharactersRule } from "../../../lib/text-rule";
import { createAccessToken, listAccessTokens, revokeAccessToken, type AccessToken, type TokenScope } from "../api/account";
import { useRecentLogin } from "./reauth";

/**
 * The server's rule (core.CreateAccessToken): one line of 1 to 100 characters once trimmed, without
 * control, invisible or direction-changing characters (the rule of every name: lib/text-rule).
 */
export function tokenNameError(name: string) {
  const trimmed = name.trim();
  if (trimmed === "") return "Please enter a name for the token";
  if ([...trimmed].length > 100 || /[\r\n]/.test(trimmed)) return "The name must be one line of at most 100 characters";
  if (hasHiddenCharacters(trimmed)) return `The name ${hiddenCharactersRule}`;
  return undefined;
}

/** The scopes a new token may get, in the server's order, with what each allows; read-only is checked by default. */
export const scopeChoices: { scope: TokenScope; label: string; short: string }[] = [
  { scope: "messages:read", label: "Read your messages (messages:read)", short: "read messages" },
  { scope: "messages:write", label: "Create, change and delete your messages (messages:write)", short: "write messages" },
  {
    scope: "account",
    label: "Change your account: profile, settings, access tokens, export, billing (account)",
    short: "change the account",
  },
];

/** What a token may do, as the list says it. */
function scopesText(token: AccessToken) {
  if (token.madeBeforeScopes) return "Full access (made before scopes)";
  const shorts = scopeChoices.filter((c) => token.scopes?.includes(c.scope)).map((c) => c.short);
  return `May ${shorts.join(", ")}`;
}

/** The form keeps the chosen scopes as one string, so that the server's field error lands under them. */
const parseScopes = (value: string) => value.split(" ").filter(Boolean) as TokenScope[];

/** Days in the author's time zone (the one the server keeps for their reminders), else the browser's. */
function dayFormat(timeZone: string) {
  try {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "long", timeZone });
  } catch {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "long" });
  }
}

const newestFirst = (list: AccessToken[]) => [...list].sort((a, b) => b.createdAt - a.createdAt);

/**
 * Settings → Security's personal access tokens (the terminal app's and scripts'), newest first:
 * when each was made and last used, Revoke after a confirmation, and a form that makes one and
 * shows its secret this once. Making one needs a recent sign-in, which the dialog asks for.
 */
export function AccessTokens({ account }: { account: SessionUser }) {
  const { guard, dialog } = useRecentLogin();
  const [tokens, setTokens] = useState<AccessToken[]>();
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [created, setCreated] = useState<AccessToken & { token: string }>();
  const [confirming, setConfirming] = useState<AccessToken>();
  const [revoking, setRevoking] = useState(false);
  const [revoked, setRevoked] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const form = useForm({ name: "", scopes: "messages:read" }, ({ name, scopes }) => ({
    name: tokenNameError(name),
    scopes: scopes === "" ? "Choose at least one scope: messages:read, messages:write, account" : undefined,
  }));
  const chosen = parseScopes(form.values.scopes);
  const choose = (scope: TokenScope, on: boolean) => {
    const next = scopeChoices.map((c) => c.scope).filter((s) => (s === scope ? on : chosen.includes(s)));
    form.setValues((values) => ({ ...values, scopes: next.join(" ") }));
    form.setErrors((errors) => ({ ...errors, scopes: undefined }));
  };
  const day = dayFormat(account.timezone);

  useEffect(() => {
    listAccessTokens().then(
      // A token made before the list arrived stays listed.
      (list) => setTokens((made) => newestFirst([...(made ?? []).filter((t) => !list.some((l) => l.id === t.id)), ...list])),
      (caught: unknown) => setError(errorMessage(caught)),
    );
  }, []);

  // The Revoke button that opened the confirmation is gone: focus goes to the section's heading.
  useEffect(() => {
    if (revoked > 0) heading.current?.focus();
  }, [revoked]);

  const create = form.handleSubmit(async ({ name, scopes }) => {
    setError(undefined);
    setNotice(undefined);
    setCreated(undefined);
    await guard(async () => {
      const made = await createAccessToken(name.trim(), parseScopes(scopes));
      setCreated(made);
      const listed: AccessToken = { id: made.id, name: made.name, createdAt: made.createdAt, scopes: made.scopes };
      // A list that could not be read stays unread: one token is not "all of them".
      setTokens((list) => list && newestFirst([listed, ...list]));
    });
    form.setValues({ name: "", scopes: "messages:read" });
  });

  const revoke = async (token: AccessToken) => {
    setRevoking(true);
    setError(undefined);
    setNotice(undefined);
    try {
      await revokeAccessToken(token.id);
      setNotice(`The token “${token.name}” is revoked and no longer works.`);
      setTokens((list) => list?.filter((t) => t.id !== token.id));
      if (created?.id === token.id) setCreated(undefined);
      setRevoked((n) => n + 1);
    } catch (caught) {
      setError(errorMessage(caught));
      // Revoked elsewhere already (another tab, the terminal's logout): the list catches up.
      if (caught instanceof ApiError && caught.code === "token/not-found") {
        setTokens((list) => list?.filter((t) => t.id !== token.id));
        setRevoked((n) => n + 1);
      }
    } finally {
      setRevoking(false);
      setConfirming(undefined);
    }
  };

  return (
    <section aria-labelledby="access-tokens-title">
      <h2 id="access-tokens-title" ref={heading} tabIndex={-1}>
        Access tokens
      </h2>
      <p>
        Access tokens let the terminal app and your scripts use your account; <code>sendlater login</code> makes one for
        each computer it signs in on. Each token may do only what you choose when you make it.
      </p>
      {error && <Alert>{error}</Alert>}
      <div role="status">{notice && <p className="alert alert-success">{notice}</p>}</div>
      {tokens?.length === 0 && <p>You have no access tokens.</p>}
      {tokens && tokens.length > 0 && (
        <ul className="token-list">
          {tokens.map((t) => (
            <li key={t.id}>
              <strong>{t.name}</strong>
              <small>
                Created on {day.format(t.createdAt)} · {t.lastUsedAt ? `Last used on ${day.format(t.lastUsedAt)}` : "Never used"} ·{" "}
                {scopesText(t)}
              </small>
              <button type="button" className="secondary outline" aria-label={`Revoke ${t.name}`} onClick={() => setConfirming(t)}>
                Revoke
              </button>
            </li>
          ))}
        </ul>
      )}
      {created && <NewToken key={created.id} created={created} />}
      <form onSubmit={create} noValidate aria-labelledby="new-token-title">
        <h3 id="new-token-title">New token</h3>
        {form.alert && <Alert>{form.alert}</Alert>}
        <TextField label="Token name" autoComplete="off" placeholder="What is this token for?" {...form.bind("name")} />
        <fieldset aria-describedby={form.errors.scopes ? "token-scopes-help" : undefined} aria-invalid={form.errors.scopes ? true : undefined}>
          <legend>What this token may do</legend>
          {scopeChoices.map(({ scope, label }) => (
            <label key={scope}>
              <input type="checkbox" checked={chosen.includes(scope)} onChange={(event) => choose(scope, event.currentTarget.checked)} />
              {label}
            </label>
          ))}
          {form.errors.scopes && <small id="token-scopes-help">{form.errors.scopes}</small>}
        </fieldset>
        <SubmitButton busy={form.busy} className="outline">
          Create token
        </SubmitButton>
      </form>
      {confirming && (
        <Modal labelledBy="revoke-token-title" onClose={revoking ? undefined : () => setConfirming(undefined)}>
          <article>
            <header>
              <button type="button" aria-label="Close" rel="prev" onClick={() => setConfirming(undefined)} disabled={revoking} />
              <h2 id="revoke-token-title">Revoke “{confirming.name}”?</h2>
            </header>
            <p>Anything that uses this token, such as the terminal app on that computer or a script, stops working at once. This cannot be undone.</p>
            <footer className="confirm">
              <ConfirmButtons action="Revoke token" busy={revoking} onKeep={() => setConfirming(undefined)} onConfirm={() => void revoke(confirming)} />
            </footer>
          </article>
        </Modal>
      )}
      {dialog}
    </section>
  );
}

/** The secret of a token just made, focused and selected for copying; no later reply has it. */
function NewToken({ created }: { created: AccessToken & { token: string } }) {
  const field = useRef<HTMLInputElement>(null);
  const [copy, setCopy] = useState<"copied" | "failed">();

  // Focused (and so selected) in an effect, not by autoFocus: made after the sign-in-again dialog,
  // the field mounts while that dialog still makes the page inert, and the dialog's closing gives
  // focus back to the button that opened it; effects run after that.
  useEffect(() => field.current?.focus(), []);

  // Without a clipboard (an insecure context, a refused permission) the token is selected instead.
  const copyToken = () =>
    Promise.resolve()
      .then(() => navigator.clipboard.writeText(created.token))
      .then(
      () => setCopy("copied"),
      () => {
        field.current?.select();
        setCopy("failed");
      },
    );

  return (
    <div className="new-token">
      <p>
        <strong>Copy your new token now: it will not be shown again.</strong>
      </p>
      <label htmlFor="new-token-secret">Your token “{created.name}”</label>
      <input
        id="new-token-secret"
        ref={field}
        readOnly
        spellCheck={false}
        value={created.token}
        onFocus={(event) => event.currentTarget.select()}
      />
      <button type="button" className="outline" onClick={() => void copyToken()}>
        Copy token
      </button>
      <small role="status">
        {copy === "copied" && "Copied."}
        {copy === "failed" && "Copying did not work here: the token is selected, copy it with your keyboard."}
      </small>
    </div>
  );
}
