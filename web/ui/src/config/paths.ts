import type { PlanId } from "./plans";

export type AuthType = "signup" | "signin" | "forgotpass" | "changepass";
export type SettingsSection = "general" | "password" | "billing";
export type LegalSection = "terms-of-service" | "privacy-policy";

// Slashes stay readable in ?next=/purchase/pro; everything else is escaped.
const queryValue = (value: string) => encodeURIComponent(value).replaceAll("%2F", "/");

export const paths = {
  home: { path: "/", href: () => "/" },
  about: { path: "/about", href: () => "/about" },
  faq: { path: "/faq", href: () => "/faq" },
  contact: { path: "/contact", href: () => "/contact" },
  pricing: { path: "/pricing", href: () => "/pricing" },
  dashboard: { path: "/dashboard", href: () => "/dashboard" },
  auth: {
    path: "/auth/:type",
    href: (type: AuthType, next?: string) =>
      next === undefined ? `/auth/${type}` : `/auth/${type}?next=${queryValue(next)}`,
  },
  settings: {
    path: "/settings/:section",
    href: (section: SettingsSection) => `/settings/${section}`,
  },
  legal: {
    path: "/legal/:section",
    href: (section: LegalSection) => `/legal/${section}`,
  },
  purchase: { path: "/purchase/:plan", href: (plan: PlanId) => `/purchase/${plan}` },
  firebaseAction: { path: "/firebase-action", href: () => "/firebase-action" },
  postpone: {
    path: "/postpone/:id",
    href: (id: string, code: string) => `/postpone/${id}?code=${queryValue(code)}`,
  },
} as const;
