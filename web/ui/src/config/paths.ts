import { pathOf, type AuthType, type LegalSection, type PlanId, type SettingsSection } from "./pages";

export type { AuthType, LegalSection, PlanId, SettingsSection };

// Slashes stay readable in ?next=/purchase/pro; everything else is escaped.
const queryValue = (value: string) => encodeURIComponent(value).replaceAll("%2F", "/");

export const paths = {
  home: { path: pathOf("home"), href: () => "/" },
  about: { path: pathOf("about"), href: () => "/about" },
  faq: { path: pathOf("faq"), href: () => "/faq" },
  contact: { path: pathOf("contact"), href: () => "/contact" },
  pricing: { path: pathOf("pricing"), href: () => "/pricing" },
  dashboard: { path: pathOf("dashboard"), href: () => "/dashboard" },
  auth: {
    path: pathOf("auth"),
    href: (type: AuthType, next?: string) =>
      next === undefined ? `/auth/${type}` : `/auth/${type}?next=${queryValue(next)}`,
  },
  settings: {
    path: pathOf("settings"),
    href: (section: SettingsSection) => `/settings/${section}`,
  },
  legal: {
    path: pathOf("legal"),
    href: (section: LegalSection) => `/legal/${section}`,
  },
  purchase: { path: pathOf("purchase"), href: (plan: PlanId) => `/purchase/${plan}` },
  firebaseAction: { path: pathOf("firebaseAction"), href: () => "/firebase-action" },
  device: { path: pathOf("device"), href: (code?: string) => (code ? `/device?code=${queryValue(code)}` : "/device") },
  open: { path: pathOf("open"), href: (token: string) => `/open/${token}` },
  postpone: {
    path: pathOf("postpone"),
    href: (id: string, code: string) => `/postpone/${id}?code=${queryValue(code)}`,
  },
} as const;
