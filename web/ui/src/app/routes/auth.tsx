import { useParams, useSearchParams } from "react-router";
import { paths, type AuthType } from "../../config/paths";
import { AuthPage, authTitles } from "../../features/auth/components/auth-page";
import { useDocumentTitle } from "../../lib/document-title";

const isAuthType = (value: string | undefined): value is AuthType =>
  value !== undefined && Object.hasOwn(authTitles, value);

/** Only a path on this site: "//host" and "/\host" would leave it. */
function safeNext(next: string | null) {
  return next !== null && next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\")
    ? next
    : paths.dashboard.href();
}

export function Component() {
  const params = useParams();
  const [search] = useSearchParams();
  // Any other type signs up.
  const type = isAuthType(params.type) ? params.type : "signup";
  useDocumentTitle(authTitles[type]);
  return <AuthPage key={type} type={type} next={safeNext(search.get("next"))} oobCode={search.get("oobCode") ?? ""} />;
}
