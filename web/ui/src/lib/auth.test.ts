import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { endSession, idToken, loadSession, signOut, user } from "./auth";

const fetchMock = vi.fn<typeof fetch>();

beforeEach(() => {
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  endSession();
  user.value = undefined;
  fetchMock.mockReset();
  vi.unstubAllGlobals();
});

test("loadSession trades the refresh cookie for the user and an in-memory token", async () => {
  fetchMock.mockResolvedValueOnce(
    Response.json({ status: "success", data: { idToken: "t1", expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } } }),
  );

  await loadSession();

  const [url, init] = fetchMock.mock.calls[0]!;
  expect(url).toBe("/api/auth/token");
  expect(init).toMatchObject({ method: "POST", credentials: "same-origin" });
  expect(user.value).toEqual({ uid: "u1" });
  expect(idToken.value).toBe("t1");
  expect(localStorage.length).toBe(0);
});

test("loadSession signs out when the server refuses", async () => {
  fetchMock.mockResolvedValueOnce(
    Response.json({ status: "error", code: "auth/invalid-user-token", message: "Not signed in." }, { status: 401 }),
  );

  await loadSession();

  expect(user.value).toBeNull();
});

test("loadSession signs out when the server cannot be reached", async () => {
  fetchMock.mockRejectedValueOnce(new TypeError("Failed to fetch"));

  await loadSession();

  expect(user.value).toBeNull();
});

test("signOut ends the local session even when the server call fails", async () => {
  fetchMock.mockResolvedValueOnce(
    Response.json({ status: "success", data: { idToken: "t1", expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } } }),
  );
  await loadSession();
  fetchMock.mockRejectedValueOnce(new TypeError("Failed to fetch"));

  await expect(signOut()).rejects.toThrow("Failed to fetch");

  expect(fetchMock.mock.calls[1]![1]?.headers).toMatchObject({ Authorization: "Bearer t1" });
  expect(user.value).toBeNull();
  expect(idToken.value).toBeUndefined();
});
