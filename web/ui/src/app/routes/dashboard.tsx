import { useSearchParams } from "react-router";
import { DashboardPage } from "../../features/dashboard/components/dashboard-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  useDocumentTitle("Dashboard");
  const [search] = useSearchParams();
  return <DashboardPage paid={search.get("paid") === "true"} />;
}
