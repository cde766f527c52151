import { api } from "../../../lib/api-client";

export type ContactForm = { name: string; email: string; message: string };

/** `website` is the API's honeypot: people never see it, so only bots fill it in. */
export const sendContactForm = (form: ContactForm & { website: string }) =>
  api<null>("contact", { method: "POST", body: form, bearer: false });
