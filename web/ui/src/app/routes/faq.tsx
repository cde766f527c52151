import { FaqPage } from "../../features/faq/components/faq-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  useDocumentTitle("Faq");
  return <FaqPage />;
}
