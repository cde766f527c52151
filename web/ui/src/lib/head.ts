import { signal } from "@preact/signals-react";
import { useEffect } from "react";
import type { PageHead } from "../config/pages";

/** The canonical path of the public page on show; undefined on a signed-in, email-link or 404 page. */
export const publicPage = signal<string | undefined>(undefined);

/** The element of the head matching selector, made from attributes when the page has none yet. */
function headTag(selector: string, tag: "link" | "meta", attributes: Record<string, string>) {
  let element = document.head.querySelector(selector);
  if (!element) {
    element = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
    document.head.append(element);
  }
  return element;
}

const meta = (key: "name" | "property", value: string, content: string) =>
  headTag(`meta[${key}="${value}"]`, "meta", { [key]: value }).setAttribute("content", content);

/**
 * Keeps the head in step with the page on show, as the server wrote it for the first page
 * (web/meta.go): title, description, canonical and share URL, share texts, and noindex.
 */
export function applyHead(head: PageHead) {
  const url = new URL(head.canonical, window.location.origin).href;
  document.title = head.title;
  meta("name", "description", head.description);
  headTag('link[rel="canonical"]', "link", { rel: "canonical" }).setAttribute("href", url);
  meta("property", "og:url", url);
  meta("property", "og:title", head.title);
  meta("property", "og:description", head.description);
  meta("name", "twitter:title", head.title);
  meta("name", "twitter:description", head.description);
  const robots = document.head.querySelector('meta[name="robots"]');
  if (head.noindex) meta("name", "robots", "noindex");
  else robots?.remove();
  publicPage.value = head.noindex ? undefined : head.canonical;
}

/** Applies a page's head while it is on show. */
export function usePageHead(head: PageHead) {
  const { title, description, canonical, noindex } = head;
  useEffect(() => applyHead({ title, description, canonical, noindex }), [title, description, canonical, noindex]);
}
