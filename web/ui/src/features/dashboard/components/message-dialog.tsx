import { useState } from "react";
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
import { Modal } from "../../../components/modal";
import {
  createMessage,
  deleteMessage,
  newIdempotencyKey,
  updateMessage,
  type Interval,
  type Message,
  type MessageFields,
} from "../api/messages";
import { addMonths, formatDate, intervalMonths } from "./dates";

type Field = keyof MessageFields;

const requiredMessages = {
  title: "Please enter a title",
  name: "Please enter a recipient name",
  recipient: "Please enter a recipient email address",
  message: "Please enter a message",
};

const intervalLabels: Record<Interval, string> = { "1M": "1 month", "6M": "6 months", "12M": "12 months" };

/**
 * Creates a message, or edits or deletes one. The delivery date shown is the message's own
 * until a new interval is picked, then now plus that interval, as the server will set it.
 */
export function MessageDialog({
  message,
  onSaved,
  onDeleted,
  onClose,
}: {
  message?: Message;
  onSaved: (saved: Message) => void;
  onDeleted: (id: string) => void;
  onClose: () => void;
}) {
  const form = useForm<Field>(
    {
      title: message?.title ?? "",
      name: message?.name ?? "",
      recipient: message?.recipient ?? "",
      message: message?.message ?? "",
      interval: message?.interval ?? "1M",
    },
    (values) => requireFields(values, requiredMessages),
  );
  const [deleting, setDeleting] = useState(false);
  // One key for the message this dialog creates, however often it is sent.
  const [idempotencyKey] = useState(newIdempotencyKey);
  // Delete asks first: the dialog's footer turns into the question.
  const [confirming, setConfirming] = useState(false);
  const busy = form.busy || deleting;
  const interval = form.values.interval as Interval;
  const sendDate =
    message && interval === message.interval ? message.sendDate : addMonths(Date.now(), intervalMonths[interval]);

  const save = form.handleSubmit(async (values) => {
    const text = { title: values.title, name: values.name, recipient: values.recipient, message: values.message };
    if (message) {
      // The server reschedules whenever it is sent an interval other than the message's.
      onSaved(await updateMessage(message.id, interval === message.interval ? text : { ...text, interval }));
    } else {
      onSaved(await createMessage({ ...text, interval }, idempotencyKey));
    }
    onClose();
  });

  const remove = async () => {
    if (!message) return;
    setDeleting(true);
    form.setAlert(undefined);
    try {
      await deleteMessage(message.id);
      onDeleted(message.id);
      onClose();
    } catch (error) {
      form.setAlert(errorMessage(error));
      setDeleting(false);
      setConfirming(false);
    }
  };

  const title = message ? "Update Message" : "Create Message";

  return (
    <Modal labelledBy="message-dialog-title" className="message-dialog" onClose={busy ? undefined : onClose}>
      <article>
        <header>
          <button type="button" aria-label="Close" rel="prev" onClick={onClose} disabled={busy} />
          <h2 id="message-dialog-title">{title}</h2>
        </header>
        <form id="message-form" onSubmit={save} noValidate>
          {form.alert && <Alert>{form.alert}</Alert>}
          <TextField label="Title" autoFocus {...form.bind("title")} />
          <div className="field-pair">
            <div>
              <TextField label="Recipient name" autoComplete="off" {...form.bind("name")} />
            </div>
            <div>
              <TextField label="Recipient email" type="email" autoComplete="off" {...form.bind("recipient")} />
            </div>
          </div>
          <TextAreaField label="Message" rows={4} {...form.bind("message")} />
          <SelectField label="Deliver after" {...form.bind("interval")}>
            {Object.entries(intervalLabels).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </SelectField>
          <p className="delivery-date">The message will be delivered on {formatDate(sendDate)}.</p>
        </form>
        {confirming ? (
          <footer className="confirm" role="group" aria-labelledby="confirm-delete">
            <p id="confirm-delete">Delete this message? It will not be delivered, and this cannot be undone.</p>
            <button type="button" className="secondary outline" onClick={() => setConfirming(false)} disabled={deleting} autoFocus>
              Keep it
            </button>
            <button
              type="button"
              className="danger"
              onClick={remove}
              disabled={deleting}
              aria-busy={deleting}
              aria-label={deleting ? "Delete message" : undefined}
            >
              {deleting ? "" : "Delete message"}
            </button>
          </footer>
        ) : (
          <footer>
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
