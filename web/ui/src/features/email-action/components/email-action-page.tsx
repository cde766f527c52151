import { useSignals } from "@preact/signals-react/runtime";
import { useEffect, useState } from "react";
import { Link, Navigate } from "react-router";
import { Alert, errorMessage } from "../../../components/form";
import { Spinner } from "../../../components/loading";
import { paths } from "../../../config/paths";
import { user } from "../../../lib/auth";
import { applyActionCode, type ActionInfo } from "../api/action";

// Codes are single use: a second application (a remount) must share the first one's answer.
const applied = new Map<string, Promise<ActionInfo>>();

function apply(oobCode: string) {
  let result = applied.get(oobCode);
  if (!result) {
    result = applyActionCode(oobCode);
    applied.set(oobCode, result);
  }
  return result;
}

const successText = {
  verifyEmail: () => "Your email has been verified. You may now close this window.",
  recoverEmail: (email: string) =>
    `Your email has been set back to ${email}. We've also sent you a password reset email so that you can change your password if you think someone may have access to your account.`,
};

const headings: Record<string, string> = {
  verifyEmail: "Verify your email",
  recoverEmail: "Restore your email",
  confirmReminderAddress: "Receive the reminders",
};

/** After a verified address, the way on: the dashboard when signed in here, else sign in first. */
function GoToDashboard() {
  useSignals();
  const to = user.value ? paths.dashboard.href() : paths.auth.href("signin");
  return (
    <p>
      <Link to={to} role="button">
        Go to your dashboard
      </Link>
    </p>
  );
}

type State = { kind: "busy" } | { kind: "done"; text: string } | { kind: "error"; message: string };

function ApplyCode({ mode, oobCode }: { mode: keyof typeof successText; oobCode: string }) {
  const [state, setState] = useState<State>({ kind: "busy" });

  useEffect(() => {
    let live = true;
    apply(oobCode).then(
      (info) => live && setState({ kind: "done", text: successText[mode](info.email) }),
      (error: unknown) => live && setState({ kind: "error", message: errorMessage(error) }),
    );
    return () => {
      live = false;
    };
  }, [mode, oobCode]);

  switch (state.kind) {
    case "busy":
      return <Spinner />;
    case "done":
      return (
        <>
          <Alert kind="success">{state.text}</Alert>
          <GoToDashboard />
        </>
      );
    case "error":
      return (
        <>
          <Alert>{state.message}</Alert>
          <GoToDashboard />
        </>
      );
  }
}

/** For someone who is not a user (a second reminder address): what the service is. */
function AboutTheService() {
  return (
    <p>
      <Link to={paths.home.href()} role="button" className="outline secondary">
        See how it works
      </Link>
    </p>
  );
}

/**
 * A second reminder address agrees to get someone's reminders: by a button, not on load, since mail
 * scanners open links too and consent must be a person's.
 */
function ConfirmReminderAddress({ oobCode }: { oobCode: string }) {
  const [state, setState] = useState<State | { kind: "ask" }>({ kind: "ask" });
  const confirm = () => {
    setState({ kind: "busy" });
    apply(oobCode).then(
      (info) =>
        setState({
          kind: "done",
          text: `Confirmed: ${info.email} will get a copy of each reminder. Every one has a link to refuse them.`,
        }),
      (error: unknown) => setState({ kind: "error", message: errorMessage(error) }),
    );
  };
  switch (state.kind) {
    case "ask":
      return (
        <>
          <p>
            Someone asked that the reminders we send them before each of their messages is delivered be copied to this
            address. Nothing is sent to it unless you confirm.
          </p>
          <button type="button" onClick={confirm}>
            Confirm this address
          </button>
        </>
      );
    case "busy":
      return <Spinner />;
    case "done":
      return (
        <>
          <Alert kind="success">{state.text}</Alert>
          <AboutTheService />
        </>
      );
    case "error":
      return (
        <>
          <Alert>{state.message}</Alert>
          <AboutTheService />
        </>
      );
  }
}

/** The email links' landing page, by mode (SPEC.md section 4). */
export function EmailActionPage({ mode, oobCode }: { mode: string; oobCode: string }) {
  if (mode === "resetPassword") {
    return <Navigate to={`${paths.auth.href("changepass")}?oobCode=${encodeURIComponent(oobCode)}`} replace />;
  }
  return (
    <section className="auth">
      <article>
        <h1>{headings[mode] ?? "Email link"}</h1>
        {mode === "verifyEmail" || mode === "recoverEmail" ? (
          <ApplyCode mode={mode} oobCode={oobCode} />
        ) : mode === "confirmReminderAddress" ? (
          <ConfirmReminderAddress oobCode={oobCode} />
        ) : (
          <>
            <Alert>Invalid mode parameter</Alert>
            <GoToDashboard />
          </>
        )}
      </article>
    </section>
  );
}
