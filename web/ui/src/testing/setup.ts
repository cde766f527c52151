import { cleanup } from "@testing-library/react";
import { afterEach, vi } from "vitest";
import { connectApiClient } from "../lib/auth";

connectApiClient();

// jsdom implements neither; the app calls both.
window.matchMedia = (query: string) =>
  ({
    matches: false,
    media: query,
    onchange: null,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    addListener: () => undefined,
    removeListener: () => undefined,
    dispatchEvent: () => false,
  }) satisfies MediaQueryList;
window.scrollTo = vi.fn() as typeof window.scrollTo;

afterEach(() => {
  cleanup();
  localStorage.clear();
});
