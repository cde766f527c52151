import { useSignals } from "@preact/signals-react/runtime";
import { Navigate, useParams, useSearchParams } from "react-router";
import { pageHead, paramValue, type AuthType } from "../../config/pages";
import { paths } from "../../config/paths";
import { AuthPage } from "../../features/auth/components/auth-page";
import { user } from "../../lib/auth";
import { usePageHead } from "../../lib/head";

/** Only a path on this site: "//host" and "/\host" would leave it. */
function safeNext(next: string | null) {
  return next !== null && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\")
    ? next
    : paths.dashboard.href();
}

export default function AuthRoute() {
  useSignals();
  const params = useParams();
  const [search] = useSearchParams();
  // Any other type signs up.
  const type = paramValue("auth", params.type) as AuthType;
  const next = safeNext(search.get("next"));
  usePageHead(pageHead("auth", type));
  // Someone already signed in has nothing to do on sign in or sign up: on to where they were going.
  if (user.value && (type === "signin" || type === "signup")) {
    return <Navigate to={next} replace />;
  }
  return <AuthPage key={type} type={type} next={next} oobCode={search.get("oobCode") ?? ""} />;
}
