import { api } from "../../../lib/api-client";

export type ActionInfo = { mode: string; email: string };

/** Applies a verifyEmail, recoverEmail or confirmReminderAddress code (single use). */
export function applyActionCode(oobCode: string) {
  return api<ActionInfo>("auth/action/apply", { method: "POST", body: { oobCode }, bearer: false });
}
