import { StrictMode } from "react";
import { prerender } from "react-dom/static";
import { StaticRouter } from "react-router";
import { AppRoutes } from "./app/routes";
import { setPrerenderPlans, type Plan } from "./lib/plans";

/**
 * The HTML of the app at path as an anonymous visitor first sees it, in the light theme and
 * with the shipped examples (scripts/prerender.mjs writes it into dist/ at build time; main.tsx
 * hydrates it). Waits for every lazy page, so the HTML is the page and not its spinner.
 */
export async function render(path: string, data: { plans?: Plan[] } = {}) {
  const errors: unknown[] = [];
  // The plans of GET /api/plans the page shows (scripts/prerender.mjs renders a variant per set).
  setPrerenderPlans(data.plans);
  const { prelude } = await prerender(
    <StrictMode>
      <StaticRouter location={path}>
        <AppRoutes />
      </StaticRouter>
    </StrictMode>,
    { onError: (error) => void errors.push(error) },
  );
  // React renders the nearest Suspense fallback in place of a part that threw: a page with a
  // spinner in it is not the page.
  if (errors.length > 0) throw new AggregateError(errors, `${path}: the page did not render on the server`);
  return new Response(prelude).text();
}
