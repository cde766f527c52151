import { pageHead } from "../../config/pages";
import { HomePage } from "../../features/home/components/home-page";
import { usePageHead } from "../../lib/head";

export default function HomePageRoute() {
  usePageHead(pageHead("home"));
  return <HomePage />;
}
