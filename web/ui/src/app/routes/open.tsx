import { useParams } from "react-router";
import { pageHead } from "../../config/pages";
import { OpenPage } from "../../features/open/components/open-page";
import { usePageHead } from "../../lib/head";

export default function OpenRoute() {
  usePageHead(pageHead("open"));
  const { token = "" } = useParams();
  return <OpenPage token={token} />;
}
