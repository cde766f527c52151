import { afterEach, expect, test } from "vitest";
import { readPublicSettings } from "./public-settings";

afterEach(() => document.getElementById("public-settings")?.remove());

test("without the server's settings every third party is off", () => {
  expect(readPublicSettings()).toEqual({});
});

test("the server's settings are read from the page's data block", () => {
  const block = document.createElement("script");
  block.type = "application/json";
  block.id = "public-settings";
  block.textContent = '{"analytics":{"scriptUrl":"https://stats.example.org/script.js","websiteId":"site-1"}}';
  document.head.append(block);

  expect(readPublicSettings()).toEqual({ analytics: { scriptUrl: "https://stats.example.org/script.js", websiteId: "site-1" } });
});
