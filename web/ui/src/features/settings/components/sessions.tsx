import { useEffect, useRef, useState } from "react";
import { ConfirmButtons } from "../../../components/confirm-buttons";
import { Alert, errorMessage } from "../../../components/form";
import { Modal } from "../../../components/modal";
import { ApiError } from "../../../lib/api-client";
import { signOut, type SessionUser } from "../../../lib/auth";
import { listSessions, revokeOtherSessions, revokeSession, setSignInAlerts, type SignedInSession } from "../api/account";
import { useRecentLogin } from "./reauth";

/** Times in the author's time zone (the one the server keeps for their emails), else the browser's. */
function timeFormat(timeZone: string) {
  try {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short", timeZone });
  } catch {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  }
}

type Confirming = { kind: "one"; session: SignedInSession } | { kind: "others" };

/**
 * Settings → Security's "Where you are signed in": every session of the account, this browser's
 * marked, with its device, network, sign-in and last use; End one (this browser's is signing out),
 * or every other, after a confirmation and a recent sign-in; and the switch of the email about a
 * sign-in from a new device.
 */
export function Sessions({ account }: { account: SessionUser }) {
  const { guard, dialog } = useRecentLogin();
  const [sessions, setSessions] = useState<SignedInSession[]>();
  const [alerts, setAlerts] = useState<boolean>();
  const [savingAlerts, setSavingAlerts] = useState(false);
  const [error, setError] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [confirming, setConfirming] = useState<Confirming>();
  const [busy, setBusy] = useState(false);
  const [ended, setEnded] = useState(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const time = timeFormat(account.timezone);

  useEffect(() => {
    listSessions().then(
      (reply) => {
        setSessions(reply.sessions);
        setAlerts(reply.signInAlerts);
      },
      (caught: unknown) => setError(errorMessage(caught)),
    );
  }, []);

  // The button that opened the confirmation is gone: focus goes to the section's heading.
  useEffect(() => {
    if (ended > 0) heading.current?.focus();
  }, [ended]);

  const end = async (what: Confirming) => {
    setBusy(true);
    setError(undefined);
    setNotice(undefined);
    // The confirmation closes first: a sign-in-again dialog may follow.
    setConfirming(undefined);
    try {
      if (what.kind === "one" && what.session.current) {
        await signOut();
        return;
      }
      if (what.kind === "one") {
        await guard(() => revokeSession(what.session.id).then(() => undefined));
        setSessions((list) => list?.filter((s) => s.id !== what.session.id));
        setNotice(`The sign-in on ${what.session.device} has ended.`);
      } else {
        let revoked = 0;
        await guard(() => revokeOtherSessions().then((reply) => void (revoked = reply.revoked)));
        setSessions((list) => list?.filter((s) => s.current));
        setNotice(revoked === 1 ? "You were signed out of 1 other sign-in." : `You were signed out of ${revoked} other sign-ins.`);
      }
      setEnded((n) => n + 1);
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "auth/requires-recent-login") return;
      setError(errorMessage(caught));
      // Ended elsewhere already (another tab, a password change): the list catches up.
      if (what.kind === "one" && caught instanceof ApiError && caught.code === "request/not-found") {
        setSessions((list) => list?.filter((s) => s.id !== what.session.id));
        setEnded((n) => n + 1);
      }
    } finally {
      setBusy(false);
    }
  };

  const switchAlerts = async (on: boolean) => {
    setSavingAlerts(true);
    setError(undefined);
    try {
      await guard(() => setSignInAlerts(on).then((reply) => setAlerts(reply.signInAlerts)));
    } catch (caught) {
      if (!(caught instanceof ApiError && caught.code === "auth/requires-recent-login")) setError(errorMessage(caught));
    } finally {
      setSavingAlerts(false);
    }
  };

  const others = sessions?.filter((s) => !s.current).length ?? 0;

  return (
    <section aria-labelledby="sessions-title">
      <h2 id="sessions-title" ref={heading} tabIndex={-1}>
        Where you are signed in
      </h2>
      <p>
        Every browser and device signed in to your account. If you do not know one, end it and choose a new password.
      </p>
      {error && <Alert>{error}</Alert>}
      <div role="status">{notice && <p className="alert alert-success">{notice}</p>}</div>
      {sessions && (
        <ul className="token-list session-list">
          {sessions.map((s) => (
            <li key={s.id}>
              <strong>{s.device}</strong>
              {s.current && <em>This browser</em>}
              <small>
                {s.network ? `Network ${s.network}` : "Network unknown"} · Signed in {time.format(s.createdAt)} · Last seen{" "}
                {time.format(s.lastSeenAt)}
              </small>
              <button
                type="button"
                className="secondary outline"
                aria-label={s.current ? "Sign out of this browser" : `End the sign-in on ${s.device}, last seen ${time.format(s.lastSeenAt)}`}
                onClick={() => setConfirming({ kind: "one", session: s })}
              >
                {s.current ? "Sign out" : "End"}
              </button>
            </li>
          ))}
        </ul>
      )}
      {others > 0 && (
        <button type="button" className="outline" disabled={busy} aria-busy={busy} onClick={() => setConfirming({ kind: "others" })}>
          Sign out everywhere else
        </button>
      )}
      {alerts !== undefined && (
        <label>
          <input
            type="checkbox"
            role="switch"
            checked={alerts}
            disabled={savingAlerts}
            aria-busy={savingAlerts}
            onChange={(event) => void switchAlerts(event.currentTarget.checked)}
          />
          Email me when my account is signed in to from a new device or network
        </label>
      )}
      {confirming && (
        <Modal labelledBy="end-session-title" onClose={busy ? undefined : () => setConfirming(undefined)}>
          <article>
            <header>
              <button type="button" aria-label="Close" rel="prev" onClick={() => setConfirming(undefined)} disabled={busy} />
              <h2 id="end-session-title">
                {confirming.kind === "others"
                  ? "Sign out everywhere else?"
                  : confirming.session.current
                    ? "Sign out of this browser?"
                    : `End the sign-in on ${confirming.session.device}?`}
              </h2>
            </header>
            <p>
              {confirming.kind === "others"
                ? "Every other browser and device is signed out at once. Access tokens keep working: revoke them below."
                : "That browser is signed out at once; whoever uses it must sign in again."}
            </p>
            <footer className="confirm">
              <ConfirmButtons
                action={confirming.kind === "others" ? "Sign out others" : confirming.session.current ? "Sign out" : "End sign-in"}
                busy={busy}
                onKeep={() => setConfirming(undefined)}
                onConfirm={() => void end(confirming)}
              />
            </footer>
          </article>
        </Modal>
      )}
      {dialog}
    </section>
  );
}
