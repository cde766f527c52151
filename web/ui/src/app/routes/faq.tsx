import { pageHead } from "../../config/pages";
import { FaqPage } from "../../features/faq/components/faq-page";
import { usePageHead } from "../../lib/head";

export default function FaqPageRoute() {
  usePageHead(pageHead("faq"));
  return <FaqPage />;
}
