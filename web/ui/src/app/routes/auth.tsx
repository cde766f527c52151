import { useParams, useSearchParams } from "react-router";
import { pageHead, paramValue, type AuthType } from "../../config/pages";
import { paths } from "../../config/paths";
import { AuthPage } from "../../features/auth/components/auth-page";
import { usePageHead } from "../../lib/head";

/** Only a path on this site: "//host" and "/\host" would leave it. */
function safeNext(next: string | null) {
  return next !== null && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\")
    ? next
    : paths.dashboard.href();
}

export default function AuthRoute() {
  const params = useParams();
  const [search] = useSearchParams();
  // Any other type signs up.
  const type = paramValue("auth", params.type) as AuthType;
  usePageHead(pageHead("auth", type));
  return <AuthPage key={type} type={type} next={safeNext(search.get("next"))} oobCode={search.get("oobCode") ?? ""} />;
}
