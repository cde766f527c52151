import { screen, waitFor } from "@testing-library/react";
import { expect, test } from "vitest";
import { renderRoute } from "../../../testing/render-route";

test("an unknown path shows the 404 page with that path", async () => {
  renderRoute("/no/such-page");

  expect(await screen.findByRole("heading", { name: "The page /no/such-page could not be found" })).toBeTruthy();
  await waitFor(() => expect(document.title).toBe("Page not found - Sendlater"));
  // One way on, as a button, and the usual places as links (issue 29: never a dead end).
  expect(screen.getByRole("button", { name: "Go to the home page" }).getAttribute("href")).toBe("/");
  expect(screen.getByRole("link", { name: "pricing" }).getAttribute("href")).toBe("/pricing");
});
