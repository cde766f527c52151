import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import { endSession, user } from "../../../lib/auth";
import { mockApi, ok } from "../../../testing/api-mock";
import { plansHandler } from "../../../testing/plans";
import { renderRoute } from "../../../testing/render-route";
import { signInAs } from "../../../testing/session";
import { salutationNote } from "./salutation";

afterEach(() => {
  endSession();
  user.value = undefined;
});

test("the rule: a greeting word first, or the name and a comma, opens the email", () => {
  expect(salutationNote("Charles", "Dear Charles,\nthe engine works.")).toBe("Your greeting opens the email.");
  expect(salutationNote("Charles Babbage", "\n  charles, my friend")).toBe("Your greeting opens the email.");
  expect(salutationNote("Ann", "Liebe Ann,")).toBe("Your greeting opens the email.");
  expect(salutationNote("Charles", "The engine works.\nDear me.")).toBe("We add “Dear Charles,” above your message unless it starts with a greeting.");
  expect(salutationNote("", "The engine works.")).toBe("We add “Hello,” above your message unless it starts with a greeting.");
});

test("the message dialog says under the Message field what the email adds, as the body changes", async () => {
  signInAs({});
  mockApi({ "GET messages": () => ok([]), ...plansHandler() });
  renderRoute("/dashboard");
  const add = (await screen.findByRole("button", { name: "Add Message" }, { timeout: 5000 })) as HTMLButtonElement;
  await waitFor(() => expect(add.disabled).toBe(false));
  fireEvent.click(add);
  const dialog = screen.getByRole("dialog", { name: "Create Message" });
  fireEvent.change(within(dialog).getByLabelText("Recipient name"), { target: { value: "Charles" } });
  fireEvent.change(within(dialog).getByLabelText("Message"), { target: { value: "The engine works." } });
  expect(within(dialog).getByText("We add “Dear Charles,” above your message unless it starts with a greeting.")).toBeTruthy();
  fireEvent.change(within(dialog).getByLabelText("Message"), { target: { value: "Dear Charles,\nthe engine works." } });
  expect(within(dialog).getByText("Your greeting opens the email.")).toBeTruthy();
});
