import type { SessionUser } from "../lib/auth";
import { startSession } from "../lib/auth";

export const testUser = (overrides: Partial<SessionUser> = {}): SessionUser => ({
  uid: "u1",
  email: "ada@example.com",
  emailVerified: true,
  name: "Ada",
  picture: "",
  providers: ["password"],
  planId: "starter",
  planIsActive: false,
  timezone: "Europe/Paris",
  stripeSubscriptionStatus: "",
  messageLimit: 1,
  recipientLimit: 1,
  canAddMessage: true,
  ...overrides,
});

/** Signs the test user in, with an ID token valid for an hour. */
export function signInAs(overrides: Partial<SessionUser> = {}, idToken = "token-1") {
  startSession({ idToken, expiresAt: Date.now() + 3_600_000, user: testUser(overrides) });
}
