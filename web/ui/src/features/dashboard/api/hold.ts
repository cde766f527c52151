import { api } from "../../../lib/api-client";
import type { SessionUser } from "../../../lib/auth";

/** Holds all the author's messages until `until` (ms since the epoch): PUT /api/me/hold. */
export const holdMessages = (until: number) => api<SessionUser>("me/hold", { method: "PUT", body: { until } });

/** Ends the author's hold now: DELETE /api/me/hold. */
export const endHold = () => api<SessionUser>("me/hold", { method: "DELETE" });
