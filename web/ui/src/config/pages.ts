import table from "./pages.json";

// The one table of the SPA's pages: the router takes their paths from it, and the server
// (web/meta.go embeds pages.json) writes each page's head tags into the HTML it serves, so
// crawlers and link previews see them without running the app.

type Param = { titles?: Record<string, string>; values?: string[]; fallback?: string };
type Page = {
  path: string;
  title?: string;
  description?: string;
  param?: Param;
  private?: boolean;
  sitemap?: boolean | string[];
};

const pages: Record<string, Page> = table.pages;

export type PageName = keyof typeof table.pages;
export type AuthType = keyof typeof table.pages.auth.param.titles;
export type LegalSection = keyof typeof table.pages.legal.param.titles;
export type SettingsSection = (typeof table.pages.settings.param.values)[number];
export type PlanId = (typeof table.pages.purchase.param.values)[number];

export const site = table.site;

/** The path pattern of a page, as the router matches it. */
export const pathOf = (name: PageName) => pages[name]!.path;

/** The values a page's parameter may take (its titles' keys, or its list). */
function valuesOf(param: Param) {
  return param.titles ? Object.keys(param.titles) : (param.values ?? []);
}

/** The parameter value a page shows for value: itself when known, else the fallback (undefined: none, a 404). */
export function paramValue(name: PageName, value: string | undefined) {
  const param = pages[name]!.param;
  if (!param) return value;
  return value !== undefined && valuesOf(param).includes(value) ? value : param.fallback;
}

export type PageHead = {
  title: string;
  description: string;
  // The URL path search engines should index for this page.
  canonical: string;
  noindex: boolean;
};

const fullTitle = (title: string | undefined) => (title ? `${title} - ${site.name}` : site.name);

/** The head of a page, for a parameter value already passed through paramValue. */
export function pageHead(name: PageName, value?: string): PageHead {
  const page = pages[name]!;
  const title = (value !== undefined && page.param?.titles?.[value]) || page.title;
  return {
    title: fullTitle(title),
    description: page.description ?? site.description,
    canonical: value === undefined ? page.path : page.path.replace(/:[a-z]+/, encodeURIComponent(value)),
    noindex: page.private === true,
  };
}

/** The head of the 404 page. */
export function notFoundHead(path: string): PageHead {
  return { title: fullTitle(table.notFound.title), description: site.description, canonical: path, noindex: true };
}

/** The title a page shows in its h1 for a parameter value (auth and legal name theirs per value). */
export const paramTitle = (name: "auth" | "legal", value: string) => pages[name]!.param!.titles![value]!;
