import { useSearchParams } from "react-router";
import { pageHead } from "../../config/pages";
import { EmailActionPage } from "../../features/email-action/components/email-action-page";
import { usePageHead } from "../../lib/head";

export default function EmailActionRoute() {
  usePageHead(pageHead("firebaseAction"));
  const [search] = useSearchParams();
  return <EmailActionPage mode={search.get("mode") ?? ""} oobCode={search.get("oobCode") ?? ""} />;
}
