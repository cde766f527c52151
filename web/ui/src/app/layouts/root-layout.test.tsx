import { act, screen, waitFor } from "@testing-library/react";
import { expect, test, vi } from "vitest";
import { renderRoute } from "../../testing/render-route";

test("the window scrolls to the top whenever the path changes", async () => {
  const { router } = renderRoute("/");
  await screen.findByRole("heading", { level: 1 });
  vi.mocked(window.scrollTo).mockClear();

  await act(() => router.navigate("/about"));

  expect(await screen.findByRole("heading", { name: "About" })).toBeTruthy();
  // Both are effects of the new page, which may run just after its heading shows.
  await waitFor(() => expect(window.scrollTo).toHaveBeenCalledWith(0, 0));
  await waitFor(() =>
    expect(document.querySelector('link[rel="canonical"]')?.getAttribute("href")).toBe(`${window.location.origin}/about`),
  );
});

test("an unknown legal section shows the terms", async () => {
  renderRoute("/legal/cookies");

  expect(await screen.findByRole("heading", { name: "Terms of Service" })).toBeTruthy();
  expect(screen.getByText("Last updated October 5th, 2021")).toBeTruthy();
  await waitFor(() => expect(document.title).toBe("Terms of Service - Sendlater"));
});
