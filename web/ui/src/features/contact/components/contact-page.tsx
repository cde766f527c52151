import { useState } from "react";
import { Alert, requireFields, SubmitButton, TextAreaField, TextField, useForm } from "../../../components/form";
import { sendContactForm, type ContactForm } from "../api/contact";

const empty: ContactForm = { name: "", email: "", message: "" };

export function ContactPage() {
  const [sent, setSent] = useState(false);
  const [website, setWebsite] = useState("");
  const form = useForm<keyof ContactForm>(empty, (values) =>
    requireFields(values, {
      name: "Please enter your name",
      email: "Please enter your email",
      message: "Please enter a message",
    }),
  );

  const submit = form.handleSubmit(async (values) => {
    setSent(false);
    await sendContactForm({ ...values, website });
    form.setValues(empty);
    setSent(true);
  });

  return (
    <section>
      <hgroup className="section-title">
        <h1>Contact Us</h1>
        <p>Questions, ideas or trouble? Write to us and we will answer by email.</p>
      </hgroup>
      <article className="narrow">
        {/* POST: prerendered, the form can be sent before the app runs, or with JavaScript off: never its fields in a URL. */}
        <form onSubmit={submit} method="post" noValidate>
          {sent && <Alert kind="success">Your message has been sent!</Alert>}
          {form.alert && <Alert>{form.alert}</Alert>}
          <TextField label="Name" autoComplete="name" {...form.bind("name")} />
          <TextField label="Email" type="email" autoComplete="email" {...form.bind("email")} />
          <TextAreaField label="Message" rows={5} {...form.bind("message")} />
          <label className="honeypot" aria-hidden="true">
            Website
            <input name="website" tabIndex={-1} autoComplete="off" value={website} onChange={(e) => setWebsite(e.currentTarget.value)} />
          </label>
          <SubmitButton busy={form.busy}>Send message</SubmitButton>
        </form>
      </article>
    </section>
  );
}
