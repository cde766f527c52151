import { api } from "../../../lib/api-client";

/** A sealed message as its recipient's link gives it (GET /api/open/{token}). */
export type SealedOpenView = {
  messageId: string;
  envelope: string;
  hint?: string;
  author: string;
  to: string;
  writtenAt: number;
};

export function getSealed(token: string) {
  return api<SealedOpenView>(`open/${encodeURIComponent(token)}`);
}

/** A preview's or a test email's link: it opens nothing (docs/api.md, "Sealed messages"). */
export const isTestToken = (token: string) => token.endsWith(".test");
