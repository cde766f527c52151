import { AboutPage } from "../../features/about/components/about-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  useDocumentTitle("About");
  return <AboutPage />;
}
