import { pageHead } from "../../config/pages";
import { PricingPage } from "../../features/pricing/components/pricing-page";
import { usePageHead } from "../../lib/head";

export default function PricingPageRoute() {
  usePageHead(pageHead("pricing"));
  return <PricingPage />;
}
