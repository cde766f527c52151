import { fireEvent, screen, waitFor } from "@testing-library/react";
import { expect, test } from "vitest";
import { renderRoute } from "../../../testing/render-route";

test("each FAQ item expands and collapses on its own", async () => {
  renderRoute("/faq");

  await screen.findByRole("heading", { name: "Frequently Asked Questions" });
  const items = Array.from(document.querySelectorAll("details"));
  expect(items).toHaveLength(5);
  const [first, second] = items as [HTMLDetailsElement, HTMLDetailsElement];

  fireEvent.click(first.querySelector("summary")!);
  expect(first.open).toBe(true);
  expect(second.open).toBe(false);

  fireEvent.click(second.querySelector("summary")!);
  expect(first.open).toBe(true);
  expect(second.open).toBe(true);

  fireEvent.click(first.querySelector("summary")!);
  expect(first.open).toBe(false);
  expect(second.open).toBe(true);
  await waitFor(() => expect(document.title).toBe("FAQ - Sendlater"));
});
