import { pageHead } from "../../config/pages";
import { AboutPage } from "../../features/about/components/about-page";
import { usePageHead } from "../../lib/head";

export default function AboutPageRoute() {
  usePageHead(pageHead("about"));
  return <AboutPage />;
}
