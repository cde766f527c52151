import { cleanup, configure } from "@testing-library/react";
import { afterEach, vi } from "vitest";
import { connectApiClient } from "../lib/auth";

connectApiClient();

// `make test` runs beside the Go suite and other work on 2 cores: a render that takes a second
// there is slow, not wrong. findBy and waitFor wait up to 10 s instead of 1 s (5 s was not
// enough once: the first lazy route of a file took 7.5 s in a run at a load of 15).
configure({ asyncUtilTimeout: 10_000 });

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
