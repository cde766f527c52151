import { useParams } from "react-router";
import type { LegalSection } from "../../config/paths";
import { LegalPage, legalTitles } from "../../features/legal/components/legal-page";
import { useDocumentTitle } from "../../lib/document-title";

const isLegalSection = (value: string | undefined): value is LegalSection =>
  value !== undefined && Object.hasOwn(legalTitles, value);

export function Component() {
  const params = useParams();
  // Any other section shows the terms.
  const section = isLegalSection(params.section) ? params.section : "terms-of-service";
  useDocumentTitle(legalTitles[section]);
  return <LegalPage section={section} />;
}
