import { useParams, useSearchParams } from "react-router";
import { pageHead } from "../../config/pages";
import { PostponePage } from "../../features/postpone/components/postpone-page";
import { usePageHead } from "../../lib/head";

export default function PostponeRoute() {
  usePageHead(pageHead("postpone"));
  const { id = "" } = useParams();
  const [search] = useSearchParams();
  return <PostponePage id={id} code={search.get("code") ?? ""} />;
}
