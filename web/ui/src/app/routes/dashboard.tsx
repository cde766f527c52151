import { useSearchParams } from "react-router";
import { pageHead } from "../../config/pages";
import { DashboardPage } from "../../features/dashboard/components/dashboard-page";
import { usePageHead } from "../../lib/head";

export default function DashboardRoute() {
  usePageHead(pageHead("dashboard"));
  const [search] = useSearchParams();
  return <DashboardPage paid={search.get("paid") === "true"} />;
}
