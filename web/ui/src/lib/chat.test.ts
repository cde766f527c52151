import { afterEach, expect, test } from "vitest";
import { user, type SessionUser } from "./auth";
import { startChat } from "./chat";

let stop: () => void = () => undefined;

afterEach(() => {
  stop();
  delete window.$crisp;
  delete window.CRISP_WEBSITE_ID;
  document.head.querySelectorAll("script").forEach((script) => script.remove());
  user.value = undefined;
});

test("the widget gets the signed-in user's email and name, and a fresh session after sign-out", () => {
  user.value = undefined;
  stop = startChat({ scriptUrl: "https://client.crisp.chat/l.js", websiteId: "chat-1" });

  expect(document.head.querySelector('script[src="https://client.crisp.chat/l.js"]')).not.toBeNull();
  expect(window.CRISP_WEBSITE_ID).toBe("chat-1");
  expect(window.$crisp).toEqual([]);

  user.value = { uid: "u1", email: "ada@example.com", name: "Ada" } as SessionUser;
  user.value = null;

  expect(window.$crisp).toEqual([
    ["set", "user:email", ["ada@example.com"]],
    ["set", "user:nickname", ["Ada"]],
    ["do", "session:reset"],
  ]);
});

test("an anonymous visitor's widget is never reset", () => {
  user.value = null;
  stop = startChat({ scriptUrl: "https://client.crisp.chat/l.js", websiteId: "chat-1" });

  expect(window.$crisp).toEqual([]);
});
