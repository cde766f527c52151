/** The settings the server writes into the page (web/public_settings.go); every third party is off without them. */
export type PublicSettings = {
  analytics?: { scriptUrl: string; websiteId: string };
  chat?: { scriptUrl: string; websiteId: string };
  // The server counts page views itself (POST /api/pageviews): first party, no cookie.
  pageViews?: boolean;
  // Sign-in providers are configured: sign in and sign up show their buttons, which the app draws.
  socialSignIn?: boolean;
  // The server does passkeys (its base_url can be a relying party): the sign-in page's button and autofill, Settings → Security's list.
  passkeys?: boolean;
  // The operator's content of the public pages (config site.*); what is absent keeps the shipped example.
  site?: SiteContent;
};

export type SiteContent = {
  stats?: "live" | "off";
  figures?: { value: string; label: string }[];
  headline?: string;
  about?: string;
  testimonials?: { quote: string; name: string; role?: string }[];
  team?: { name: string; role?: string; bio?: string }[];
};

/** The server's settings for this page; none in the build's prerender (Node: no document), which shows the examples. */
export function readPublicSettings(): PublicSettings {
  if (typeof document === "undefined") return {};
  const block = document.getElementById("public-settings");
  if (!block?.textContent) return {};
  try {
    return JSON.parse(block.textContent) as PublicSettings;
  } catch {
    return {};
  }
}

/** Adds a script from another origin; the server's CSP allows the configured ones only. */
export function loadScript(src: string, attributes: Record<string, string> = {}) {
  const script = document.createElement("script");
  script.src = src;
  script.async = true;
  for (const [name, value] of Object.entries(attributes)) script.setAttribute(name, value);
  document.head.append(script);
  return script;
}
