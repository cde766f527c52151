import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { fail, mockApi, ok } from "../../../testing/api-mock";
import { finishPopup, stubPopup } from "../../../testing/popup";
import { renderRoute } from "../../../testing/render-route";
import { signInAs, testUser } from "../../../testing/session";

afterEach(() => {
  endSession();
  user.value = undefined;
  vi.unstubAllGlobals();
});

const google = { provider: "google", name: "Google", email: "ada@gmail.example", confirmed: true, linkedAt: 1 };
const configured = () =>
  ok([
    { id: "google", name: "Google" },
    { id: "github", name: "GitHub" },
  ]);

const methods = () => screen.findByRole("region", { name: "Sign-in methods" });

test("the sign-in methods in link order; another provider links in a popup", async () => {
  signInAs({ providers: ["password", "google"] });
  let linked = [google];
  const { popup, open } = stubPopup();
  const calls = mockApi({
    "GET me/providers": () => ok(linked),
    "GET auth/providers": configured,
    "GET me/tokens": () => ok([]),
    "POST me/providers/github": () => ok({ url: "https://github.example/authorize?state=s" }),
    "GET me": () => ok(testUser({ providers: ["password", "google", "github"] })),
  });
  renderRoute("/settings/general");

  const region = await methods();
  await within(region).findByText("Google");
  expect(within(region).getByText("Password")).toBeTruthy();
  expect(within(region).getByText("(ada@gmail.example)")).toBeTruthy();
  expect(within(region).queryByRole("button", { name: "Link Google" })).toBeNull();

  fireEvent.click(within(region).getByRole("button", { name: "Link GitHub" }));
  // The popup opens within the click, then goes where the server says.
  expect(open).toHaveBeenCalledWith("about:blank", "sendlater-oauth", "popup,width=500,height=650");
  await waitFor(() => expect(popup.location.assign).toHaveBeenCalledWith("https://github.example/authorize?state=s"));
  expect(calls.find((c) => c.path === "me/providers/github")?.authorization).toBe("Bearer token-1");

  linked = [google, { provider: "github", name: "GitHub", email: "ada@work.example", confirmed: true, linkedAt: 2 }];
  finishPopup({ provider: "github", intent: "link", message: "Your GitHub account is linked: you can sign in with it from now on." });
  expect(await within(region).findByText("Your GitHub account is linked: you can sign in with it from now on.")).toBeTruthy();
  expect(await within(region).findByRole("button", { name: "Unlink GitHub" })).toBeTruthy();
  await waitFor(() => expect(user.value?.providers).toEqual(["password", "google", "github"]));
});

test("unlinking keeps another way to sign in; the last one cannot go", async () => {
  signInAs({ providers: ["google", "github"] });
  const github = { provider: "github", name: "GitHub", email: "", confirmed: true, linkedAt: 2 };
  let linked = [google, github];
  mockApi({
    "GET me/providers": () => ok(linked),
    "GET auth/providers": configured,
    "GET me/tokens": () => ok([]),
    "DELETE me/providers/google": () => {
      linked = [github];
      return ok(testUser({ providers: ["github"] }));
    },
  });
  renderRoute("/settings/general");

  const region = await methods();
  fireEvent.click(await within(region).findByRole("button", { name: "Unlink Google" }));
  expect(await within(region).findByText("Google is unlinked.")).toBeTruthy();
  const last = (await within(region).findByRole("button", { name: "Unlink GitHub" })) as HTMLButtonElement;
  expect(last.disabled).toBe(true);
  expect(last.title).toBe("Your only way to sign in");
  expect(user.value?.providers).toEqual(["github"]);
});

test("without a recent sign-in, a Google-only user signs in again with Google, then the unlink goes through", async () => {
  signInAs({ providers: ["google", "github"] });
  let recent = false;
  const { popup } = stubPopup();
  const calls = mockApi({
    "GET me/providers": () => ok([google]),
    "GET auth/providers": configured,
    "GET me/tokens": () => ok([]),
    "DELETE me/providers/google": () => (recent ? ok(testUser({ providers: ["github"] })) : recentLogin()),
    "POST auth/reauth/google": () => ok({ url: "https://google.example/authorize?state=r" }),
  });
  renderRoute("/settings/general");

  fireEvent.click(await within(await methods()).findByRole("button", { name: "Unlink Google" }));
  const dialog = await screen.findByRole("dialog", { name: "Please sign in again to complete this action" });
  expect(within(dialog).queryByLabelText("Password")).toBeNull();
  fireEvent.click(within(dialog).getByRole("button", { name: "Sign in with Google" }));
  await waitFor(() => expect(popup.location.assign).toHaveBeenCalledWith("https://google.example/authorize?state=r"));

  finishPopup({ provider: "google", intent: "reauth", status: "error", code: "auth/wrong-credentials", message: "This Google account is not the one linked to your account: sign in with that one." });
  expect((await within(dialog).findByRole("alert")).textContent).toBe("This Google account is not the one linked to your account: sign in with that one.");

  recent = true;
  finishPopup({ provider: "google", intent: "reauth", message: "You signed in again with Google." });
  expect(await screen.findByText("Google is unlinked.")).toBeTruthy();
  expect(screen.queryByRole("dialog")).toBeNull();
  expect(calls.filter((c) => c.method === "DELETE")).toHaveLength(2);
});

test("billing with a plan that has no Stripe customer goes to the pricing page", async () => {
  signInAs({ planId: "pro", planIsActive: true });
  mockApi({ "POST stripe-create-billing-session": () => fail(409, "billing/no-customer", "You have no subscription to manage yet: choose a plan first.") });
  const { router } = renderRoute("/settings/billing");
  await waitFor(() => expect(router.state.location.pathname).toBe("/pricing"));
});

const recentLogin = () => fail(401, "auth/requires-recent-login", "Please sign in again to complete this action.");
