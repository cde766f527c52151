import { useSignals } from "@preact/signals-react/runtime";
import type { ReactNode } from "react";
import { Navigate, Outlet, useLocation } from "react-router";
import { Spinner } from "../../components/loading";
import { paths } from "../../config/paths";
import { user } from "../../lib/auth";

/** Guards the signed-in pages (its children, else its child routes): a spinner while the user is unknown, sign-in when signed out. */
export function RequireAuth({ children }: { children?: ReactNode }) {
  useSignals();
  const { pathname, search } = useLocation();

  if (user.value === undefined) {
    return <Spinner />;
  }
  if (user.value === null) {
    const here = pathname + search;
    const next = here === paths.dashboard.href() ? undefined : here;
    return <Navigate to={paths.auth.href("signin", next)} replace />;
  }
  return children ?? <Outlet />;
}
