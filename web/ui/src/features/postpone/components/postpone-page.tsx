import { useEffect, useState } from "react";
import { Link } from "react-router";
import { paths } from "../../../config/paths";
import { ApiError } from "../../../lib/api-client";
import { postponeBlocked, postponedTo, postponeNoEffect } from "../../../lib/postpone-words";
import { showToast } from "../../../lib/toasts";
import { getPostponeView, postponeMessage, type PostponeView } from "../api/postpone";

// SPEC.md section 9: the postponed toast stays 6 seconds.
const postponedToastMs = 6000;

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" });

const settled = new Set(["delivered", "sending", "failed"]);

type State =
  | { kind: "loading" }
  | { kind: "error"; message: string }
  | { kind: "ready"; view: PostponeView; busy: boolean; error?: string };

function message(error: unknown) {
  return error instanceof ApiError ? error.message : "Something went wrong. Please try again.";
}

/** The way on from this page, whatever happened: every message, in the dashboard. */
function ToDashboard({ primary = false }: { primary?: boolean }) {
  return (
    <p className="next-step-link">
      <Link to={paths.dashboard.href()} role="button" className={primary ? undefined : "outline secondary"}>
        Open your dashboard
      </Link>
    </p>
  );
}

/**
 * The reminder email's link. Opening it only shows the message (mail scanners
 * open links too); the button postpones it.
 */
export function PostponePage({ id, code }: { id: string; code: string }) {
  const [state, setState] = useState<State>({ kind: "loading" });

  useEffect(() => {
    let live = true;
    getPostponeView(id, code).then(
      (view) => live && setState({ kind: "ready", view, busy: false }),
      (error: unknown) => live && setState({ kind: "error", message: message(error) }),
    );
    return () => {
      live = false;
    };
  }, [id, code]);

  if (state.kind === "loading") {
    return <section aria-busy="true" aria-label="Loading" />;
  }
  if (state.kind === "error") {
    return (
      <section className="narrow">
        <h1>Postpone a message</h1>
        <p role="alert" className="alert alert-error">
          {state.message}
        </p>
        <p>Your messages and their dates are all in your dashboard, where you can postpone any of them.</p>
        <ToDashboard primary />
      </section>
    );
  }

  const { view, busy } = state;
  // The server's rule (core/message_postpone_rule.go): a postpone today may move nothing.
  const blocked = postponeBlocked(view.postponeBlockedUntil);
  const postpone = async () => {
    setState({ kind: "ready", view, busy: true });
    try {
      const { sendDate } = await postponeMessage(id, code);
      if (sendDate === view.sendDate) {
        // The server's day turned before this page's: nothing moved, and the toast says why.
        setState({ kind: "ready", view, busy: false });
        showToast(postponeNoEffect(dateFormat.format(sendDate)), { kind: "info", duration: postponedToastMs });
        return;
      }
      // Postponed today, another postpone today would move nothing: the button says so.
      setState({ kind: "ready", view: { ...view, sendDate, postponeTo: sendDate, postponeBlockedUntil: Infinity }, busy: false });
      showToast(postponedTo(dateFormat.format(sendDate)), { kind: "success", duration: postponedToastMs });
    } catch (error) {
      setState({ kind: "ready", view, busy: false, error: message(error) });
    }
  };

  const done = settled.has(view.status) || blocked;
  return (
    <section className="narrow">
      <h1>Postpone a message</h1>
      <article>
        <header>
          <strong>{view.title}</strong>
        </header>
        <p>
          The message will be delivered on <time className="date" dateTime={new Date(view.sendDate).toISOString()}>{dateFormat.format(view.sendDate)}</time>.
        </p>
        {settled.has(view.status) ? (
          <p>This message can no longer be postponed.</p>
        ) : (
          <>
            {blocked ? (
              <p id="postpone-reason">{postponeNoEffect(dateFormat.format(view.sendDate))}</p>
            ) : (
              <p>
                Postponing moves it to <time className="postpone-to" dateTime={new Date(view.postponeTo).toISOString()}>{dateFormat.format(view.postponeTo)}</time>.
              </p>
            )}
            <button type="button" onClick={postpone} disabled={busy || blocked} aria-busy={busy} aria-describedby={blocked ? "postpone-reason" : undefined}>
              {busy ? "" : "Postpone"}
            </button>
          </>
        )}
        {state.error !== undefined && (
          <p role="alert" className="alert alert-error">
            {state.error}
          </p>
        )}
      </article>
      <ToDashboard primary={done} />
    </section>
  );
}
