import { useEffect, useId, useState, type FormEvent } from "react";
import { Lock } from "../../../components/lucide";
import { ApiError } from "../../../lib/api-client";
import type { FileKeys } from "../../../lib/sealed-file";
import { getSealed, isTestToken, type SealedOpenView } from "../api/open";
import { OpenFiles, type OpenedFile } from "./open-files";

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "long" });

type State =
  | { kind: "loading" }
  | { kind: "error"; message: string }
  | { kind: "test" }
  | { kind: "locked"; view: SealedOpenView; busy: boolean; error?: string }
  // The files open with the passphrase's keys, kept in memory while the page is.
  | { kind: "open"; view: SealedOpenView; text: string; keys: FileKeys; files: OpenedFile[] };

function message(error: unknown) {
  return error instanceof ApiError ? error.message : "Something went wrong. Please try again.";
}

/** Saves the letter as a text file, in the browser. */
function download(text: string) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/plain;charset=utf-8" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = "sealed-message.txt";
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * A sealed message's recipient link (docs/sealed.md): the envelope comes from the server, the
 * passphrase never leaves the browser, which opens it (lib/sealed.ts, loaded only here).
 */
export function OpenPage({ token }: { token: string }) {
  const [state, setState] = useState<State>(() => (isTestToken(token) ? { kind: "test" } : { kind: "loading" }));
  const [passphrase, setPassphrase] = useState("");
  const fieldId = useId();

  useEffect(() => {
    if (isTestToken(token)) return;
    let live = true;
    getSealed(token).then(
      (view) => live && setState({ kind: "locked", view, busy: false }),
      (error: unknown) => live && setState({ kind: "error", message: message(error) }),
    );
    return () => {
      live = false;
    };
  }, [token]);

  if (state.kind === "loading") {
    return <section aria-busy="true" aria-label="Loading" />;
  }
  if (state.kind === "test") {
    return (
      <section className="narrow">
        <h1>Open a sealed message</h1>
        <p role="status" className="alert alert-success">
          This is the link of a preview or a test email: it opens nothing. Each recipient's email carries a link of
          their own, which opens the message once it is delivered.
        </p>
      </section>
    );
  }
  if (state.kind === "error") {
    return (
      <section className="narrow">
        <h1>Open a sealed message</h1>
        <p role="alert" className="alert alert-error">
          {state.message}
        </p>
      </section>
    );
  }

  const { view } = state;
  const from = (
    <p>
      From {view.author}, written on <time dateTime={new Date(view.writtenAt).toISOString()}>{dateFormat.format(view.writtenAt)}</time>.
    </p>
  );
  if (state.kind === "open") {
    return (
      <section className="narrow sealed-open">
        <h1>A message for {view.to}</h1>
        {from}
        <article className="sealed-letter">{state.text}</article>
        <p className="sealed-actions">
          <button type="button" className="outline secondary" onClick={() => window.print()}>
            Print
          </button>
          <button type="button" className="outline secondary" onClick={() => download(state.text)}>
            Download as text
          </button>
        </p>
        {state.files.length > 0 && <OpenFiles messageId={view.messageId} files={state.files} keys={state.keys} />}
      </section>
    );
  }

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (passphrase === "") {
      setState({ ...state, error: "Please enter the passphrase." });
      return;
    }
    setState({ ...state, busy: true, error: undefined });
    const [{ openSealed, SealedError }, { FileKeys, openedFileSize }] = await Promise.all([
      import("../../../lib/sealed"),
      import("../../../lib/sealed-file"),
    ]);
    try {
      const text = await openSealed(passphrase, view.messageId, view.envelope);
      setPassphrase("");
      const files = (view.files ?? []).map((f) => ({ ...f, opened: openedFileSize(f.size) }));
      setState({ kind: "open", view, text, keys: new FileKeys(passphrase), files });
    } catch (error) {
      const wrong = error instanceof SealedError && error.kind === "wrong-passphrase";
      setState({
        kind: "locked",
        view,
        busy: false,
        error: wrong
          ? "This passphrase does not open the message. Check it against the hint and try again; nothing was sent to Sendlater."
          : "This sealed message cannot be opened by this version of Sendlater.",
      });
    }
  };

  return (
    <section className="narrow">
      <h1>
        <Lock size={24} aria-hidden="true" className="title-icon" /> A sealed message for {view.to}
      </h1>
      {from}
      <p>
        {view.author} sealed it with a passphrase they shared with you. It opens here, in your browser: the passphrase is
        never sent, and Sendlater cannot read the message or recover the passphrase.
      </p>
      {view.hint !== undefined && view.hint !== "" && (
        <p>
          Their hint: <strong className="sealed-hint">{view.hint}</strong>
        </p>
      )}
      <form onSubmit={submit} noValidate>
        <label htmlFor={fieldId}>Passphrase</label>
        <input
          id={fieldId}
          type="password"
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          value={passphrase}
          onChange={(e) => setPassphrase(e.target.value)}
          aria-invalid={state.error !== undefined ? true : undefined}
          aria-describedby={state.error !== undefined ? `${fieldId}-error` : undefined}
        />
        {state.error !== undefined && (
          <p id={`${fieldId}-error`} role="alert" className="alert alert-error">
            {state.error}
          </p>
        )}
        <button type="submit" disabled={state.busy} aria-busy={state.busy}>
          {state.busy ? "Opening…" : "Open the message"}
        </button>
      </form>
    </section>
  );
}
