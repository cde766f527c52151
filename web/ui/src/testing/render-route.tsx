import { render } from "@testing-library/react";
import { MemoryRouter, useLocation, useNavigate, useNavigationType, type Location, type NavigateFunction } from "react-router";
import { AppRoutes } from "../app/routes";

type RouterView = { state: { location: Location; historyAction: string }; navigate: NavigateFunction };

/** Reports where the router is and lends its navigate to the test. */
function Probe({ view }: { view: RouterView }) {
  view.state = { location: useLocation(), historyAction: useNavigationType() };
  view.navigate = useNavigate();
  return null;
}

/** Renders the whole app at a path, with the real routes; `router` tells where it went. */
export function renderRoute(path: string) {
  const router = {} as RouterView;
  const rendered = render(
    <MemoryRouter initialEntries={[path]}>
      <Probe view={router} />
      <AppRoutes />
    </MemoryRouter>,
  );
  return { router, ...rendered };
}
