import { screen, waitFor } from "@testing-library/react";
import { expect, test } from "vitest";
import { renderRoute } from "../../../testing/render-route";

test("home page shows the hero, steps, statistics, testimonials and closing banner", async () => {
  renderRoute("/");

  expect(await screen.findByRole("heading", { level: 1, name: "Send important messages when the time is right!" })).toBeTruthy();
  expect(screen.getByRole("heading", { name: "All the steps you need to secure your message" })).toBeTruthy();
  for (const step of ["Create", "Secure", "Postpone", "Deliver"]) {
    expect(screen.getByText(step)).toBeTruthy();
  }
  for (const stat of ["Users", "Messages delivered", "Messages waiting"]) {
    expect(screen.getByText(stat)).toBeTruthy();
  }
  expect(screen.getByRole("heading", { name: "Here's what people are saying" })).toBeTruthy();
  expect(screen.getAllByRole("blockquote")).toHaveLength(3);
  expect(screen.getByRole("heading", { name: "Ready to get started?" })).toBeTruthy();

  const getStarted = screen.getAllByRole("button", { name: "Get Started" });
  expect(getStarted).toHaveLength(2);
  for (const link of getStarted) {
    expect(link.getAttribute("href")).toBe("/pricing");
  }
  await waitFor(() => expect(document.title).toBe("Sendlater"));
});

test("every page has the footer with the current year", async () => {
  renderRoute("/");

  expect(await screen.findByText(`© ${new Date().getFullYear()} Sendlater`)).toBeTruthy();
  expect(screen.getByRole("link", { name: "Terms" }).getAttribute("href")).toBe("/legal/terms-of-service");
  expect(screen.getByRole("link", { name: "Privacy" }).getAttribute("href")).toBe("/legal/privacy-policy");
});
