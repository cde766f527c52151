import { PricingPage } from "../../features/pricing/components/pricing-page";
import { useDocumentTitle } from "../../lib/document-title";

export function Component() {
  useDocumentTitle("Pricing");
  return <PricingPage />;
}
