import { pageHead } from "../../config/pages";
import { ContactPage } from "../../features/contact/components/contact-page";
import { usePageHead } from "../../lib/head";

export default function ContactPageRoute() {
  usePageHead(pageHead("contact"));
  return <ContactPage />;
}
