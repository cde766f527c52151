import {
  useId,
  useState,
  type ChangeEvent,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from "react";
import { ApiError } from "../lib/api-client";

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

/** The message of any error, as the alert shows it. */
export function errorMessage(error: unknown) {
  return error instanceof Error && error.message !== "" ? error.message : "Something went wrong. Please try again.";
}

/** The required-field messages (SPEC.md section 5) of the fields left blank. */
export function requireFields<K extends string>(values: Record<K, string>, messages: Partial<Record<K, string>>) {
  const errors: FieldErrors<K> = {};
  for (const name of Object.keys(messages) as K[]) {
    if (values[name].trim() === "") errors[name] = messages[name];
  }
  return errors;
}

type Submit<K extends string> = (values: Record<K, string>) => Promise<void>;

/**
 * A form's values, its helper texts under the fields, its alert and its busy state. Blank
 * required fields stop the submit; the server's `fields` land under the fields they name
 * and its message in the alert.
 */
export function useForm<K extends string>(initial: Record<K, string>, validate: (values: Record<K, string>) => FieldErrors<K>) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors<K>>({});
  const [alert, setAlert] = useState<string>();
  const [busy, setBusy] = useState(false);

  const bind = (name: K) => ({
    name,
    value: values[name],
    error: errors[name],
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) => {
      const { value } = event.currentTarget;
      setValues((current) => ({ ...current, [name]: value }));
      setErrors((current) => ({ ...current, [name]: undefined }));
    },
  });

  const handleSubmit = (submit: Submit<K>) => async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    setAlert(undefined);
    const found = validate(values);
    setErrors(found);
    if (Object.values(found).some(Boolean)) return;
    setBusy(true);
    try {
      await submit(values);
    } catch (error) {
      // An error shows once: under the fields of this form it names, else in the alert.
      const named = error instanceof ApiError ? (Object.keys(error.fields).filter((name) => name in values) as K[]) : [];
      setErrors(Object.fromEntries(named.map((name) => [name, (error as ApiError).fields[name]])) as FieldErrors<K>);
      if (named.length === 0) setAlert(errorMessage(error));
    } finally {
      setBusy(false);
    }
  };

  return { values, setValues, errors, setErrors, alert, setAlert, busy, bind, handleSubmit };
}

type FieldProps = { label: string; error?: string };

/** A field's ids; the helper text sits under the field, outside its label's name. */
function useField(error: string | undefined) {
  const id = useId();
  const helpId = `${id}-help`;
  return {
    id,
    helpId,
    invalid: error === undefined ? {} : { "aria-invalid": true as const, "aria-describedby": helpId },
  };
}

function Help({ id, error }: { id: string; error?: string }) {
  return error === undefined ? null : <small id={id}>{error}</small>;
}

// A prerendered form's fields take typing before the app runs; main.tsx hands what was typed to
// the form's state once React hydrated it (docs/web.md, "First paint").
export function TextField({ label, error, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const { id, helpId, invalid } = useField(error);
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <input id={id} {...input} {...invalid} />
      <Help id={helpId} error={error} />
    </>
  );
}

export function TextAreaField({ label, error, ...textarea }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { id, helpId, invalid } = useField(error);
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} {...textarea} {...invalid} />
      <Help id={helpId} error={error} />
    </>
  );
}

export function SelectField({
  label,
  error,
  children,
  ...select
}: FieldProps & SelectHTMLAttributes<HTMLSelectElement> & { children: ReactNode }) {
  const { id, helpId, invalid } = useField(error);
  return (
    <>
      <label htmlFor={id}>{label}</label>
      <select id={id} {...select} {...invalid}>
        {children}
      </select>
      <Help id={helpId} error={error} />
    </>
  );
}

/** A submit button that shows a spinner instead of its label, and is disabled, while busy. */
export function SubmitButton({ busy, children, className, form }: { busy: boolean; children: string; className?: string; form?: string }) {
  return (
    <button type="submit" form={form} className={className} disabled={busy} aria-busy={busy} aria-label={busy ? children : undefined}>
      {busy ? "" : children}
    </button>
  );
}

export function Alert({ kind = "error", children }: { kind?: "error" | "success"; children: ReactNode }) {
  return (
    <p role={kind === "error" ? "alert" : "status"} className={`alert alert-${kind}`}>
      {children}
    </p>
  );
}
