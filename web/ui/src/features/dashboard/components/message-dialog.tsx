import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import {
  Alert,
  errorMessage,
  requireFields,
  SelectField,
  SubmitButton,
  TextAreaField,
  TextField,
  useForm,
} from "../../../components/form";
import { ConfirmButtons } from "../../../components/confirm-buttons";
import { Modal } from "../../../components/modal";
import { user } from "../../../lib/auth";
import { openSealed, SealedError, sealMessage } from "../../../lib/sealed";
import { FileKeys } from "../../../lib/sealed-file";
import { formatSize } from "../../../lib/uploads";
import { showToast } from "../../../lib/toasts";
import {
  createMessage,
  deleteMessage,
  newIdempotencyKey,
  previewMessage,
  sendTest,
  updateMessage,
  wentOut,
  type EmailPreview,
  type Interval,
  type Message,
  type MessageFields,
  type RecipientInput,
} from "../api/messages";
import { addMonths, formatDate, intervalMonths } from "./dates";
import { MessageFiles } from "./message-files";
import { RecipientBouncing, RecipientWarning, TellRecipientNow } from "./recipient-warning";
import { salutationNote } from "./salutation";
import { newSealedId, SealFields, sealErrors, UnlockSealed } from "./seal-fields";
import { dropUploadList, keepUploadList, openedSize, uploadListFor, useUploadList, type UploadList } from "./upload-list";
import { sameText, useDraft, useLocalDraft, type DraftText } from "./use-draft";

// The fields: the message's, then the rows of the recipients after the first, named as the
// server names them in its errors (recipients[i].name, recipients[i].recipient).
type Field = string;
const nameKey = (i: number) => (i === 0 ? "name" : `recipients[${i}].name`);
const addressKey = (i: number) => (i === 0 ? "recipient" : `recipients[${i}].recipient`);

const requiredMessages = (rows: number, locked: boolean) => {
  const messages: Record<string, string> = { title: "Please enter a title" };
  // A sealed letter not opened here stays as it is.
  if (!locked) messages.message = "Please enter a message";
  for (let i = 0; i < rows; i++) {
    messages[nameKey(i)] = "Please enter a recipient name";
    messages[addressKey(i)] = "Please enter a recipient email address";
  }
  return messages;
};

const rowsOf = (values: Record<Field, string>, rows: number): RecipientInput[] =>
  Array.from({ length: rows }, (_, i) => ({ name: values[nameKey(i)] ?? "", recipient: values[addressKey(i)] ?? "" }));

const sameList = (a: RecipientInput[], b: RecipientInput[]) =>
  a.length === b.length && a.every((r, i) => r.name === b[i]?.name && r.recipient === b[i]?.recipient);

// At most 10 recipients, whatever a plan allows.
const maxRows = (limit: number) => Math.min(limit, 10);

const intervalLabels: Record<Interval, string> = { "1M": "1 month", "6M": "6 months", "12M": "12 months" };

/** The words of a text, as a word processor counts them. */
export function countWords(text: string) {
  const trimmed = text.trim();
  return trimmed === "" ? 0 : trimmed.split(/\s+/u).length;
}

const draftText = (title: string, recipients: RecipientInput[], message: string, interval: Interval | ""): DraftText => ({
  title,
  recipients,
  message,
  interval,
});

/** A form's values from a draft: its rows, at least one and at most 10. */
const valuesOf = (d: DraftText, fallback: Interval) => {
  const rows = d.recipients.length === 0 ? [{ name: "", recipient: "" }] : d.recipients.slice(0, 10);
  return {
    rows: rows.length,
    values: {
      title: d.title,
      message: d.message,
      interval: d.interval === "" ? fallback : d.interval,
      ...Object.fromEntries(rows.flatMap((r, i) => [[nameKey(i), r.name], [addressKey(i), r.recipient]])),
    } as Record<Field, string>,
  };
};

const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

const statusWords = { none: "", saving: "Saving draft…", saved: "Draft saved", device: "Draft saved on this device" } as const;

/**
 * Why a save would change the seal of files already sent (the server refuses it: a message's
 * files are sealed the way the message is), said before sending; undefined when it would not.
 */
export function filesSealProblem(list: UploadList, wasSealed: boolean, willSeal: boolean, passphraseChanged: boolean) {
  // Files waiting are sealed (or not) as the message is once saved; the others are on the server.
  const sent = list.get().items.filter((i) => i.status !== "waiting" && i.status !== "removing" && (i.file !== undefined || i.status !== "failed"));
  if (sent.length === 0) return undefined;
  if (willSeal && !wasSealed) {
    return "Remove the files first: a message's files are sealed the way the message is, and these were sent unsealed. Attach them again once the message is sealed.";
  }
  if (!willSeal && wasSealed) {
    return "Remove the files first: a message's files are sealed the way the message is, and these are sealed with the passphrase. Attach them again once the message is unsealed.";
  }
  if (willSeal && passphraseChanged) {
    return "Remove the files first, or keep the passphrase: the files are sealed with the letter's passphrase, and a new one would not open them.";
  }
  return undefined;
}

/**
 * Creates a message, or edits or deletes one. The delivery date shown is the message's own
 * until a new interval is picked, then now plus that interval, as the server will set it.
 */
export function MessageDialog({
  message,
  onSaved,
  onDeleted,
  onClose,
  recipientLimit = 1,
  emailVerified = true,
}: {
  message?: Message;
  /** How many recipients the plan allows (the session user's recipientLimit). */
  recipientLimit?: number;
  /** Whether the session user confirmed their address: the server sends tests to no other. */
  emailVerified?: boolean;
  /** stay: the dialog stays open, as the saved message's (warnings to show, files uploading). */
  onSaved: (saved: Message, stay: boolean) => void;
  onDeleted: (id: string) => void;
  onClose: () => void;
}) {
  const [initialRows] = useState<RecipientInput[]>(() =>
    message?.recipients?.length
      ? message.recipients.map((r) => ({ name: r.name, recipient: r.recipient }))
      : [{ name: message?.name ?? "", recipient: message?.recipient ?? "" }],
  );
  // What the message says (empty for a new one); a draft that says more opens instead.
  const [stored] = useState(() => draftText(message?.title ?? "", initialRows, message?.message ?? "", message?.interval ?? "1M"));
  const uid = user.peek()?.uid;
  const draftKey = message?.id ?? "new";
  const local = useLocalDraft(uid, draftKey, stored);
  const [opening] = useState(() => valuesOf(local ?? stored, message?.interval ?? "1M"));
  const [rows, setRows] = useState(opening.rows);
  // A sealed message opens in the browser before its letter can be edited (UnlockSealed).
  const [locked, setLocked] = useState(message?.sealed !== undefined);
  // The passphrase that opened the letter: the stored files' (files go sealed with it).
  const [openedWith, setOpenedWith] = useState<string>();
  const form = useForm<Field>(
    { ...opening.values, seal: message?.sealed ? "on" : "", passphrase: "", passphraseConfirm: "", "sealed.hint": message?.sealed?.hint ?? "" },
    (values) => ({ ...requireFields(values, requiredMessages(rows, locked)), ...(locked ? {} : sealErrors(values)) }),
  );
  const sealing = form.values.seal === "on";
  // The files: uploaded at once for a stored message; for a new one, once it is created.
  const [uploads] = useState(() => uploadListFor(message?.id));
  // Renders again as uploads go (the footer, the leave question, the preview's files).
  const doneFiles = useUploadList(uploads).items.flatMap((i) => (i.status === "done" && i.file ? [i.file] : []));
  useEffect(() => {
    void uploads.load();
    // Gone without leave() (another page): the list is kept only while files are on their way.
    return () => {
      if (!uploads.pending) dropUploadList(uploads);
    };
  }, [uploads]);
  const uploading = uploads.pending;
  // A stored message whose seal (or passphrase) changes when saved: new files wait for the save.
  const wasSealed = message?.sealed !== undefined;
  const held = message !== undefined && ((sealing || locked) !== wasSealed || (wasSealed && !locked && form.values.passphrase !== openedWith));
  useEffect(() => uploads.hold(held), [uploads, held]);
  // A sealed letter's text is never a draft: the draft store is the server's.
  const current = draftText(form.values.title ?? "", rowsOf(form.values, rows), sealing ? "" : (form.values.message ?? ""), form.values.interval as Interval);
  const draft = useDraft({
    uid,
    draftKey,
    text: current,
    stored,
    restoredLocal: local,
    apply: (d) => {
      const next = valuesOf(d, message?.interval ?? "1M");
      setRows(next.rows);
      form.setValues(next.values);
      form.setErrors({});
    },
  });
  const changed = !sameText(current, stored);
  // Leaving a changed draft asks first (the draft is kept either way).
  const [leaving, setLeaving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  // One key for the message this dialog creates, however often it is sent.
  const [idempotencyKey] = useState(newIdempotencyKey);
  // Delete asks first: the dialog's footer turns into the question.
  const [confirming, setConfirming] = useState(false);
  const busy = form.busy || deleting;
  const interval = form.values.interval as Interval;
  const sendDate =
    message && interval === message.interval ? message.sendDate : addMonths(Date.now(), intervalMonths[interval]);

  const addRow = () => {
    form.setValues((v) => ({ ...v, [nameKey(rows)]: "", [addressKey(rows)]: "" }));
    setRows(rows + 1);
  };
  // The rows after the removed one move up, with their helper texts.
  const removeRow = (at: number) => {
    const shift = (from: Record<Field, string | undefined>) => {
      const next = { ...from };
      for (let i = at; i < rows - 1; i++) {
        next[nameKey(i)] = from[nameKey(i + 1)];
        next[addressKey(i)] = from[addressKey(i + 1)];
      }
      delete next[nameKey(rows - 1)];
      delete next[addressKey(rows - 1)];
      return next;
    };
    form.setValues((v) => shift(v) as Record<Field, string>);
    form.setErrors((e) => shift(e));
    setRows(rows - 1);
  };

  const textOf = (values: Record<Field, string>) => {
    const list = rowsOf(values, rows);
    const first = list[0] ?? { name: "", recipient: "" };
    const text: Omit<MessageFields, "interval"> = { title: values.title ?? "", name: first.name, recipient: first.recipient, message: values.message ?? "" };
    // The list goes to the server when there are or were several and it changed (an edit
    // replaces it); one recipient is name and recipient, as for clients that know one.
    if ((list.length > 1 || initialRows.length > 1) && !sameList(list, initialRows)) text.recipients = list;
    return text;
  };

  // A new sealed message's id, made here: its envelope is bound to it. One envelope for one
  // passphrase and text, so that a retried create sends the same request.
  const [sealedId] = useState(() => message?.id ?? newSealedId());
  const sealedFor = useRef<{ key: string; envelope: string }>(undefined);
  const seal = async (values: Record<Field, string>) => {
    const key = JSON.stringify([values.passphrase, values.message]);
    if (sealedFor.current?.key !== key) {
      sealedFor.current = { key, envelope: await sealMessage(values.passphrase ?? "", sealedId, values.message ?? "") };
    }
    return { envelope: sealedFor.current.envelope, hint: (values["sealed.hint"] ?? "").trim() };
  };
  // What a save or a preview sends: the text, or the letter sealed here, or (a sealed letter
  // not opened) neither.
  const contentOf = async (values: Record<Field, string>): Promise<Omit<MessageFields, "interval">> => {
    const text: Partial<MessageFields> = textOf(values);
    if (locked || values.seal === "on") {
      delete text.message; // an edit leaves the sealed letter, or replaces it with sealed
      if (!locked) Object.assign(text, { sealed: await seal(values) }, message ? {} : { message: "", id: sealedId });
    }
    return text as Omit<MessageFields, "interval">;
  };
  const openLetter = async (passphrase: string) => {
    if (!message?.sealed?.envelope) return "This letter cannot be opened here.";
    try {
      const text = await openSealed(passphrase, message.id, message.sealed.envelope);
      form.setValues((v) => ({ ...v, message: text, passphrase, passphraseConfirm: passphrase }));
      setLocked(false);
      setOpenedWith(passphrase);
      // The files added from now on are sealed with the letter's passphrase.
      if (uploads.keys?.passphrase !== passphrase) uploads.sealWith(new FileKeys(passphrase));
      return undefined;
    } catch (error) {
      return error instanceof SealedError && error.kind === "wrong-passphrase"
        ? "This passphrase does not open the letter."
        : "This version of Sendlater cannot open this letter.";
    }
  };

  // The preview is the server's: the delivery's own templates render it. A sealed letter's
  // text is shown from this page, as its recipients will read it once opened.
  const [previews, setPreviews] = useState<EmailPreview[]>();
  const [openedPreview, setOpenedPreview] = useState<string>();
  const preview = form.handleSubmit(async (values) => {
    const list = rowsOf(values, rows);
    setPreviews(await previewMessage({ ...(await contentOf(values)), recipients: list, interval }, message?.id));
    setOpenedPreview(values.seal === "on" && !locked ? values.message : undefined);
  });
  const [testing, setTesting] = useState(false);
  // The server refuses a test to an address not yet confirmed; the button says why first.
  const cannotTest = emailVerified ? undefined : "Confirm your email address first: follow the link we sent you.";
  const test = async () => {
    if (!message) return;
    setTesting(true);
    form.setAlert(undefined);
    try {
      const { sent } = await sendTest(message.id);
      showToast(sent === 1 ? "A test is on its way to you." : `${sent} tests are on their way to you, one as each recipient will receive it.`, {
        kind: "success",
      });
    } catch (error) {
      form.setAlert(errorMessage(error));
    } finally {
      setTesting(false);
    }
  };

  const save = form.handleSubmit(async (values) => {
    const willSeal = values.seal === "on" || locked;
    const problem = message && filesSealProblem(uploads, wasSealed, willSeal, !locked && values.passphrase !== openedWith);
    if (problem) {
      form.setAlert(problem);
      return;
    }
    const text = await contentOf(values);
    // The server reschedules whenever it is sent an interval other than the message's.
    const saved = message
      ? await updateMessage(message.id, interval === message.interval ? text : { ...text, interval })
      : await createMessage({ ...text, interval }, idempotencyKey);
    // The files waiting go now, sealed with the passphrase saved if the message is sealed (one
    // salt for the dialog's files: one derivation).
    if (!locked) uploads.sealWith(willSeal ? (uploads.keys?.passphrase === values.passphrase ? uploads.keys : new FileKeys(values.passphrase ?? "")) : undefined);
    if (!message && uploads.pending) keepUploadList(uploads, saved.id);
    else uploads.hold(false);
    // Saved with warnings, or with files on their way: the dialog stays, as the saved message's.
    const stay = !!saved.warnings?.length || uploads.pending;
    onSaved(saved, stay);
    draft.done();
    if (!stay) {
      dropUploadList(uploads);
      onClose();
    }
  });

  const remove = async () => {
    if (!message) return;
    setDeleting(true);
    form.setAlert(undefined);
    try {
      await deleteMessage(message.id);
      draft.done();
      onDeleted(message.id);
      onClose();
    } catch (error) {
      form.setAlert(errorMessage(error));
      setDeleting(false);
      setConfirming(false);
    }
  };

  const title = message ? "Update Message" : "Create Message";
  const words = countWords(form.values.message ?? "");

  // Escape, the close button and a click beside the dialog: a changed draft asks first.
  const requestClose = () => {
    if ((changed || uploading) && !leaving) {
      setConfirming(false);
      setLeaving(true);
      return;
    }
    leave();
  };
  const leave = () => {
    draft.flush();
    uploads.cancelAll();
    dropUploadList(uploads);
    onClose();
  };
  // Ctrl+S (Cmd+S on a Mac) saves, wherever the focus is in the dialog.
  const onKeyDown = (event: KeyboardEvent) => {
    if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === "s") {
      event.preventDefault();
      if (!busy && !confirming) {
        setLeaving(false);
        void save();
      }
    }
  };

  return (
    <Modal labelledBy="message-dialog-title" className="message-dialog composer" onClose={busy ? undefined : requestClose}>
      <article onKeyDown={onKeyDown}>
        <header>
          <button type="button" aria-label="Close" rel="prev" onClick={requestClose} disabled={busy} />
          <h2 id="message-dialog-title">{title}</h2>
        </header>
        <form id="message-form" onSubmit={save} noValidate>
          {form.alert && <Alert>{form.alert}</Alert>}
          {draft.restoredAt !== undefined && (
            <p className="draft-restored" role="status">
              <span>Your unsaved draft from {timeFormat.format(draft.restoredAt)} is back.</span>
              <button type="button" className="secondary outline" onClick={draft.discard} disabled={busy}>
                Discard draft
              </button>
            </p>
          )}
          <div className="composer-grid">
            <div className="composer-main">
              <TextField label="Title" autoFocus={!local} {...form.bind("title")} />
              <fieldset className="recipients">
                {Array.from({ length: rows }, (_, i) => (
                  <div className="field-pair recipient-row" key={i}>
                    <div>
                      <TextField label={i === 0 ? "Recipient name" : `Recipient ${i + 1} name`} autoComplete="off" {...form.bind(nameKey(i))} />
                    </div>
                    <div>
                      <TextField
                        label={i === 0 ? "Recipient email" : `Recipient ${i + 1} email`}
                        type="email"
                        autoComplete="off"
                        {...form.bind(addressKey(i))}
                      />
                      <RecipientWarning warnings={message?.warnings} field={addressKey(i)} />
                      <RecipientBouncing message={message} address={form.values[addressKey(i)] ?? ""} />
                      <TellRecipientNow message={message} address={form.values[addressKey(i)] ?? ""} />
                    </div>
                    {i > 0 && (
                      <button type="button" className="secondary outline remove-recipient" onClick={() => removeRow(i)} disabled={busy}>
                        Remove recipient {i + 1}
                      </button>
                    )}
                  </div>
                ))}
                {rows < maxRows(recipientLimit) && (
                  <button type="button" className="secondary outline" onClick={addRow} disabled={busy}>
                    Add recipient
                  </button>
                )}
                {recipientLimit === 1 && <small>Upgrade your plan to send a message to up to 10 people.</small>}
              </fieldset>
              {locked ? (
                <UnlockSealed hint={message?.sealed?.hint} onOpen={openLetter} disabled={busy} />
              ) : (
                <>
                  <SealFields
                    allowed={message?.sealed !== undefined || user.peek()?.messageLimit === null}
                    values={form.values}
                    bind={form.bind}
                    disabled={busy}
                    onToggle={(on) => form.setValues((v) => ({ ...v, seal: on ? "on" : "" }))}
                  />
                  <div className="letter">
                    <TextAreaField label="Message" rows={12} autoFocus={!!local} {...form.bind("message")} />
                  </div>
                </>
              )}
              {/* What the email adds above the body, for the first recipient (each gets their own name). */}
              <small className="salutation-note">{salutationNote(form.values[nameKey(0)] ?? "", form.values.message ?? "")}</small>
            </div>
            <aside className="composer-side" aria-label="Delivery, files and preview">
              <SelectField label="Deliver after" {...form.bind("interval")}>
                {Object.entries(intervalLabels).map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </SelectField>
              <p className="delivery-date">The message will be delivered on {formatDate(sendDate)}.</p>
              <MessageFiles
                list={uploads}
                allowed={user.peek()?.messageLimit === null}
                sealed={sealing || locked}
                locked={locked && uploads.keys === undefined}
                delivered={message !== undefined && wentOut(message)}
                disabled={busy}
              />
              <div className="preview-actions">
                <button type="button" className="secondary outline" onClick={() => void preview()} disabled={busy}>
                  Preview
                </button>
                {message && (
                  <span className="control-tooltip" data-tooltip={cannotTest}>
                    <button
                      type="button"
                      className="secondary outline"
                      onClick={() => void test()}
                      disabled={busy || testing || cannotTest !== undefined}
                      aria-busy={testing}
                      aria-describedby={cannotTest ? "send-test-reason" : undefined}
                    >
                      Send a test to me
                    </button>
                  </span>
                )}
              </div>
              {message && cannotTest && <small id="send-test-reason">{cannotTest}</small>}
              {previews && (
                <section className="email-previews" aria-label="Preview">
                  {previews.map((p, i) => (
                    <article key={i} className="email-preview">
                      <header>
                        <strong>{p.subject}</strong>
                        <br />
                        <small>
                          To {p.to.name} &lt;{p.to.address}&gt;
                        </small>
                      </header>
                      <pre>{p.text}</pre>
                    </article>
                  ))}
                  {doneFiles.length > 0 && (
                    <article className="email-preview">
                      <header>
                        <strong>{doneFiles.length === 1 ? "1 file" : `${doneFiles.length} files`} with the message</strong>
                        <br />
                        <small>
                          {sealing || locked
                            ? "Sealed with the passphrase: they open on the message's page, with the letter"
                            : "Each recipient gets a download link of their own"}
                        </small>
                      </header>
                      <ul className="preview-files">
                        {doneFiles.map((f) => (
                          <li key={f.id}>
                            {f.name} ({formatSize(openedSize(f))})
                          </li>
                        ))}
                      </ul>
                    </article>
                  )}
                  {openedPreview !== undefined && (
                    <article className="email-preview">
                      <header>
                        <strong>Opened with the passphrase</strong>
                        <br />
                        <small>What the recipients read on their link's page</small>
                      </header>
                      <pre>{openedPreview}</pre>
                    </article>
                  )}
                </section>
              )}
            </aside>
          </div>
        </form>
        {confirming ? (
          <footer className="confirm" role="group" aria-labelledby="confirm-delete">
            <p id="confirm-delete">Delete this message? It will not be delivered, and this cannot be undone.</p>
            <ConfirmButtons action="Delete message" busy={deleting} onKeep={() => setConfirming(false)} onConfirm={remove} />
          </footer>
        ) : leaving ? (
          <footer className="confirm" role="group" aria-labelledby="confirm-leave">
            <p id="confirm-leave">
              {uploading
                ? message
                  ? "Leave this message? The files still uploading are cancelled."
                  : "Leave this message? Your draft is kept, but not the files: attach them again when you come back."
                : "Leave this message? Your draft is kept: it comes back when you open the dialog again."}
            </p>
            <button type="button" className="secondary outline" onClick={() => setLeaving(false)} autoFocus>
              Keep writing
            </button>
            <button type="button" onClick={leave}>
              Leave
            </button>
          </footer>
        ) : (
          <footer>
            <p className="composer-status">
              <span>{words === 1 ? "1 word" : `${words} words`}</span>
              {statusWords[draft.status] !== "" && <span className="draft-status">{statusWords[draft.status]}</span>}
              <span className="shortcut-hint">
                <kbd>{navigator.platform.startsWith("Mac") ? "⌘" : "Ctrl"}</kbd>+<kbd>S</kbd> saves
              </span>
            </p>
            {message && (
              <button type="button" className="secondary outline" onClick={() => setConfirming(true)} disabled={busy}>
                Delete
              </button>
            )}
            <SubmitButton busy={form.busy} form="message-form">
              {message ? "Update" : "Create"}
            </SubmitButton>
          </footer>
        )}
      </article>
    </Modal>
  );
}
