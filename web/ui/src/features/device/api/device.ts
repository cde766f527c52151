import { api } from "../../../lib/api-client";

/** A terminal waiting for approval (`sendlater login --device`), as the server describes it. */
export type DeviceRequest = {
  clientName: string;
  device: string;
  network?: string;
  createdAt: number;
  expiresAt: number;
  scopes: string[];
};

const body = (userCode: string) => ({ method: "POST" as const, body: { userCode } });

/** What waits under the code the user typed; a wrong code counts against this browser. */
export const lookUpDevice = (userCode: string) => api<DeviceRequest>("me/device", body(userCode));

/** Gives the terminal a token of this account (needs a recent sign-in). */
export const approveDevice = (userCode: string) => api<DeviceRequest>("me/device/approve", body(userCode));

/** Refuses it: the terminal is told so and gets nothing. */
export const denyDevice = (userCode: string) => api<null>("me/device/deny", body(userCode));
