import { api } from "../../../lib/api-client";

/** Asks for the address confirmation email again (limited: a few an hour). */
export const sendVerificationEmail = () => api<null>("me/verify-email", { method: "POST" });
