import { lazy } from "react";
import { Route, Routes } from "react-router";
import { paths } from "../config/paths";
import { RequireAuth } from "./layouts/require-auth";
import { RootLayout } from "./layouts/root-layout";
import Home from "./routes/home";

// The home page is in the entry bundle; every other page is its own chunk, loaded on first visit.
const About = lazy(() => import("./routes/about"));
const Faq = lazy(() => import("./routes/faq"));
const Pricing = lazy(() => import("./routes/pricing"));
const Legal = lazy(() => import("./routes/legal"));
const Postpone = lazy(() => import("./routes/postpone"));
const OpenSealed = lazy(() => import("./routes/open"));
const Contact = lazy(() => import("./routes/contact"));
const Auth = lazy(() => import("./routes/auth"));
const EmailAction = lazy(() => import("./routes/firebase-action"));
const Dashboard = lazy(() => import("./routes/dashboard"));
const Settings = lazy(() => import("./routes/settings"));
const Purchase = lazy(() => import("./routes/purchase"));
const NotFound = lazy(() => import("./routes/not-found"));

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
        </Route>
        <Route path={paths.purchase.path} element={<Purchase />} />
        <Route path="*" element={<NotFound />} />
      </Route>
    </Routes>
  );
}
