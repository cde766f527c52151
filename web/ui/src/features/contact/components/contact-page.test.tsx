import { fireEvent, screen, waitFor } from "@testing-library/react";
import { afterEach, expect, test, vi } from "vitest";
import { deferred, fail, mockApi, ok } from "../../../testing/api-mock";
import { renderRoute } from "../../../testing/render-route";

afterEach(() => {
  vi.unstubAllGlobals();
});

const fillIn = () => {
  fireEvent.change(screen.getByLabelText("Name"), { target: { value: "Ada" } });
  fireEvent.change(screen.getByLabelText("Email"), { target: { value: "ada@example.com" } });
  fireEvent.change(screen.getByLabelText("Message"), { target: { value: "Hello there" } });
};

test("the contact page: its fields and the required-field messages", async () => {
  const calls = mockApi({});
  renderRoute("/contact");

  expect(await screen.findByRole("heading", { name: "Contact Us" })).toBeTruthy();
  await waitFor(() => expect(document.title).toBe("Contact - Sendlater"));
  expect(screen.getByLabelText("Email").getAttribute("type")).toBe("email");
  expect(screen.getByLabelText("Message").getAttribute("rows")).toBe("5");

  fireEvent.click(screen.getByRole("button", { name: "Send message" }));
  expect(screen.getByText("Please enter your name")).toBeTruthy();
  expect(screen.getByText("Please enter your email")).toBeTruthy();
  expect(screen.getByText("Please enter a message")).toBeTruthy();
  expect(calls.filter((call) => call.path === "contact")).toEqual([]);
});

test("sending: a spinner on a disabled button, then a cleared form and the thanks", async () => {
  const reply = deferred<ReturnType<typeof ok>>();
  const calls = mockApi({ "POST contact": () => reply.promise });
  renderRoute("/contact");

  await screen.findByRole("heading", { name: "Contact Us" });
  fillIn();
  fireEvent.click(screen.getByRole("button", { name: "Send message" }));

  const button = screen.getByRole("button", { name: "Send message" }) as HTMLButtonElement;
  await waitFor(() => expect(button.disabled).toBe(true));
  expect(button.getAttribute("aria-busy")).toBe("true");
  expect(button.textContent).toBe("");
  expect(calls.find((call) => call.path === "contact")?.body).toEqual({
    name: "Ada",
    email: "ada@example.com",
    message: "Hello there",
    website: "",
  });

  reply.resolve(ok(null));
  expect(await screen.findByText("Your message has been sent!")).toBeTruthy();
  expect((screen.getByLabelText("Name") as HTMLInputElement).value).toBe("");
  expect((screen.getByLabelText("Message") as HTMLTextAreaElement).value).toBe("");
  expect(button.disabled).toBe(false);
  expect(button.textContent).toBe("Send message");
});

test("a failure shows the error's message and keeps the form", async () => {
  mockApi({ "POST contact": () => fail(429, "request/too-many", "Too many messages. Please try again later.") });
  renderRoute("/contact");

  await screen.findByRole("heading", { name: "Contact Us" });
  fillIn();
  fireEvent.click(screen.getByRole("button", { name: "Send message" }));

  expect((await screen.findByRole("alert")).textContent).toBe("Too many messages. Please try again later.");
  expect((screen.getByLabelText("Name") as HTMLInputElement).value).toBe("Ada");
});
