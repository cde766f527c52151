import { api } from "../../../lib/api-client";

/** A file of a sealed message: its sealed size, and the recipient's own download link. */
export type SealedFile = { id: string; name: string; size: number; url: string };

/** A sealed message as its recipient's link gives it (GET /api/open/{token}). */
export type SealedOpenView = {
  messageId: string;
  envelope: string;
  hint?: string;
  author: string;
  to: string;
  writtenAt: number;
  /** The message's complete files, sealed with the same passphrase. */
  files?: SealedFile[];
};

export function getSealed(token: string) {
  return api<SealedOpenView>(`open/${encodeURIComponent(token)}`);
}

/** A preview's or a test email's link: it opens nothing (docs/api.md, "Sealed messages"). */
export const isTestToken = (token: string) => token.endsWith(".test");
