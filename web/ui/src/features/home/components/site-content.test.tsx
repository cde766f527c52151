import { screen } from "@testing-library/react";
import { afterEach, expect, test } from "vitest";
import type { SiteContent } from "../../../lib/public-settings";
import { renderRoute } from "../../../testing/render-route";

// The operator's content (config site.*) comes in the page's settings block (web/public_settings.go).
function withSite(site: SiteContent) {
  const block = document.createElement("script");
  block.type = "application/json";
  block.id = "public-settings";
  block.textContent = JSON.stringify({ site });
  document.head.append(block);
}

afterEach(() => document.getElementById("public-settings")?.remove());

test("the home page shows the operator's testimonials and live figures, not the examples", async () => {
  withSite({
    stats: "live",
    figures: [{ value: "1,200+", label: "Users" }],
    testimonials: [{ quote: "It reached my sister on the day.", name: "Ana Real", role: "Nurse" }],
  });
  renderRoute("/");

  expect(await screen.findByText("It reached my sister on the day.")).toBeTruthy();
  expect(screen.getByText("Ana Real, Nurse")).toBeTruthy();
  expect(screen.getAllByRole("blockquote")).toHaveLength(1);
  expect(screen.queryByText(/Sarah Kline/)).toBeNull();
  expect(screen.getByText("1,200+")).toBeTruthy();
  expect(screen.queryByText("12,480")).toBeNull();
});

test("live figures all below the minimum, or stats off, show no strip; no testimonials hide the section", async () => {
  for (const site of [{ stats: "live", testimonials: [] }, { stats: "off" }] as SiteContent[]) {
    withSite(site);
    const { unmount } = renderRoute("/");
    expect(await screen.findByRole("heading", { name: "All the steps you need to secure your message" })).toBeTruthy();
    expect(screen.queryByRole("region", { name: "Statistics" })).toBeNull();
    expect(screen.queryByText("12,480")).toBeNull();
    if (site.testimonials) expect(screen.queryByRole("heading", { name: "Here's what people are saying" })).toBeNull();
    unmount();
    document.getElementById("public-settings")?.remove();
  }
});

test("the about page shows the operator's headline, text and team", async () => {
  withSite({ headline: "Letters that wait", about: "We are two people.\n\nWe answer email.", team: [{ name: "Ines Roy", role: "Founder" }] });
  renderRoute("/about");

  expect(await screen.findByText("Letters that wait")).toBeTruthy();
  expect(screen.getByText("We answer email.")).toBeTruthy();
  expect(screen.getByRole("heading", { name: "Ines Roy" })).toBeTruthy();
  expect(screen.queryByText("We help you make money")).toBeNull();
  expect(screen.queryByText("John Smith")).toBeNull();
  // The strip stays the example: site.stats was not set.
  expect(screen.getByText("12,480")).toBeTruthy();
});
