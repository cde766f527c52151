import { lazy, type ComponentType } from "react";
import { matchPath, Route, Routes } from "react-router";
import { paths } from "../config/paths";
import { RequireAuth } from "./layouts/require-auth";
import { RootLayout } from "./layouts/root-layout";
import Home from "./routes/home";

type Page = ComponentType & { load: () => Promise<unknown> };

/**
 * A page in its own chunk, loaded on first visit (React.lazy), or before: once `load` resolved,
 * the page renders at once instead of suspending, so a prerendered page hydrates whole in one
 * pass (boot.tsx loads the chunk of the page it hydrates first; docs/web.md, "First paint").
 */
function page(importer: () => Promise<{ default: ComponentType }>): Page {
  let loaded: ComponentType | undefined;
  const load = () =>
    importer().then((module) => {
      loaded = module.default;
      return module;
    });
  const Lazy = lazy(load);
  const Page = () => {
    const Loaded = loaded;
    return Loaded ? <Loaded /> : <Lazy />;
  };
  return Object.assign(Page, { load });
}

// The home page is in the entry bundle; every other page is its own chunk, loaded on first visit.
const About = page(() => import("./routes/about"));
const Faq = page(() => import("./routes/faq"));
const Pricing = page(() => import("./routes/pricing"));
const Legal = page(() => import("./routes/legal"));
const Postpone = page(() => import("./routes/postpone"));
const OpenSealed = page(() => import("./routes/open"));
const Contact = page(() => import("./routes/contact"));
const Auth = page(() => import("./routes/auth"));
const EmailAction = page(() => import("./routes/firebase-action"));
const Dashboard = page(() => import("./routes/dashboard"));
const Settings = page(() => import("./routes/settings"));
const Device = page(() => import("./routes/device"));
const Purchase = page(() => import("./routes/purchase"));
const NotFound = page(() => import("./routes/not-found"));

// The public pages the build prerenders, by path pattern (scripts/prerender.mjs).
const publicPages: [string, Page][] = [
  [paths.about.path, About],
  [paths.faq.path, Faq],
  [paths.pricing.path, Pricing],
  [paths.legal.path, Legal],
  [paths.contact.path, Contact],
  [paths.auth.path, Auth],
];

/** Loads the chunk of the public page at pathname, if it has one (none for home, which is in the entry bundle). */
export async function loadPage(pathname: string) {
  const found = publicPages.find(([pattern]) => matchPath(pattern, pathname));
  if (found) await found[1].load();
}

/**
 * Every page, in react-router's declarative mode: the data router's loaders and actions would
 * cost the home page some 16 KB of gzipped JavaScript and nothing here uses them.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<RootLayout />}>
        <Route path={paths.home.path} element={<Home />} />
        <Route path={paths.about.path} element={<About />} />
        <Route path={paths.faq.path} element={<Faq />} />
        <Route path={paths.pricing.path} element={<Pricing />} />
        <Route path={paths.legal.path} element={<Legal />} />
        <Route path={paths.postpone.path} element={<Postpone />} />
        <Route path={paths.open.path} element={<OpenSealed />} />
        <Route path={paths.contact.path} element={<Contact />} />
        <Route path={paths.auth.path} element={<Auth />} />
        <Route path={paths.firebaseAction.path} element={<EmailAction />} />
        <Route element={<RequireAuth />}>
          <Route path={paths.dashboard.path} element={<Dashboard />} />
          <Route path={paths.settings.path} element={<Settings />} />
          <Route path={paths.device.path} element={<Device />} />
        </Route>
        <Route path={paths.purchase.path} element={<Purchase />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
