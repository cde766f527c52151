import { useId, useState } from "react";
import { Link } from "react-router";
import { TextField } from "../../../components/form";
import { paths } from "../../../config/paths";
import { Lock } from "../../../components/lucide";
import { passphraseBits, sealMinBits } from "../../../lib/sealed";

/** The form's fields of a seal: named as the server names the hint in its errors. */
export type SealField = "seal" | "passphrase" | "passphraseConfirm" | "sealed.hint";

/** Why a passphrase is refused, in words (docs/sealed.md); undefined when it is strong enough. */
export function weakPassphrase(passphrase: string) {
  const bits = passphraseBits(passphrase);
  return bits >= sealMinBits
    ? undefined
    : `This passphrase is too easy to guess (about ${bits} bits of the ${sealMinBits} needed): use six or more random words, or add more words, digits and symbols`;
}

/** The seal's checks before sealing: the server never sees the passphrase, so only this page can. */
export function sealErrors(values: Record<string, string>): Partial<Record<SealField, string>> {
  if (values.seal !== "on") return {};
  const passphrase = values.passphrase ?? "";
  const hint = (values["sealed.hint"] ?? "").toLowerCase();
  const errors: Partial<Record<SealField, string>> = {};
  if (passphrase === "") errors.passphrase = "Please enter a passphrase";
  else errors.passphrase = weakPassphrase(passphrase);
  if ((values.passphraseConfirm ?? "") !== passphrase) errors.passphraseConfirm = "The two passphrases differ";
  if (passphrase.trim() !== "" && hint.includes(passphrase.trim().toLowerCase())) {
    errors["sealed.hint"] = "The hint contains the passphrase: anyone who reads the email could open the message";
  }
  return errors;
}

/** A new sealed message's id (core.NewID's shape): its envelope is bound to it. */
export function newSealedId() {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let id = "";
  while (id.length < 20) {
    for (const b of crypto.getRandomValues(new Uint8Array(32))) {
      if (b < 248 && id.length < 20) id += alphabet[b % 62];
    }
  }
  return id;
}

type Bind = (name: SealField) => {
  name: string;
  value?: string;
  error?: string;
  onChange: (event: React.ChangeEvent<HTMLInputElement>) => void;
};

/**
 * "Seal with a passphrase": the passphrase twice, its strength, an optional hint, and what a
 * seal means. The passphrase never leaves the browser; the letter is sealed here when saved.
 */
export function SealFields({ values, bind, onToggle, disabled, allowed = true }: {
  values: Record<string, string>;
  bind: Bind;
  onToggle: (on: boolean) => void;
  disabled?: boolean;
  /** Whether the plan includes sealing (Pro and Business), or the message is sealed already. */
  allowed?: boolean;
}) {
  const on = values.seal === "on";
  const meterId = useId();
  const [show, setShow] = useState(false);
  const bits = passphraseBits(values.passphrase ?? "");
  return (
    <fieldset className="seal">
      <label className="seal-toggle">
        <input
          type="checkbox"
          role="switch"
          checked={on}
          disabled={disabled || !allowed}
          aria-describedby={allowed ? undefined : `${meterId}-plan`}
          onChange={(e) => onToggle(e.currentTarget.checked)}
        />
        <Lock size={18} aria-hidden="true" className="title-icon" /> Seal with a passphrase
      </label>
      {!allowed && (
        <small id={`${meterId}-plan`}>
          Sealed messages, which only your recipients can open, are part of the Pro and Business plans.{" "}
          <Link to={paths.pricing.href()}>See the plans</Link>
        </small>
      )}
      {on && (
        <div className="seal-fields">
          <p className="seal-note">
            Only someone with the passphrase can read the letter: share it with your recipients yourself (on paper, in a will,
            in person). Sendlater never receives it and <strong>cannot recover it</strong>: if it is lost, so is the letter.
            The title and the recipients stay readable to Sendlater, which delivers the message; its text is never saved as a
            draft.
          </p>
          <TextField
            label="Passphrase"
            type={show ? "text" : "password"}
            autoComplete="new-password"
            spellCheck={false}
            autoCapitalize="off"
            aria-describedby={meterId}
            {...bind("passphrase")}
          />
          <p className="seal-strength" id={meterId}>
            <meter min={0} max={100} low={sealMinBits - 1} high={sealMinBits} optimum={100} value={Math.min(bits, 100)} aria-hidden="true" />
            <small>
              {bits >= sealMinBits ? `Strong enough: about ${bits} bits.` : `About ${bits} bits of the ${sealMinBits} needed.`}
            </small>
          </p>
          <TextField
            label="Passphrase again"
            type={show ? "text" : "password"}
            autoComplete="new-password"
            spellCheck={false}
            autoCapitalize="off"
            {...bind("passphraseConfirm")}
          />
          <label className="seal-show">
            <input type="checkbox" checked={show} onChange={(e) => setShow(e.currentTarget.checked)} /> Show the passphrase
          </label>
          <TextField label="Hint for the recipients (optional)" autoComplete="off" maxLength={200} {...bind("sealed.hint")} />
          <small>The hint is in the email, for anyone who reads it: it must help your recipients, not give the passphrase away.</small>
        </div>
      )}
    </fieldset>
  );
}

/** A sealed message's text opens here, in the browser, before it can be edited. */
export function UnlockSealed({ hint, onOpen, disabled }: {
  hint?: string;
  onOpen: (passphrase: string) => Promise<string | undefined>;
  disabled?: boolean;
}) {
  const [passphrase, setPassphrase] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const id = useId();
  const open = async () => {
    setBusy(true);
    const problem = await onOpen(passphrase);
    setBusy(false);
    setError(problem);
  };
  return (
    <div className="seal-unlock" role="group" aria-labelledby={`${id}-title`}>
      <p id={`${id}-title`}>
        <Lock size={18} aria-hidden="true" className="title-icon" /> <strong>This message is sealed.</strong> Enter its
        passphrase to read and edit the letter here; it is sealed again when you save. The title, recipients and delivery
        date can be changed without it.
      </p>
      {hint !== undefined && hint !== "" && <p>Your hint: {hint}</p>}
      <label htmlFor={id}>Passphrase of the sealed letter</label>
      <input
        id={id}
        type="password"
        autoComplete="off"
        value={passphrase}
        onChange={(e) => setPassphrase(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            void open();
          }
        }}
        aria-invalid={error !== undefined ? true : undefined}
        aria-describedby={error !== undefined ? `${id}-error` : undefined}
      />
      {error !== undefined && <small id={`${id}-error`}>{error}</small>}
      <button type="button" className="secondary" onClick={() => void open()} disabled={disabled || busy || passphrase === ""} aria-busy={busy}>
        Open the letter
      </button>
    </div>
  );
}
