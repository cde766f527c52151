import { useLocation } from "react-router";
import { NotFoundPage } from "../../features/not-found/components/not-found-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  const { pathname } = useLocation();
  useDocumentTitle("Page not found");
  return <NotFoundPage path={pathname} />;
}
