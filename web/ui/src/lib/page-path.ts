import { signal } from "@preact/signals-react";

/** The path of the page on show, set by the root layout on every route change (read by analytics). */
export const pagePath = signal<string | undefined>(undefined);
