import type { RouteObject } from "react-router";
import { paths } from "../config/paths";
import { RequireAuth } from "./layouts/require-auth";
import { RootHydrateFallback, RootLayout } from "./layouts/root-layout";
import { Component as Home } from "./routes/home";

// The home page is in the entry bundle; every other page is its own chunk.
export const routes: RouteObject[] = [
  {
    Component: RootLayout,
    HydrateFallback: RootHydrateFallback,
    children: [
      { path: paths.home.path, Component: Home },
      { path: paths.about.path, lazy: () => import("./routes/about") },
      { path: paths.faq.path, lazy: () => import("./routes/faq") },
      { path: paths.pricing.path, lazy: () => import("./routes/pricing") },
      { path: paths.legal.path, lazy: () => import("./routes/legal") },
      { path: paths.postpone.path, lazy: () => import("./routes/postpone") },
      { path: paths.contact.path, lazy: () => import("./routes/contact") },
      { path: paths.auth.path, lazy: () => import("./routes/auth") },
      { path: paths.firebaseAction.path, lazy: () => import("./routes/firebase-action") },
      {
        Component: RequireAuth,
        children: [
          { path: paths.dashboard.path, lazy: () => import("./routes/dashboard") },
          { path: paths.settings.path, lazy: () => import("./routes/settings") },
          { path: paths.purchase.path, lazy: () => import("./routes/purchase") },
        ],
      },
      { path: "*", lazy: () => import("./routes/not-found") },
    ],
  },
];
