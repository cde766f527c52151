import { afterEach, beforeEach, expect, test, vi } from "vitest";
import { api } from "./api-client";
import {
  currentIdToken,
  endSession,
  idToken,
  loadSession,
  refreshSession,
  signOut,
  signUp,
  startSession,
  user,
  type SessionUser,
} from "./auth";

const fetchMock = vi.fn<typeof fetch>();

const grantReply = (token: string) =>
  Response.json({ status: "success", data: { idToken: token, expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } } });

beforeEach(() => {
  vi.stubGlobal("fetch", fetchMock);
});

afterEach(() => {
  endSession();
  user.value = undefined;
  fetchMock.mockReset();
  vi.unstubAllGlobals();
});

const sessionHint = "sl_session=1; path=/";
const forgetSessionHint = () => (document.cookie = "sl_session=; path=/; max-age=0");

afterEach(forgetSessionHint);

test("loadSession trades the refresh cookie for the user and an in-memory token", async () => {
  document.cookie = sessionHint;
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

test("without the session hint cookie, loadSession signs out without asking the server", async () => {
  await loadSession();

  expect(fetchMock).not.toHaveBeenCalled();
  expect(user.value).toBeNull();
});

test("loadSession signs out when the server refuses", async () => {
  document.cookie = sessionHint;
  fetchMock.mockResolvedValueOnce(
    Response.json({ status: "error", code: "auth/invalid-user-token", message: "Not signed in." }, { status: 401 }),
  );

  await loadSession();

  expect(user.value).toBeNull();
});

test("a refresh that cannot reach the server is tried again instead of signing out", async () => {
  vi.useFakeTimers();
  try {
    document.cookie = sessionHint;
    fetchMock.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    fetchMock.mockResolvedValueOnce(Response.json({ status: "error", code: "internal/error", message: "Internal error." }, { status: 502 }));
    fetchMock.mockResolvedValueOnce(grantReply("t1"));

    await loadSession();
    expect(user.value).toBeUndefined();

    await vi.advanceTimersByTimeAsync(1000);
    expect(fetchMock).toHaveBeenCalledTimes(2);
    expect(user.value).toBeUndefined();

    await vi.advanceTimersByTimeAsync(2000);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(user.value).toEqual({ uid: "u1" });
    expect(idToken.value).toBe("t1");
  } finally {
    vi.useRealTimers();
  }
});

test("a signed-in user stays signed in while the renewal cannot reach the server", async () => {
  startSession({ idToken: "t1", expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } as SessionUser });
  fetchMock.mockRejectedValueOnce(new TypeError("Failed to fetch"));

  await refreshSession();

  expect(user.value).toEqual({ uid: "u1" });
  expect(idToken.value).toBe("t1");
});

test("signOut ends the local session even when the server call fails", async () => {
  document.cookie = sessionHint;
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

test("refreshes asked for at once share one exchange of the cookie", async () => {
  fetchMock.mockImplementation(async () => grantReply("t1"));

  await Promise.all([refreshSession(), refreshSession(), currentIdToken()]);

  expect(fetchMock).toHaveBeenCalledTimes(1);
  expect(idToken.value).toBe("t1");
});

test("the exchange runs under a Web Lock shared by every tab", async () => {
  const held: string[] = [];
  vi.stubGlobal("navigator", {
    locks: { request: async (name: string, run: () => Promise<void>) => (held.push(name), run()) },
  });
  fetchMock.mockImplementation(async () => grantReply("t1"));

  await refreshSession();

  expect(held).toEqual(["sendlater-auth-refresh"]);
  expect(fetchMock).toHaveBeenCalledTimes(1);
});

test("a tab that waited for the lock takes the other tab's grant instead of refreshing again", async () => {
  const otherTab = new BroadcastChannel("sendlater-auth");
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  vi.stubGlobal("navigator", {
    locks: { request: async (_: string, run: () => Promise<void>) => (await released, run()) },
  });
  fetchMock.mockImplementation(async () => grantReply("mine"));

  const refreshing = refreshSession();
  otherTab.postMessage({
    kind: "grant",
    grant: { idToken: "theirs", expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } },
  });
  await vi.waitFor(() => expect(idToken.value).toBe("theirs"));
  release();
  await refreshing;

  expect(fetchMock).not.toHaveBeenCalled();
  expect(user.value).toEqual({ uid: "u1" });
  otherTab.close();
});

test("an expired token is renewed before a request goes out", async () => {
  startSession({ idToken: "stale", expiresAt: Date.now() + 1000, user: { uid: "u1" } as SessionUser });
  fetchMock.mockImplementationOnce(async () => grantReply("fresh"));
  fetchMock.mockImplementationOnce(async () => Response.json({ status: "success", data: [] }));

  await api("messages");

  expect(fetchMock.mock.calls[0]![0]).toBe("/api/auth/token");
  expect(fetchMock.mock.calls[0]![1]?.headers).toEqual({ "Content-Type": "application/json" });
  expect(fetchMock.mock.calls[1]![1]?.headers).toMatchObject({ Authorization: "Bearer fresh" });
});

test("signing out tells the other tabs", async () => {
  const otherTab = new BroadcastChannel("sendlater-auth");
  const heard: unknown[] = [];
  otherTab.addEventListener("message", (event) => heard.push(event.data));
  startSession({ idToken: "t1", expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } as SessionUser });
  fetchMock.mockImplementationOnce(async () => Response.json({ status: "success", data: null }));

  await signOut();

  await vi.waitFor(() => expect(heard).toContainEqual({ kind: "signout" }));
  otherTab.close();
});

test("another tab's sign-out ends the session here", async () => {
  const otherTab = new BroadcastChannel("sendlater-auth");
  startSession({ idToken: "t1", expiresAt: Date.now() + 3_600_000, user: { uid: "u1" } as SessionUser });

  otherTab.postMessage({ kind: "signout" });

  await vi.waitFor(() => expect(user.value).toBeNull());
  expect(idToken.value).toBeUndefined();
  otherTab.close();
});

test("sign up sends the browser's time zone", async () => {
  fetchMock.mockImplementationOnce(async () => grantReply("t1"));

  await signUp("ada@example.com", "plum-kettle-orbit-47");

  expect(JSON.parse(fetchMock.mock.calls[0]![1]!.body as string)).toEqual({
    email: "ada@example.com",
    password: "plum-kettle-orbit-47",
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
  expect(user.value).toEqual({ uid: "u1" });
});

test("sign up without the zone when the server does not know the browser's", async () => {
  fetchMock.mockImplementationOnce(async () =>
    Response.json(
      { status: "error", code: "validation/invalid", message: "Check the fields.", fields: { timezone: "Please choose a valid time zone" } },
      { status: 400 },
    ),
  );
  fetchMock.mockImplementationOnce(async () => grantReply("t1"));

  await signUp("ada@example.com", "plum-kettle-orbit-47");

  expect(fetchMock).toHaveBeenCalledTimes(2);
  expect(JSON.parse(fetchMock.mock.calls[1]![1]!.body as string)).toEqual({
    email: "ada@example.com",
    password: "plum-kettle-orbit-47",
  });
  expect(user.value).toEqual({ uid: "u1" });
});

test("sign up does not retry other refusals", async () => {
  fetchMock.mockImplementationOnce(async () =>
    Response.json(
      {
        status: "error",
        code: "validation/invalid",
        message: "Check the fields.",
        fields: { password: "Too short", timezone: "Please choose a valid time zone" },
      },
      { status: 400 },
    ),
  );

  await expect(signUp("ada@example.com", "short")).rejects.toThrow("Check the fields.");
  expect(fetchMock).toHaveBeenCalledTimes(1);
  expect(user.value).toBeUndefined();
});
