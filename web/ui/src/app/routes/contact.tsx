import { ContactPage } from "../../features/contact/components/contact-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  useDocumentTitle("Contact");
  return <ContactPage />;
}
