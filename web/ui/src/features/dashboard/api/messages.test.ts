import { act, renderHook, waitFor } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, idToken, signOut, signingOut, user } from "../../../lib/auth";
import { deferred, mockApi, ok, type ApiCall } from "../../../testing/api-mock";
import { FakeEventSource, stubEventSource } from "../../../testing/event-source";
import { signInAs } from "../../../testing/session";
import { useMessages } from "./messages";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

// The stream carries the ID token in its query: one still on its way when the sign-out revokes
// that token reaches the server after it and fails with a 401, which the browser's console shows.
test("signing out ends the stream before the token is revoked, and a sign-in opens it again", async () => {
  stubEventSource();
  signInAs({}, "token-1");
  const signedOut = deferred<void>();
  let streamsAtSignOut: { url: string; readyState: number }[] = [];
  const calls = mockApi({
    "GET messages": () => ok([]),
    "POST auth/signout": async () => {
      streamsAtSignOut = FakeEventSource.opened.map(({ url, readyState }) => ({ url, readyState }));
      await signedOut.promise;
      return ok(null);
    },
  });
  renderHook(() => useMessages());
  await waitFor(() => expect(FakeEventSource.opened).toHaveLength(1));

  let signing!: Promise<void>;
  act(() => {
    signing = signOut();
  });
  await waitFor(() => expect(calls.some((call: ApiCall) => call.path === "auth/signout")).toBe(true));
  expect(streamsAtSignOut).toEqual([{ url: "/api/messages/stream?token=token-1", readyState: FakeEventSource.CLOSED }]);

  // A token renewed while the sign-out is on its way opens no stream either.
  act(() => {
    idToken.value = "token-2";
  });
  await act(async () => {
    signedOut.resolve();
    await signing;
  });
  expect(FakeEventSource.opened).toHaveLength(1);
  expect(signingOut.value).toBe(false);
  expect(user.value).toBeNull();

  act(() => signInAs({}, "token-3"));
  await waitFor(() => expect(FakeEventSource.opened).toHaveLength(2));
  expect(FakeEventSource.opened[1]!.url).toBe("/api/messages/stream?token=token-3");
  expect(FakeEventSource.opened[1]!.readyState).not.toBe(FakeEventSource.CLOSED);
});
