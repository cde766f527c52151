import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { api, ApiError, connectSession } from "./api-client";
import { connectApiClient, endSession, idToken, startSession, user, type SessionUser } from "./auth";

const fetchMock = vi.fn<typeof fetch>();

const reply = (status: number, body: unknown) =>
  fetchMock.mockResolvedValueOnce(new Response(JSON.stringify(body), { status }));

beforeEach(() => {
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  endSession();
  user.value = undefined;
  fetchMock.mockReset();
  vi.unstubAllGlobals();
});

const signIn = () =>
  startSession({ idToken: "token-1", expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } as SessionUser });

test("sends JSON with the bearer token to /api/{path} and returns the data", async () => {
  signIn();
  reply(200, { status: "success", data: { id: "m1" } });

  await expect(api("messages", { method: "POST", body: { title: "Hi" } })).resolves.toEqual({ id: "m1" });

  const [url, init] = fetchMock.mock.calls[0]!;
  expect(url).toBe("/api/messages");
  expect(init?.method).toBe("POST");
  expect(init?.body).toBe('{"title":"Hi"}');
  expect(init?.headers).toEqual({ "Content-Type": "application/json", Authorization: "Bearer token-1" });
});

test("sends no Authorization header when signed out", async () => {
  reply(200, { status: "success", data: [] });

  await api("plans");

  expect(fetchMock.mock.calls[0]![1]?.headers).toEqual({ "Content-Type": "application/json" });
});

test("raises an ApiError with the code, message and fields", async () => {
  signIn();
  reply(422, {
    status: "error",
    code: "request/validation",
    message: "Some fields are invalid.",
    fields: { title: "Please enter a title" },
  });

  const error = await api("messages", { method: "POST", body: {} }).catch((caught: unknown) => caught);

  expect(error).toBeInstanceOf(ApiError);
  expect(error).toMatchObject({
    code: "request/validation",
    message: "Some fields are invalid.",
    fields: { title: "Please enter a title" },
  });
  expect(user.value).toMatchObject({ uid: "u1" });
});

test("signs out on auth/invalid-user-token, then raises", async () => {
  signIn();
  reply(401, { status: "error", code: "auth/invalid-user-token", message: "Please sign in again." });

  await expect(api("me")).rejects.toMatchObject({ code: "auth/invalid-user-token" });
  expect(user.value).toBeNull();
  expect(idToken.value).toBeUndefined();
});

test("a reply without the envelope is an internal error", async () => {
  fetchMock.mockResolvedValueOnce(new Response("<html>Bad Gateway</html>", { status: 502 }));

  await expect(api("me")).rejects.toMatchObject({ code: "internal/error" });
});

test("the client takes its token and its sign-out from the session it is connected to", async () => {
  const onInvalidToken = vi.fn();
  connectSession({ idToken: async () => "from-the-hooks", onInvalidToken });
  try {
    reply(401, { status: "error", code: "auth/invalid-user-token", message: "Please sign in again." });

    await expect(api("me")).rejects.toMatchObject({ code: "auth/invalid-user-token" });

    expect(fetchMock.mock.calls[0]![1]?.headers).toMatchObject({ Authorization: "Bearer from-the-hooks" });
    expect(onInvalidToken).toHaveBeenCalledTimes(1);
  } finally {
    connectApiClient();
  }
});
