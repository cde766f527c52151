import { useLocation } from "react-router";
import { notFoundHead } from "../../config/pages";
import { NotFoundPage } from "../../features/not-found/components/not-found-page";
import { usePageHead } from "../../lib/head";

export default function NotFoundRoute() {
  const { pathname } = useLocation();
  usePageHead(notFoundHead(pathname));
  return <NotFoundPage path={pathname} />;
}
