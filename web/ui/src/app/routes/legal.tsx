import { useParams } from "react-router";
import { pageHead, paramValue, type LegalSection } from "../../config/pages";
import { LegalPage } from "../../features/legal/components/legal-page";
import { usePageHead } from "../../lib/head";

export default function LegalRoute() {
  const params = useParams();
  // Any other section shows the terms.
  const section = paramValue("legal", params.section) as LegalSection;
  usePageHead(pageHead("legal", section));
  return <LegalPage section={section} />;
}
