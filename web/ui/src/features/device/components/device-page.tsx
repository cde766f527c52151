import { useEffect, useRef, useState } from "react";
import { Link, useNavigate } from "react-router";
import { Alert, errorMessage, requireFields, SubmitButton, TextField, useForm } from "../../../components/form";
import { Check, SquareTerminal } from "../../../components/lucide";
import { paths } from "../../../config/paths";
import { ApiError } from "../../../lib/api-client";
import { signOut, user } from "../../../lib/auth";
import { approveDevice, denyDevice, lookUpDevice, type DeviceRequest } from "../api/device";

type State =
  | { kind: "enter" }
  | { kind: "confirm"; code: string; request: DeviceRequest }
  | { kind: "approved"; request: DeviceRequest }
  | { kind: "denied" };

/** The code as the terminal shows it: upper case, XXXX-XXXX. */
function shown(code: string) {
  const plain = code.toUpperCase().replace(/[\s-]/g, "");
  return plain.length === 8 ? `${plain.slice(0, 4)}-${plain.slice(4)}` : code.trim();
}

function timeFormat() {
  const timeZone = user.peek()?.timezone;
  try {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short", timeZone });
  } catch {
    return new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  }
}

/** What the token may do, in the words `sendlater login` uses. */
function scopeWords(scopes: string[]) {
  const read = scopes.includes("messages:read");
  const write = scopes.includes("messages:write");
  const may = read && write ? "read and write your messages" : read ? "read your messages" : write ? "write your messages" : "not touch your messages";
  return scopes.includes("account") ? `${may} and change your account` : `${may}, but not change your account`;
}

function ToDashboard() {
  return (
    <p className="next-step-link">
      <Link to={paths.dashboard.href()} role="button" className="outline secondary">
        Open your dashboard
      </Link>
    </p>
  );
}

/**
 * /device: approving a terminal's sign-in (`sendlater login --device`, RFC 8628's pattern). The
 * user types the code the terminal shows (or arrives with it in the link), sees what asks, and
 * approves or denies. Approving makes a token, so it needs a recent sign-in: when this one is
 * older, the page signs out and back in (a passkey, a provider or the password, and the second
 * factor) and comes back here with the code.
 */
export function DevicePage({ initialCode }: { initialCode: string }) {
  const [state, setState] = useState<State>({ kind: "enter" });
  const form = useForm({ userCode: shown(initialCode) }, (values) =>
    requireFields(values, { userCode: "Please enter the code your terminal shows" }),
  );
  const lookUp = form.handleSubmit(async ({ userCode }) => {
    const request = await lookUpDevice(shown(userCode));
    setState({ kind: "confirm", code: shown(userCode), request });
  });
  // A link with the code looks it up at once; the page still asks to compare it with the terminal.
  const looked = useRef(false);
  useEffect(() => {
    if (initialCode !== "" && !looked.current) {
      looked.current = true;
      void lookUp();
    }
  }, [initialCode, lookUp]);

  return (
    <section className="narrow device-page">
      <h1>Sign in a terminal</h1>
      {state.kind === "enter" && (
        <article>
          <form onSubmit={lookUp} noValidate>
            <p>
              Run <code>sendlater login --device</code> in your terminal and type the code it shows. Nothing signs in until you approve it on the next
              step.
            </p>
            {form.alert && <Alert>{form.alert}</Alert>}
            <TextField
              label="Code from your terminal"
              autoComplete="off"
              autoCapitalize="characters"
              spellCheck={false}
              placeholder="BCDF-GHJK"
              autoFocus
              {...form.bind("userCode")}
            />
            <SubmitButton busy={form.busy}>Continue</SubmitButton>
          </form>
        </article>
      )}
      {state.kind === "confirm" && <Confirm code={state.code} request={state.request} onDone={setState} onBack={() => setState({ kind: "enter" })} />}
      {state.kind === "approved" && (
        <article>
          <Alert kind="success">
            {state.request.clientName} is signed in. Go back to your terminal: it finishes by itself.
          </Alert>
          <p>
            Its access token is listed in <Link to={paths.settings.href("security")}>Settings → Security</Link>, where you can revoke it.
          </p>
          <ToDashboard />
        </article>
      )}
      {state.kind === "denied" && (
        <article>
          <Alert kind="success">Denied: nothing was signed in. The terminal is told so.</Alert>
          <ToDashboard />
        </article>
      )}
    </section>
  );
}

function Confirm({ code, request, onDone, onBack }: { code: string; request: DeviceRequest; onDone: (s: State) => void; onBack: () => void }) {
  const [busy, setBusy] = useState<"approve" | "deny" | "signin">();
  const [error, setError] = useState<string>();
  const [stale, setStale] = useState(false);
  const navigate = useNavigate();
  const at = timeFormat();

  const act = (kind: "approve" | "deny") => async () => {
    setBusy(kind);
    setError(undefined);
    try {
      if (kind === "approve") onDone({ kind: "approved", request: await approveDevice(code) });
      else {
        await denyDevice(code);
        onDone({ kind: "denied" });
      }
    } catch (caught) {
      if (caught instanceof ApiError && caught.code === "auth/requires-recent-login") setStale(true);
      else setError(errorMessage(caught));
      setBusy(undefined);
    }
  };
  // Signed out, the guard sends the user to sign in and back to this page with the code.
  const signInAgain = async () => {
    setBusy("signin");
    void navigate(paths.device.href(code), { replace: true });
    await signOut().catch(() => undefined);
  };

  return (
    <article aria-labelledby="device-request">
      <header className="device-request">
        <SquareTerminal size={32} aria-hidden="true" />
        <h2 id="device-request">Sign in {request.clientName}?</h2>
      </header>
      <p>Check that your terminal shows this code. If it does not, or you did not just run sendlater login, deny.</p>
      <p className="device-code" aria-label="The code">
        {code}
      </p>
      <dl className="device-facts">
        <dt>What asks</dt>
        <dd>{request.device}</dd>
        {request.network && (
          <>
            <dt>From the network</dt>
            <dd>{request.network}</dd>
          </>
        )}
        <dt>Asked</dt>
        <dd>
          <time dateTime={new Date(request.createdAt).toISOString()}>{at.format(request.createdAt)}</time>
        </dd>
        <dt>It may</dt>
        <dd>{scopeWords(request.scopes)}</dd>
      </dl>
      {error && <Alert>{error}</Alert>}
      {stale && (
        <Alert>
          You signed in here more than 5 minutes ago. To give a terminal a key to your account, sign in again: you come back to this page with the
          code.
        </Alert>
      )}
      <footer className="device-actions">
        {stale ? (
          <button type="button" onClick={signInAgain} disabled={busy !== undefined} aria-busy={busy === "signin"}>
            Sign in again
          </button>
        ) : (
          <button type="button" onClick={act("approve")} disabled={busy !== undefined} aria-busy={busy === "approve"}>
            <Check size={18} aria-hidden="true" /> Approve
          </button>
        )}
        <button type="button" className="outline secondary" onClick={act("deny")} disabled={busy !== undefined} aria-busy={busy === "deny"}>
          Deny
        </button>
        <button type="button" className="quiet" onClick={onBack} disabled={busy !== undefined}>
          Another code
        </button>
      </footer>
    </article>
  );
}
