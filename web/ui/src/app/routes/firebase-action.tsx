import { useSearchParams } from "react-router";
import { EmailActionPage } from "../../features/email-action/components/email-action-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  useDocumentTitle();
  const [search] = useSearchParams();
  return <EmailActionPage mode={search.get("mode") ?? ""} oobCode={search.get("oobCode") ?? ""} />;
}
